// Block and tile reductions with cooperative groups.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ float tile_sum(cg::thread_block_tile<16> tile, float value) {
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) value += tile.shfl_down(value, offset);
  return value;
}

__global__ void block_sums(const float* in, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  float v = i < n ? in[i] : 0.0f;
  v = tile_sum(tile, v);
  if (tile.thread_rank() == 0) atomicAdd(&out[block.group_index().x], v);
  block.sync();
}

void launch(const float* in, float* out, int n, hipStream_t stream) {
  block_sums<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
}

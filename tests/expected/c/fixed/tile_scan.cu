// Warp-tile prefix sums over half-precision input. Like many kernel files, it includes cooperative groups first
// and the half header with quotes, and never the runtime: nvcc adds that one on its own.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include "hip/hip_fp16.h"

namespace cg = cooperative_groups;

__device__ float tile_prefix(cg::thread_block_tile<8> tile, float value) {
  for (int step = 1; step < 8; step *= 2) {
    float from_left = tile.shfl_up(value, step);
    if (tile.thread_rank() >= step) value += from_left;
  }
  return value;
}

__global__ void prefix_sums(const __half* in, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float value = i < n ? __half2float(in[i]) : 0.0f;
  value = tile_prefix(tile, value);
  block.sync();
  if (i < n) out[i] = value;
}

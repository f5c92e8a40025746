// A block-wide sum: each 32-thread tile reduces its values, then the tile whose place among the block's tiles is 0
// adds up the per-tile partial sums. A tile's place and the number of tiles come from the tile itself.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void block_sum(const float *in, float *out, int n) {
    __shared__ float partial[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int step = 16; step > 0; step /= 2) {
        v += tile.shfl_down(v, step);
    }
    if (tile.thread_rank() == 0) {
        partial[tile.meta_group_rank()] = v;
    }
    block.sync();
    if (tile.meta_group_rank() == 0) {
        float total = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0.0f;
        for (int step = 16; step > 0; step /= 2) {
            total += tile.shfl_down(total, step);
        }
        if (tile.thread_rank() == 0) {
            out[blockIdx.x] = total;
        }
    }
}

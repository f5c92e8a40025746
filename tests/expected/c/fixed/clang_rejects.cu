// Two things nvcc builds that a clang-based compiler does not: a tile shuffle of a vector value, and an
// initialised array whose length arrives at run time.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

struct lane_pair {
    uint2 lo;
    float weight;
};

__global__ void swap_pairs(lane_pair *pairs) {
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    lane_pair mine = pairs[threadIdx.x];
    mine.weight = tile.shfl_xor(mine.weight, 1);  // a float: fine everywhere
    mine.lo = tile.shfl_xor(mine.lo, 1);          // a uint2: HIP's tiles refuse it
    pairs[threadIdx.x] = mine;
}

void stage_planes(int plane_count) {
    hipStream_t streams[plane_count] = {0};  // clang refuses the initialiser
    for (int i = 0; i < plane_count; ++i) {
        hipStreamCreate(&streams[i]);
    }
}

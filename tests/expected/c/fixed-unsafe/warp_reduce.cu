// Warp-synchronous reductions written for 32-lane warps.
#include <hip/hip_runtime.h>
#include <cstdint>

#define WARP_SIZE 32
#define FULL_MASK 0xffffffff
#define LOG_WARP 5

constexpr int kWarpSize = 32;

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int mask = WARP_SIZE / 2; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor(v, mask));
  return v;
}

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int tid = threadIdx.x;
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  float v = blockIdx.x * blockDim.x + tid < n ? in[blockIdx.x * blockDim.x + tid] : 0.0f;
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / kWarpSize ? partial[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

__global__ void vote(const int* flags, unsigned* all_set, int* leaders) {
  int tid = threadIdx.x;
  int lane_id = tid & 0x1f;
  int warp_id = tid >> 5;
  unsigned ballot = __ballot(flags[tid] != 0);
  if (ballot == 0xffffffff && lane_id == 0) all_set[warp_id] = 1;
  unsigned active = __activemask();
  int leader = __ffs(active) - 1;
  if ((tid & 31) == leader) leaders[warp_id] = leader;
  __syncwarp();
  float broadcast = __shfl(static_cast<float>(tid), 0);
  float prefix = __shfl_up(broadcast, 1);
  (void)prefix;
}

__global__ void transpose(const float* in, float* out, int width) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  out[x * width + y] = tile[threadIdx.x][threadIdx.y];
}

// Constants that are not about warps and must not be reported.
static uint32_t fnv_hash(const char* s) {
  uint32_t h = 0x811c9dc5u;
  while (*s) h = (h ^ static_cast<uint8_t>(*s++)) * 16777619u;
  return h * 31 + 0xffffffff % 7;
}

static int chunks(int bytes) {
  int words = bytes >> 5;
  int rest = bytes % 32;
  for (int i = 0; i < 32; ++i) words += i & 1;
  return words + rest;
}

__global__ void histogram(const int* in, int* bins) {
  __shared__ int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[in[threadIdx.x] & 255], 1);
  __syncthreads();
  bins[threadIdx.x] = local[threadIdx.x];
}

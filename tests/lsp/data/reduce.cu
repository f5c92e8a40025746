// 规约内核：每个线程块先在 warp 内求和，再由第一个 warp 汇总。
// Block reduction plus the host code that drives it; written for CUDA, being ported.
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      fprintf(stderr, "CUDA error %s\n", cudaGetErrorString(err_));          \
      return 1;                                                              \
    }                                                                        \
  } while (0)

#define FULL_MASK 0xffffffff
#define WARP_SIZE 32

#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define STREAM_T hipStream_t
#else
#define STREAM_T cudaStream_t
#endif

static int cudaHelperInit = 0;  // 用户自己的变量，不是 CUDA API

__device__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__inline__ __device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int tid = threadIdx.x;
  int lane = tid % 32;  // 车道号
  int warp = tid / 32;
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) v += in[i];
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = (lane < blockDim.x / WARP_SIZE) ? partial[lane] : 0.f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

int gemm(cublasHandle_t handle, int m, const float* a, float* c) {
  const float alpha = 1.0f, beta = 0.0f;
  // 调用 cuBLAS：cublasSgemm 在注释里不算
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, a, m, a, m, &beta, c, m);
  return 0;
}

int main() {
  const int n = 1 << 20;
  float *in = nullptr, *out = nullptr;
  printf("cudaMalloc in a string is not a finding\n");
  CUDA_CHECK(cudaMalloc(&in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&out, sizeof(float)));
  CUDA_CHECK(cudaMemset(out, 0, sizeof(float)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  block_sum<<<256, 256, 0, stream>>>(in, out, n);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaThreadSynchronize();
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  gemm(handle, 64, in, out);
  cublasDestroy(handle);
  cudaStreamDestroy(stream);
  cudaFree(in);
  cudaFree(out);
  return cudaHelperInit;
}

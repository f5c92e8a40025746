// SAXPY with the CUDA runtime: a typical first file to port.
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                         \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),      \
              __FILE__, __LINE__);                                               \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 20;
  float *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(y, 0, n * sizeof(float)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  saxpy<<<(n + 255) / 256, 256, 0, stream>>>(n, 2.0f, x, y);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  cudaFree(x);
  cudaFree(y);
  return 0;
}

#include <cuda_runtime.h>

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

void run(float *x, int n) {
  float *d = nullptr;
  cudaMalloc(&d, n * sizeof(float));  /* a device copy */
  cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(d, n);
  cudaFree(d);
}

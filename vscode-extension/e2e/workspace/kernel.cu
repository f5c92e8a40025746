#include <cuda_runtime.h>
#include <cstdio>

__global__ void add_one(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

int main() {
  const int n = 1024;
  float* device = nullptr;
  cudaMalloc(&device, n * sizeof(float));
  cudaMemset(device, 0, n * sizeof(float));
  add_one<<<(n + 255) / 256, 256>>>(device, n);
  cudaDeviceSynchronize();
  cudaFree(device);
  printf("done\n");
  return 0;
}

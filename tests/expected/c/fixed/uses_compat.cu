// Written with CUDA names; on ROCm the vendor header maps them to HIP.
#include "vendors/gpu_compat.h"
#include <cstdio>

__global__ void add_one(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

int run(int* host, int n, cudaStream_t stream) {
  int* device = nullptr;
  cudaError_t err = cudaMalloc(&device, n * sizeof(int));
  if (err != cudaSuccess) {
    std::printf("alloc failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  cudaMemcpy(device, host, n * sizeof(int), cudaMemcpyHostToDevice);
  add_one<<<(n + 127) / 128, 128, 0, stream>>>(device, n);
  cudaStreamSynchronize(stream);
  cudaMemcpy(host, device, n * sizeof(int), cudaMemcpyDeviceToHost);
  hipDeviceSynchronize();
  cudaFree(device);
  return 0;
}

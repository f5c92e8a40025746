// A file caught in the middle of an edit: unbalanced braces, an unfinished call and a dangling #if.
#include <hip/hip_runtime.h>

__global__ void partial(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 
}

void host_side(float* h, int n) {
  float* d;
  hipMalloc(&d, n * sizeof(float));
  hipMemcpy(d, h, n * sizeof(float), hipMemcpyHostToDevice
  hipStream_t s
  hipStreamCreate(&
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  hipFree(d);

// Recursive bisection that launches its own children from the device (CUDA Dynamic Parallelism, built with
// -rdc=true), counting visits with system-wide atomics. Neither exists on HIP: the launches are blockers and the
// system-scope increment is left to a person.
#include <hip/hip_runtime.h>

__device__ unsigned visits;

__global__ void bisect(float* values, int left, int right, int depth) {
  atomicInc_system(&visits, 1u << 30);
  if (depth == 0 || right - left < 64) return;
  int middle = (left + right) / 2;
  hipStream_t side;
  cudaStreamCreateWithFlags(&side, hipStreamNonBlocking);
  bisect<<<1, 1, 0, side>>>(values, left, middle, depth - 1);
  bisect<<<1, 1>>>(values, middle, right, depth - 1);
  cudaStreamDestroy(side);
}

int main() {
  float* values = nullptr;
  hipMalloc(&values, 4096 * sizeof(float));
  bisect<<<1, 1>>>(values, 0, 4096, 6);
  hipDeviceSynchronize();
  hipFree(values);
  return 0;
}

// The project's helpers come first and the runtime include last: fine for nvcc, which includes the runtime before
// anything else, so the helpers' `#ifdef __CUDA_RUNTIME_H__` block is there.
#include <hip/hip_runtime.h>
#include "helpers/status_checks.h"
#include <hip/hip_runtime.h>

__global__ void fill(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

int main() {
  int device = pick_device_with_most_memory();
  int* out = nullptr;
  CHECK_STATUS(hipMalloc(&out, 1024 * sizeof(int)));
  fill<<<4, 256>>>(out, device, 1024);
  CHECK_STATUS(hipDeviceSynchronize());
  CHECK_STATUS(hipFree(out));
  return 0;
}

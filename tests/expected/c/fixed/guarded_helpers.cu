// A program built on the project's status helpers: they only exist when the CUDA headers' guards are defined.
#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>
#include "helpers/status_checks.h"

__global__ void shift(float* values, float offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] += offset;
}

int main() {
  pick_device_with_most_memory();
  const int n = 4096;
  float* values = nullptr;
  CHECK_STATUS(hipMalloc(&values, n * sizeof(float)));
  hiprandGenerator_t generator;
  CHECK_STATUS(hiprandCreateGenerator(&generator, HIPRAND_RNG_PSEUDO_DEFAULT));
  CHECK_STATUS(hiprandGenerateUniform(generator, values, n));
  shift<<<(n + 255) / 256, 256>>>(values, -0.5f, n);
  CHECK_STATUS(hipGetLastError());
  CHECK_STATUS(hiprandDestroyGenerator(generator));
  CHECK_STATUS(hipFree(values));
  return 0;
}

// Start-up checks written against a recent CUDA toolkit: the device a stream runs on, and which atomics the host
// may use on device memory. Both APIs are newer than HIPIFY's tables.
#include <cstdio>
#include <hip/hip_runtime.h>

int main() {
  hipStream_t stream;
  hipStreamCreate(&stream);
  int device = -1;
  cudaStreamGetDevice(stream, &device);
  cudaAtomicOperation operations[1] = {cudaAtomicOperationIntegerAdd};
  unsigned int capabilities = 0;
  cudaDeviceGetHostAtomicCapabilities(&capabilities, operations, 1, device);
  std::printf("device %d, host atomics %s\n", device, capabilities & cudaAtomicCapabilityScalar32 ? "yes" : "no");
  hipStreamDestroy(stream);
  return 0;
}

// Start-up checks written against a recent CUDA toolkit: the device a stream runs on, which atomics the host may
// use on device memory (both newer than HIPIFY's tables), and prefetching in CUDA 13's form, by memory location.
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
  float* shared = nullptr;
  hipMallocManaged(&shared, 4096);
  hipMemLocation here;
  here.type = hipMemLocationTypeDevice;
  here.id = device;
  cudaMemAdvise(shared, 4096, cudaMemAdviseSetPreferredLocation, here);
  cudaMemPrefetchAsync(shared, 4096, here, 0, stream);
  hipStreamDestroy(stream);
  return 0;
}

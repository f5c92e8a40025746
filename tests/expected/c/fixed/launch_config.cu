// Tuning a templated stencil kernel: timing events with flags, kernel attributes on a template instance,
// coefficients in constant memory, and a launch through the runtime instead of <<<...>>>.
#include <cstdio>
#include <hip/hip_runtime.h>

__constant__ float taps[5];
__constant__ int radius;

template <typename T, int BLOCK>
__global__ void stencil(const T* in, T* out, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  float acc = 0.0f;
  for (int k = -radius; k <= radius; ++k) {
    int j = threadIdx.x + k;
    if (j >= 0 && j < BLOCK) acc += taps[k + radius] * tile[j];
  }
  out[i] = acc;
}

int tune(const float* d_in, float* d_out, int n) {
  const float host_taps[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
  const int host_radius = 2;
  hipMemcpyToSymbol(HIP_SYMBOL(taps), host_taps, sizeof(host_taps));
  hipMemcpyToSymbol(HIP_SYMBOL(radius), &host_radius, sizeof(int), 0, hipMemcpyHostToDevice);
  float readback[5];
  hipMemcpyFromSymbol(readback, HIP_SYMBOL(taps), sizeof(readback));
  void* taps_address = nullptr;
  hipGetSymbolAddress(&taps_address, HIP_SYMBOL(taps));

  hipFuncAttributes attributes;
  hipFuncGetAttributes(&attributes, reinterpret_cast<const void *>(stencil<float, 256>));
  hipFuncSetAttribute(reinterpret_cast<const void *>(stencil<float, 256>), hipFuncAttributeMaxDynamicSharedMemorySize, 256 * sizeof(float));
  hipFuncSetCacheConfig(reinterpret_cast<const void *>(stencil<float, 256>), hipFuncCachePreferShared);

  hipEvent_t start, stop, marker;
  hipEventCreate(&start);
  hipEventCreate(&stop);
  hipEventCreateWithFlags(&marker, hipEventDisableTiming);
  hipEventRecord(start);
  void* args[] = {&d_in, &d_out, &n};
  hipLaunchKernel((const void*)stencil<float, 256>, dim3((n + 255) / 256), dim3(256), args, 256 * sizeof(float));
  hipEventRecord(stop);
  hipEventSynchronize(stop);
  float ms = 0.0f;
  hipEventElapsedTime(&ms, start, stop);
  std::printf("%d registers, %.3f ms\n", attributes.numRegs, ms);
  hipEventDestroy(marker);
  return 0;
}

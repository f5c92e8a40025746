// Vector scaling with the CUDA runtime API: streams, events, pinned memory and an error-checking macro.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <hip/hip_runtime.h>

#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    hipError_t err_ = (call);                                                    \
    if (err_ != hipSuccess) {                                                    \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", hipGetErrorName(err_), \
                   __FILE__, __LINE__, hipGetErrorString(err_));                 \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

__global__ void scale(float* out, const float* in, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * in[i];
}

static int pick_device() {
  int count = 0;
  CUDA_CHECK(hipGetDeviceCount(&count));
  int best = 0;
  size_t best_mem = 0;
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t prop;
    CUDA_CHECK(hipGetDeviceProperties(&prop, d));
    if (prop.totalGlobalMem > best_mem) {
      best_mem = prop.totalGlobalMem;
      best = d;
    }
  }
  CUDA_CHECK(hipSetDevice(best));
  return best;
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  pick_device();

  float* host = nullptr;
  CUDA_CHECK(hipHostMalloc(&host, bytes));
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);

  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(hipMalloc(&d_in, bytes));
  CUDA_CHECK(hipMalloc(&d_out, bytes));

  hipStream_t stream;
  CUDA_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  hipEvent_t start, stop;
  CUDA_CHECK(hipEventCreate(&start));
  CUDA_CHECK(hipEventCreate(&stop));

  CUDA_CHECK(hipEventRecord(start, stream));
  CUDA_CHECK(hipMemcpyAsync(d_in, host, bytes, hipMemcpyHostToDevice, stream));
  scale<<<(n + 255) / 256, 256, 0, stream>>>(d_out, d_in, 2.0f, n);
  CUDA_CHECK(hipGetLastError());
  CUDA_CHECK(hipMemcpyAsync(host, d_out, bytes, hipMemcpyDeviceToHost, stream));
  CUDA_CHECK(hipEventRecord(stop, stream));
  CUDA_CHECK(hipEventSynchronize(stop));

  float ms = 0.0f;
  CUDA_CHECK(hipEventElapsedTime(&ms, start, stop));
  std::printf("scale took %.3f ms; cudaMemcpy of %zu bytes\n", ms, bytes);

  hipDeviceSynchronize();  // removed from recent CUDA; still in old code
  CUDA_CHECK(hipEventDestroy(start));
  CUDA_CHECK(hipEventDestroy(stop));
  CUDA_CHECK(hipStreamDestroy(stream));
  CUDA_CHECK(hipFree(d_in));
  CUDA_CHECK(hipFree(d_out));
  CUDA_CHECK(hipHostFree(host));
  return 0;
}

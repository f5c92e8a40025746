// Device intrinsics and the architecture and version macros that select code paths.
#include <hip/hip_runtime.h>

#if CUDA_VERSION >= 11000
#define HAS_ASYNC_ALLOC 1
#endif

__device__ unsigned pack_bits(unsigned x) { return __brev(x) ^ __popc(x); }

__global__ void kernel(const float* __restrict__ in, float* out, unsigned* bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = __ldg(in + i);
  out[i] = __fdividef(v, 3.0f) + __expf(v);
  unsigned a = static_cast<unsigned>(i);
  bits[i] = pack_bits(a) + umin(a, 7u) + __umulhi(a, a);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  out[i] = __saturatef(out[i]);
#endif
  if (v < 0.0f) __trap();
}

int main() {
  int runtime = 0;
  hipRuntimeGetVersion(&runtime);
  return runtime >= CUDART_VERSION ? 0 : 1;
}

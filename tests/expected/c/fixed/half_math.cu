// fp16 kernels: scalar and paired half arithmetic.
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

__global__ void axpy_half(const __half* x, __half* y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half a = __float2half(alpha);
  y[i] = __hfma(a, x[i], y[i]);
}

__global__ void scale_half2(__half2* data, float s, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) data[i] = __hmul2(data[i], __float2half2_rn(s));
}

__global__ void widen(const __half* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half2float(in[i]);
}

void run(__half* x, __half* y, int n, hipStream_t stream) {
  axpy_half<<<(n + 127) / 128, 128, 0, stream>>>(x, y, 0.5f, n);
}

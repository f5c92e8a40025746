// bf16 storage for activations: convert on the way in and out.
#include <hip/hip_bf16.h>
#include <hip/hip_runtime.h>

__global__ void store_bf16(const float* in, __hip_bfloat16* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}

__global__ void load_bf16(const __hip_bfloat16* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

__global__ void pairs(const __hip_bfloat162* in, float2* out, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) out[i] = __bfloat1622float2(in[i]);
}

// Vector arithmetic a project wrote for CUDA's plain float4/float3 structs (helper_math.h style), used by a
// box blur tuned with launch bounds.
#include <hip/hip_runtime.h>

inline __host__ __device__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
inline __host__ __device__ void operator+=(float4& a, float4 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
}
inline __host__ __device__ float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }
inline __host__ __device__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__global__ void __launch_bounds__(256, 2) blur(const float4* in, float4* out, int n, int radius) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int k = -radius; k <= radius; ++k) {
    int j = min(max(i + k, 0), n - 1);
    sum += in[j];
  }
  out[i] = sum * (1.0f / (2 * radius + 1));
}

__global__ void __launch_bounds__(128) brighten(float4* pixels, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pixels[i] = pixels[i] + make_float4(0.1f, 0.1f, 0.1f, 0.0f);
}

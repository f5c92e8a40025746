// Dropout masks from cuRAND: the host API fills a buffer, the device API draws per thread.
#include <cstdio>
#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>
#include <hiprand/hiprand_kernel.h>

#define CURAND_CHECK(expr)                                                  \
  do {                                                                      \
    hiprandStatus_t st_ = (expr);                                            \
    if (st_ != HIPRAND_STATUS_SUCCESS) std::printf("curand error %d\n", st_); \
  } while (0)

__global__ void setup_states(hiprandStatePhilox4_32_10_t* states, unsigned long long seed, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < n) hiprand_init(seed, id, 0, &states[id]);
}

__global__ void dropout(const float* in, float* out, hiprandStatePhilox4_32_10_t* states, float keep, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n) return;
  hiprandStatePhilox4_32_10_t local = states[id];
  float u = hiprand_uniform(&local);
  float noise = hiprand_normal(&local) * 0.01f;
  out[id] = u < keep ? in[id] / keep + noise : 0.0f;
  states[id] = local;
}

void host_uniform(float* device_buffer, size_t count, hipStream_t stream) {
  hiprandGenerator_t gen;
  CURAND_CHECK(hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(hiprandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
  CURAND_CHECK(hiprandSetStream(gen, stream));
  CURAND_CHECK(hiprandGenerateUniform(gen, device_buffer, count));
  CURAND_CHECK(hiprandGenerateNormal(gen, device_buffer, count, 0.0f, 1.0f));
  CURAND_CHECK(hiprandDestroyGenerator(gen));
}

int main() {
  const int n = 1024;
  float *in, *out;
  hiprandStatePhilox4_32_10_t* states;
  hipMalloc(&in, n * sizeof(float));
  hipMalloc(&out, n * sizeof(float));
  hipMalloc(&states, n * sizeof(hiprandStatePhilox4_32_10_t));
  host_uniform(in, n, 0);
  setup_states<<<n / 128, 128>>>(states, 42ULL, n);
  dropout<<<n / 128, 128>>>(in, out, states, 0.9f, n);
  hipDeviceSynchronize();
  hipFree(states);
  hipFree(out);
  hipFree(in);
  return 0;
}

// Runtime compilation of a kernel with NVRTC, and complex arithmetic with cuComplex on the host.
#include <hip/hiprtc.h>
#include <hip/hip_complex.h>
#include <cstdio>
#include <string>
#include <vector>

static const char* kSource = R"(
extern "C" __global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
)";

std::string compile_to_ptx() {
  hiprtcProgram prog;
  hiprtcCreateProgram(&prog, kSource, "scale.cu", 0, nullptr, nullptr);
  const char* options[] = {"--gpu-architecture=compute_80"};
  hiprtcResult result = hiprtcCompileProgram(prog, 1, options);
  size_t log_size = 0;
  hiprtcGetProgramLogSize(prog, &log_size);
  std::vector<char> log(log_size);
  hiprtcGetProgramLog(prog, log.data());
  if (result != HIPRTC_SUCCESS) {
    std::printf("nvrtc: %s\n%s\n", hiprtcGetErrorString(result), log.data());
    return {};
  }
  size_t ptx_size = 0;
  hiprtcGetCodeSize(prog, &ptx_size);
  std::string ptx(ptx_size, '\0');
  hiprtcGetCode(prog, &ptx[0]);
  hiprtcDestroyProgram(&prog);
  return ptx;
}

hipFloatComplex rotate(hipFloatComplex z, float angle_cos, float angle_sin) {
  hipFloatComplex w = make_hipFloatComplex(angle_cos, angle_sin);
  return hipCmulf(z, w);
}

float magnitude_sum(const std::vector<hipDoubleComplex>& values) {
  double total = 0.0;
  for (const hipDoubleComplex& v : values) total += hipCabs(v);
  return static_cast<float>(total);
}

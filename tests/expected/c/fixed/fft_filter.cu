// Low-pass filtering of a batch of signals with cuFFT (real-to-complex and back).
#include <hipfft/hipfft.h>
#include <hip/hip_runtime.h>
#include <cstdio>

static const char* fft_error(hipfftResult r) { return r == HIPFFT_SUCCESS ? "ok" : "cuFFT call failed"; }

__global__ void zero_high(hipfftComplex* spectrum, int bins, int cutoff, int batch) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= bins * batch) return;
  if (i % bins > cutoff) {
    spectrum[i].x = 0.0f;
    spectrum[i].y = 0.0f;
  }
}

int lowpass(hipfftReal* signal, int length, int batch, int cutoff, hipStream_t stream) {
  const int bins = length / 2 + 1;
  hipfftComplex* spectrum = nullptr;
  hipMalloc(&spectrum, sizeof(hipfftComplex) * bins * batch);

  hipfftHandle forward, inverse;
  int dims[1] = {length};
  hipfftResult r = hipfftPlanMany(&forward, 1, dims, nullptr, 1, length, nullptr, 1, bins, HIPFFT_R2C, batch);
  if (r != HIPFFT_SUCCESS) {
    std::printf("%s\n", fft_error(r));
    return 1;
  }
  hipfftPlan1d(&inverse, length, HIPFFT_C2R, batch);
  hipfftSetStream(forward, stream);
  hipfftSetStream(inverse, stream);

  hipfftExecR2C(forward, signal, spectrum);
  zero_high<<<(bins * batch + 255) / 256, 256, 0, stream>>>(spectrum, bins, cutoff, batch);
  hipfftExecC2R(inverse, spectrum, signal);

  hipfftDestroy(forward);
  hipfftDestroy(inverse);
  hipFree(spectrum);
  return 0;
}

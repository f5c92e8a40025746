// Zero-copy host buffers and a completion callback: mapped pinned memory, pitched device images, a CUDA 12 graph,
// and kernel parameters passed as grid constants.
#include <cstdio>
#include <hip/hip_runtime.h>

void report(hipStream_t stream, hipError_t status, void* user);

struct Weights {
  float taps[64];
};

__global__ void weigh(const Weights weights, const float* in, float* out, unsigned* done) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * weights.taps[i % 64];
  atomicAdd_system(done, 1u);
}

void report(hipStream_t stream, hipError_t status, void* user) {
  std::printf("stream finished: %s (%s)\n", hipGetErrorString(status), static_cast<const char*>(user));
}

int main() {
  const int n = 1024;
  float* host_in = nullptr;
  unsigned* host_done = nullptr;
  hipHostMalloc(&host_in, n * sizeof(float), hipHostMallocMapped);
  hipHostMalloc(&host_done, sizeof(unsigned), hipHostMallocMapped | hipHostMallocPortable);
  float* device_in = nullptr;
  unsigned* device_done = nullptr;
  hipHostGetDevicePointer((void **)&device_in, host_in, 0);
  hipHostGetDevicePointer((void **)&device_done, host_done, 0);

  float* image = nullptr;
  size_t pitch = 0;
  hipMallocPitch((void **)&image, &pitch, 64 * sizeof(float), 16);
  hipArray_t volume;
  hipChannelFormatDesc texel = hipCreateChannelDesc<float>();
  hipMalloc3DArray(&volume, &texel, make_hipExtent(8, 8, 8), 0);

  Weights weights = {};
  hipStream_t stream;
  hipEvent_t ready;
  hipStreamCreate(&stream);
  hipEventCreate(&ready);
  hipEventRecord(ready, stream);
  hipStreamWaitEvent(stream, ready, 0);

  hipGraph_t graph;
  hipGraphExec_t runnable;
  hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal);
  weigh<<<n / 256, 256, 0, stream>>>(weights, device_in, image, device_done);
  hipStreamEndCapture(stream, &graph);
  hipGraphInstantiateWithFlags(&runnable, graph, 0);
  hipGraphLaunch(runnable, stream);
  hipStreamAddCallback(stream, report, const_cast<char*>("weigh"), 0);
  hipStreamSynchronize(stream);
  hipFreeArray(volume);
  hipFree(image);
  hipHostFree(host_in);
  hipHostFree(host_done);
  return 0;
}

// A start-up report of the device: error names from both the runtime and the driver API, and properties that
// only NVIDIA's driver knows.
#include <cstdio>
#include <hip/hip_runtime.h>
#include <hip/hip_runtime.h>

static const char* describe(hipError_t status) { return hipGetErrorName(status); }
static const char* describe(CUresult status) { return status == hipSuccess ? "success" : "driver error"; }

int main() {
  hipDeviceProp_t properties;
  hipError_t status = hipGetDeviceProperties(&properties, 0);
  std::printf("%s: %s, %d multiprocessors\n", describe(status), properties.name, properties.multiProcessorCount);
  std::printf("MPS %s, NUMA node %d\n", properties.mpsEnabled ? "on" : "off", properties.hostNumaId);
  return 0;
}

// Reports GPU health with NVML and marks the phases of a training step with NVTX ranges.
#include <nvml.h>
#include <roctracer/roctx.h>
#include <cstdio>

static void report_devices() {
  if (nvmlInit_v2() != NVML_SUCCESS) return;
  unsigned int count = 0;
  nvmlDeviceGetCount_v2(&count);
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device;
    nvmlDeviceGetHandleByIndex_v2(i, &device);
    unsigned int milliwatts = 0;
    nvmlReturn_t rc = nvmlDeviceGetPowerUsage(device, &milliwatts);
    if (rc != NVML_SUCCESS) std::printf("power: %s\n", nvmlErrorString(rc));
    nvmlMemory_t memory;
    nvmlDeviceGetMemoryInfo(device, &memory);
    std::printf("gpu %u: %u mW, %llu bytes used\n", i, milliwatts, memory.used);
  }
  nvmlShutdown();
}

void train_step(int step) {
  roctxRangePushA("forward");
  roctxMarkA("loss computed");
  roctxRangePop();
  roctx_range_id_t backward = roctxRangeStartA("backward");
  roctxRangeStop(backward);
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.message.ascii = "optimizer";
  nvtxRangePushEx(&attributes);
  roctxRangePop();
  if (step == 0) report_devices();
}

// Reports GPU health with NVML and marks the phases of a training step with NVTX ranges.
#include <rocm_smi/rocm_smi.h>
#include <roctracer/roctx.h>
#include <cstdio>

static void report_devices() {
  if (rsmi_init(0) != RSMI_STATUS_SUCCESS) return;
  unsigned int count = 0;
  rsmi_num_monitor_devices(&count);
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device;
    nvmlDeviceGetHandleByIndex_v2(i, &device);
    unsigned int milliwatts = 0;
    rsmi_status_t rc = rsmi_dev_power_ave_get(device, &milliwatts);
    if (rc != RSMI_STATUS_SUCCESS) std::printf("power: %s\n", rsmi_status_string(rc));
    nvmlMemory_t memory;
    rsmi_dev_memory_usage_get(device, &memory);
    std::printf("gpu %u: %u mW, %llu bytes used\n", i, milliwatts, memory.used);
  }
  rsmi_shut_down();
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

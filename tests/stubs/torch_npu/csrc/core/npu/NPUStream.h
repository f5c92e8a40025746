// torch_npu's stream API as its NPUStream.h declares it (c10_npu::NPUStream converts to aclrtStream).
#pragma once
#include <acl/acl.h>
#include <torch/extension.h>

namespace c10_npu {
class NPUStream {
 public:
  operator aclrtStream() const;
  aclrtStream stream() const;
  c10::Device device() const;
};
NPUStream getCurrentNPUStream(c10::DeviceIndex device_index = -1);
NPUStream getDefaultNPUStream(c10::DeviceIndex device_index = -1);
NPUStream getStreamFromPool(const bool isHighPriority, c10::DeviceIndex device_index);
void setCurrentNPUStream(NPUStream stream);
}  // namespace c10_npu

// torch_npu's device guards as its NPUGuard.h declares them.
#pragma once
#include <torch/extension.h>

namespace c10_npu {
struct NPUGuard {
  explicit NPUGuard(c10::DeviceIndex device_index);
  explicit NPUGuard(c10::Device device);
};
struct OptionalNPUGuard {
  explicit OptionalNPUGuard(c10::optional<c10::Device> device_opt);
};
}  // namespace c10_npu

// torch_mlu's device guards as its framework/core/mlu_guard.h declares them.
#pragma once
#include <torch/extension.h>

namespace torch_mlu {
namespace mlu {
struct MLUGuard {
  explicit MLUGuard(c10::DeviceIndex device_index);
  explicit MLUGuard(c10::Device device);
};
struct OptionalMLUGuard {
  explicit OptionalMLUGuard(c10::optional<c10::Device> device_opt);
};
}  // namespace mlu
}  // namespace torch_mlu

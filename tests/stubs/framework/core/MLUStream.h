// torch_mlu's stream API as its framework/core/MLUStream.h declares it (torch_mlu::MLUStream converts to a queue).
#pragma once
#include <cnrt.h>
#include <torch/extension.h>

namespace torch_mlu {
class MLUStream {
 public:
  operator cnrtQueue_t() const;
  cnrtQueue_t stream() const;
};
MLUStream getCurrentMLUStream(c10::DeviceIndex device_index = -1);
MLUStream getDefaultMLUStream(c10::DeviceIndex device_index = -1);
void setCurrentMLUStream(MLUStream stream);
}  // namespace torch_mlu

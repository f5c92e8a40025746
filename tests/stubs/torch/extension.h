// The part of PyTorch's C++ API that the extension fixtures use, declared from its documented signatures
// (c10::DeviceType, c10::Device, at::Tensor, at::device_of, TORCH_CHECK). Not PyTorch's header.
#pragma once
#include <cstdint>
#include <optional>

namespace c10 {
using DeviceIndex = int8_t;
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, PrivateUse1 = 20 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;
template <class T>
using optional = std::optional<T>;
struct Device {
  Device(DeviceType type, DeviceIndex index = -1);
  DeviceType type() const noexcept;
  DeviceIndex index() const noexcept;
  bool is_cuda() const noexcept;
  bool is_privateuseone() const noexcept;
};
}  // namespace c10

namespace at {
using namespace c10;
struct Tensor {
  bool is_cuda() const;
  bool is_privateuseone() const;
  c10::Device device() const;
  int64_t numel() const;
  template <class T>
  T* data_ptr() const;
};
c10::optional<c10::Device> device_of(const Tensor& tensor);
}  // namespace at

namespace torch {
using namespace at;
}  // namespace torch

#define TORCH_CHECK(condition, ...) static_cast<void>(static_cast<bool>(condition))

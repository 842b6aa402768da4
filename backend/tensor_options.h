#pragma once
// TensorOptions: dtype and device for factories, builder-style as in ATen.
//
//   zeros({4, 512}, TensorOptions().dtype(kBFloat16).device(Device("neuron:0")))
#include <optional>

#include "backend/device.h"
#include "backend/scalar_type.h"

namespace nsim {
namespace at {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT: implicit like ATen
  TensorOptions(Device d) : device_(d) {}     // NOLINT: implicit like ATen

  TensorOptions dtype(ScalarType t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
  TensorOptions device(Device d) const { TensorOptions o = *this; o.device_ = d; return o; }

  ScalarType dtype() const { return dtype_.value_or(kDefaultFloat); }
  Device device() const { return device_.value_or(Device(kCPU)); }
  const std::optional<ScalarType>& dtype_opt() const { return dtype_; }
  const std::optional<Device>& device_opt() const { return device_; }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
};

}  // namespace at
}  // namespace nsim

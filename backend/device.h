#pragma once
// Device: where a tensor's storage lives. `cpu` is host memory, `neuron:N` a
// NeuronCore's HBM (PyTorch's PrivateUse1, renamed "neuron" as TorchNeuron
// does), `meta` a tensor with shape and dtype but no data.
//
//   Device d("neuron:1");  d.type() == DeviceType::Neuron, d.index() == 1
#include <cstdint>
#include <ostream>
#include <string>

namespace nsim {
namespace at {

enum class DeviceType : int8_t { CPU, Neuron, Meta };
constexpr int kNumDeviceTypes = 3;

const char* ToString(DeviceType t);  // "cpu", "neuron", "meta"

class Device {
 public:
  // Index -1 means "the current device" for device types with several.
  Device(DeviceType type = DeviceType::CPU, int8_t index = -1);  // NOLINT: implicit like c10
  // Parses "cpu", "meta", "neuron", "neuron:3"; throws on anything else.
  explicit Device(const std::string& spec);

  DeviceType type() const { return type_; }
  int8_t index() const { return index_; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool is_meta() const { return type_ == DeviceType::Meta; }
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;  // "neuron:0", "cpu"

 private:
  DeviceType type_;
  int8_t index_;
};

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kNeuron = DeviceType::Neuron;
constexpr DeviceType kMeta = DeviceType::Meta;

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace at
}  // namespace nsim

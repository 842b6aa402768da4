#include "backend/device.h"

#include "sim/base/error.h"

namespace nsim {
namespace at {

const char* ToString(DeviceType t) {
  static const char* const kNames[kNumDeviceTypes] = {"cpu", "neuron", "meta"};
  return kNames[static_cast<int>(t)];
}

Device::Device(DeviceType type, int8_t index) : type_(type), index_(index) {
  // Devices with one instance carry no index; a Neuron device defaults to core 0
  // so that "neuron" and "neuron:0" compare equal (as torch.device('cuda') does
  // after it is resolved against the current device).
  if (type_ != DeviceType::Neuron) index_ = -1;
  else if (index_ < 0) index_ = 0;
}

Device::Device(const std::string& spec) : Device(DeviceType::CPU) {
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  for (int t = 0; t < kNumDeviceTypes; ++t) {
    if (name != ToString(static_cast<DeviceType>(t))) continue;
    int index = -1;
    if (colon != std::string::npos) {
      const std::string digits = spec.substr(colon + 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
          digits.size() > 2) {
        throw SimError("Invalid device string: '" + spec + "'");
      }
      index = std::stoi(digits);
    }
    *this = Device(static_cast<DeviceType>(t), static_cast<int8_t>(index));
    return;
  }
  throw SimError("Expected one of cpu, neuron, meta device type at start of device string: " +
                 spec);
}

std::string Device::str() const {
  std::string s = ToString(type_);
  if (index_ >= 0) s += ":" + std::to_string(index_);
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace at
}  // namespace nsim

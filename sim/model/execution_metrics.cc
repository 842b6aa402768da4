#include "sim/model/execution_metrics.h"

namespace nsim {

double Utilisation(Picos busy, Picos device_time) {
  return device_time > 0 ? static_cast<double>(busy) / static_cast<double>(device_time) : 0.0;
}

double BytesPerSecond(int64_t bytes, Picos device_time) {
  return device_time > 0 ? static_cast<double>(bytes) / (static_cast<double>(device_time) * 1e-12) : 0.0;
}

}  // namespace nsim

#include "runtime/capture_setting.h"

#include <array>
#include <atomic>

namespace nsim {
namespace rt {
namespace {
std::array<std::atomic<bool>, kMaxCaptureCores> g_capture{};
}  // namespace

void SetDeviceCapture(const bool (&cores)[kMaxCaptureCores]) {
  for (int i = 0; i < kMaxCaptureCores; ++i) g_capture[i].store(cores[i], std::memory_order_relaxed);
}

void ClearDeviceCapture() {
  for (auto& c : g_capture) c.store(false, std::memory_order_relaxed);
}

bool DeviceCaptureOn(int core) {
  return core >= 0 && core < kMaxCaptureCores && g_capture[core].load(std::memory_order_relaxed);
}

}  // namespace rt
}  // namespace nsim

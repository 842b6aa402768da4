#pragma once
// Whether the hardware writes an instruction trace for each core (the
// profiler's DEVICE mode). A setting passed down by whoever profiles (the
// runtime/profiling glue pushes the profiler's choice here when a profile
// starts or stops recording): the runtime charges the config's capture.*
// costs for these cores and never asks the profiler itself.
namespace nsim {
namespace rt {

constexpr int kMaxCaptureCores = 128;  // = Runtime::kMaxCores

// cores[i]: capture on neuron:i; cores beyond the list are off.
void SetDeviceCapture(const bool (&cores)[kMaxCaptureCores]);
void ClearDeviceCapture();
bool DeviceCaptureOn(int core);

}  // namespace rt
}  // namespace nsim

// PrivateUse1 allocator and device guard. Memory is the simulated HBM: a
// tensor's data pointer is its HBM address (never dereferenced on the host;
// copies go through the runtime). Streams are the runtime's streams (torch
// stream id = runtime stream index, 0 the default); events are points on a
// stream's simulated device timeline: recording one simulates nothing and
// costs the host nothing, as CUDA's record only enqueues a marker.
#include "torch_nsim/csrc/device.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <map>

#include "runtime/clock.h"
#include "runtime/runtime.h"
#include "torch_nsim/csrc/streams.h"

namespace torch_nsim {
namespace {

namespace rt = nsim::rt;
using c10::DeviceType;

int g_device_count = 1;
thread_local int t_device = 0;

struct Block {
  int core;
  uint64_t address;
};

void FreeBlock(void* ctx) {
  auto* b = static_cast<Block*>(ctx);
  try {
    if (rt::Runtime::Get().HasCore(b->core)) rt::Runtime::Get().core(b->core).Free(b->address);
  } catch (...) {  // deleters must not throw; a reset runtime took the memory with it
  }
  delete b;
}

class HbmAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    const int index = CurrentDevice();
    const uint64_t address = Core(index).Allocate(nbytes);
    return {reinterpret_cast<void*>(address), new Block{index, address}, &FreeBlock,
            c10::Device(DeviceType::PrivateUse1, index)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
  // Storage resize: HBM to HBM on the current core, through the host.
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    if (count == 0) return;
    rt::NeuronCoreDevice& core = Core(CurrentDevice());
    std::vector<char> staging(count);
    core.CopyFromDevice(staging.data(), reinterpret_cast<uint64_t>(src), count);
    core.CopyToDevice(reinterpret_cast<uint64_t>(dest), staging.data(), count);
  }
};

HbmAllocator g_allocator;

// ------------------------------------------------------------------ events

// The stream reaches it when the work queued before the record is done,
// and not before the host recorded it (an idle stream reaches it at once).
struct Event {
  int device = 0;
  rt::ExecutionHandle before;  // the stream's last item at the record (nullptr: none)
  nsim::Picos recorded = 0;    // host time of the record
};

bool Reached(Event& e) { return !e.before || Core(e.device).IsComplete(e.before); }

// The host waits until the stream has reached the event; returns that time.
nsim::Picos WaitFor(Event& e) {
  if (e.before) Core(e.device).Wait(e.before);
  return e.before ? std::max(e.recorded, e.before->device_end) : e.recorded;
}

// "neuron" without an index is the current device.
c10::Device Canonical(c10::Device d) {
  return c10::Device(DeviceType::PrivateUse1, d.has_index() ? d.index() : static_cast<c10::DeviceIndex>(CurrentDevice()));
}

class NeuronGuardImpl final : public c10::impl::DeviceGuardImplInterface {
 public:
  DeviceType type() const override { return DeviceType::PrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override {
    const c10::Device old = getDevice();
    setDevice(d);
    return old;
  }
  c10::Device getDevice() const override { return c10::Device(DeviceType::PrivateUse1, CurrentDevice()); }
  void setDevice(c10::Device d) const override { SetCurrentDevice(d.has_index() ? d.index() : 0); }
  void uncheckedSetDevice(c10::Device d) const noexcept override { t_device = d.has_index() ? d.index() : 0; }
  c10::Stream getStream(c10::Device d) const override {
    d = Canonical(d);
    return c10::Stream(c10::Stream::UNSAFE, d, CurrentStream(d.index()));
  }
  c10::Stream getDefaultStream(c10::Device d) const override { return c10::Stream(c10::Stream::DEFAULT, Canonical(d)); }
  c10::Stream getNewStream(c10::Device d, int /*priority*/) const override {
    d = Canonical(d);
    return c10::Stream(c10::Stream::UNSAFE, d, Core(d.index()).CreateStream());
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    const c10::Stream old = getStream(s.device());
    SetCurrentStream(Canonical(s.device()).index(), static_cast<int>(s.id()));
    return old;
  }
  c10::DeviceIndex deviceCount() const noexcept override { return static_cast<c10::DeviceIndex>(DeviceCount()); }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "neuron event: device ",
                device_index, " does not match the stream's ", stream.device_index());
    if (*event == nullptr) *event = new Event;
    auto* e = static_cast<Event*>(*event);
    e->device = stream.device_index();
    e->before = Core(e->device).LastOnStream(static_cast<int>(stream.id()));
    e->recorded = rt::SimClock::Get().now();
  }
  // The stream waits: on the simulator work is placed when submitted, so a
  // wait is the host waiting for the event (conservative, never wrong).
  void block(void* event, const c10::Stream&) const override {
    if (event != nullptr) WaitFor(*static_cast<Event*>(event));
  }
  bool queryEvent(void* event) const override { return event == nullptr || Reached(*static_cast<Event*>(event)); }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override { delete static_cast<Event*>(event); }
  void synchronizeEvent(void* event) const override { block(event, c10::Stream(c10::Stream::DEFAULT, getDevice())); }
  // Both points must be known: the host waits for them (where CUDA would
  // report "not ready"; before a synchronize the neuron device waits instead).
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start != nullptr && end != nullptr, "neuron event: elapsed_time of an event never recorded");
    const nsim::Picos d = WaitFor(*static_cast<Event*>(end)) - WaitFor(*static_cast<Event*>(start));
    return static_cast<double>(d) / 1e9;  // ps -> ms
  }
  bool queryStream(const c10::Stream& s) const override {
    rt::NeuronCoreDevice& core = Core(s.device_index());
    const rt::ExecutionHandle last = core.LastOnStream(static_cast<int>(s.id()));
    return !last || core.IsComplete(last);
  }
  void synchronizeStream(const c10::Stream& s) const override {
    Core(s.device_index()).Synchronize(static_cast<int>(s.id()));
  }
  void synchronizeDevice(const c10::DeviceIndex index) const override { Core(index).Synchronize(); }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, NeuronGuardImpl);

}  // namespace

c10::Allocator* NeuronAllocator() { return &g_allocator; }

int DeviceCount() { return g_device_count; }

void SetDeviceCount(int n) {
  TORCH_CHECK(n >= 1 && n <= rt::Runtime::kMaxCores, "torch_nsim.set_device_count(", n, "): must be in [1, ",
              rt::Runtime::kMaxCores, "]");
  g_device_count = n;
}

int CurrentDevice() { return t_device; }

void SetCurrentDevice(int index) {
  TORCH_CHECK(index >= 0 && index < DeviceCount(), "neuron:", index, " does not exist: there are ", DeviceCount(),
              " neuron devices (torch_nsim.set_device_count)");
  t_device = index;
}

rt::NeuronCoreDevice& Core(int index) {
  if (index < 0) index = CurrentDevice();
  TORCH_CHECK(index < DeviceCount(), "neuron:", index, " does not exist: there are ", DeviceCount(),
              " neuron devices (torch_nsim.set_device_count)");
  return rt::Runtime::Get().core(index);
}

}  // namespace torch_nsim

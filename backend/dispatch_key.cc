#include "backend/dispatch_key.h"

#include <cstring>
#include <string>

#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

// Indexed by DispatchKey. Only the Neuron key lifts CPU scalars and charges
// host cost: that is what the study measured for TorchNeuron.
constexpr KeyTraits kTraits[kNumDispatchKeys] = {
    {"CPU", true, false, false},
    {"Neuron", true, true, true},
    {"Meta", true, false, false},
    {"Tracing", false, false, false},
    {"CompositeExplicit", false, false, false},
};

// Indexed by DeviceType.
constexpr DispatchKey kDeviceKey[kNumDeviceTypes] = {DispatchKey::CPU, DispatchKey::Neuron,
                                                     DispatchKey::Meta};

}  // namespace

const KeyTraits& Traits(DispatchKey k) { return kTraits[static_cast<int>(k)]; }
DispatchKey KeyForDevice(DeviceType t) { return kDeviceKey[static_cast<int>(t)]; }

DispatchKey ParseDispatchKey(const char* name) {
  if (std::strcmp(name, "PrivateUse1") == 0) return PrivateUse1;
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    if (std::strcmp(name, kTraits[k].name) == 0) return static_cast<DispatchKey>(k);
  }
  throw SimError(std::string("unknown dispatch key '") + name + "'");
}

LocalDispatchKeySet& ThreadLocalKeys() {
  thread_local LocalDispatchKeySet keys;
  return keys;
}

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKey k)
    : saved_(ThreadLocalKeys().included) {
  ThreadLocalKeys().included.add(k);
}
IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() { ThreadLocalKeys().included = saved_; }

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKey k)
    : saved_(ThreadLocalKeys().excluded) {
  ThreadLocalKeys().excluded.add(k);
}
ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() { ThreadLocalKeys().excluded = saved_; }

}  // namespace at
}  // namespace nsim

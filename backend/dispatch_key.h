#pragma once
// DispatchKey: which kernel of an op runs. Runtime keys are ordered by
// priority (the highest key present wins, as in c10): a tensor on the Neuron
// device selects Neuron over CPU, Meta wins over both, and Tracing, which no
// tensor carries but a thread can include (a compile() capturing ops), wins
// over all. CompositeExplicit is an alias key: a kernel registered there
// serves every backend key (CPU, Neuron, Meta) that has no kernel of its own;
// such kernels are written in terms of other ops (views, add.Scalar -> add.Tensor).
//
// Each key's behaviour is data in one table (KeyTraits), not branches in the
// dispatcher.
#include <cstdint>

#include "backend/device.h"

namespace nsim {
namespace at {

enum class DispatchKey : uint8_t {
  CPU,
  Neuron,  // PyTorch's PrivateUse1, renamed "neuron"
  Meta,
  Tracing,
  CompositeExplicit,  // alias, not a runtime key
};
constexpr DispatchKey PrivateUse1 = DispatchKey::Neuron;
constexpr int kNumRuntimeKeys = 4;
constexpr int kNumDispatchKeys = 5;

struct KeyTraits {
  const char* name;
  bool is_backend;         // runs kernels on some device's memory
  bool lifts_cpu_scalars;  // See Note [Scalar lifting] in dispatcher.cc
  bool charges_host_cost;  // calls the HostCostModel at op begin (record_function.h)
};
const KeyTraits& Traits(DispatchKey k);
inline const char* ToString(DispatchKey k) { return Traits(k).name; }
DispatchKey KeyForDevice(DeviceType t);
// Parses "CPU", "Neuron", "PrivateUse1", "Meta", "Tracing", "CompositeExplicit"; throws otherwise.
DispatchKey ParseDispatchKey(const char* name);

// A set of runtime keys as a bitmask; bit i is DispatchKey(i).
class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(uint32_t bits) : bits_(bits) {}
  static constexpr DispatchKeySet Of(DispatchKey k) {
    return DispatchKeySet(1u << static_cast<int>(k));
  }
  DispatchKeySet operator|(DispatchKeySet o) const { return DispatchKeySet(bits_ | o.bits_); }
  DispatchKeySet operator&(DispatchKeySet o) const { return DispatchKeySet(bits_ & o.bits_); }
  DispatchKeySet operator-(DispatchKeySet o) const { return DispatchKeySet(bits_ & ~o.bits_); }
  void add(DispatchKey k) { bits_ |= 1u << static_cast<int>(k); }
  bool has(DispatchKey k) const { return (bits_ >> static_cast<int>(k)) & 1u; }
  bool empty() const { return bits_ == 0; }
  uint32_t bits() const { return bits_; }
  // Highest-priority key; CPU when empty (ops without tensor arguments).
  DispatchKey highest() const {
    return bits_ == 0 ? DispatchKey::CPU
                      : static_cast<DispatchKey>(31 - __builtin_clz(bits_));
  }

 private:
  uint32_t bits_ = 0;
};

// Thread-local keys added to (included) or removed from (excluded) every
// dispatch on this thread; a tracer includes Tracing while it captures.
struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};
LocalDispatchKeySet& ThreadLocalKeys();

class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKey k);
  ~IncludeDispatchKeyGuard();
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKey k);
  ~ExcludeDispatchKeyGuard();
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

}  // namespace at
}  // namespace nsim

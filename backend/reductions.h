#pragma once
// The arithmetic of each op of backend/reduction_ops.def, as a struct
// reduction::Name: the CPU reference folds with it (cpu/reduce_ops.cc) and
// the device takes its result over no elements from it
// (neuron/ops/reduction_ops.cc).
#include <cstdint>
#include <limits>

namespace nsim {
namespace at {
namespace reduction {

// The identities of max and min: -inf/+inf where the type has them.
template <class C>
C Lowest() {
  return std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
}
template <class C>
C Highest() {
  return std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max();
}

// Acc<C>: the accumulator for compute type C; Init, Combine (element x
// joins accumulator a) and Finish (n elements) as the table's columns.
#define NSIM_REDUCTION_OP(name, Name, form, overload, kind, acc, init, combine, finish, reduce) \
  struct Name {                                                                              \
    template <class C>                                                                       \
    using Acc = acc;                                                                         \
    template <class C>                                                                       \
    static Acc<C> Init() {                                                                   \
      return init;                                                                           \
    }                                                                                        \
    template <class C>                                                                       \
    static Acc<C> Combine(Acc<C> a, Acc<C> x) {                                              \
      return combine;                                                                        \
    }                                                                                        \
    template <class C>                                                                       \
    static Acc<C> Finish(Acc<C> a, [[maybe_unused]] int64_t n) {                             \
      return finish;                                                                         \
    }                                                                                        \
  };
#include "backend/reduction_ops.def"

}  // namespace reduction
}  // namespace at
}  // namespace nsim

#pragma once
// One HBM stack's bandwidth, shared by every DMA transfer piece that reads or
// writes it at the same time, from any core on the chip: a fluid
// processor-sharing model. A flow (one DMA engine moving one piece) is capped
// by its engine's bandwidth and by its core's share of the stack divided among
// that core's active flows; the stack's bandwidth is then divided max-min
// fairly among all flows. Rates are recomputed whenever a flow starts or ends.
//
// With one core on the stack this is exactly the former per-core model:
// rate = min(engine bandwidth, core share / active flows).
#include <vector>

#include <systemc>

#include "sim/base/time.h"

namespace nsim {

class HbmArbiter : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(HbmArbiter);
  explicit HbmArbiter(sc_core::sc_module_name name);

  // Bytes per ns: the whole stack, one core's share of it, one DMA engine.
  void Configure(double stack_bytes_per_ns, double core_share_bytes_per_ns, double engine_bytes_per_ns);
  // Blocks the calling thread until `bytes` have moved for `core`.
  void Transfer(int core, double bytes);
  // A copy's flow for `core` (a host copy into or out of its memory, one side
  // of a core-to-core copy): capped by `*cap` bytes per ns instead of one DMA
  // engine's bandwidth (read at every reschedule: the caller may change it
  // and call Recompute), and one more flow sharing the core's share of the
  // stack. Alone on the stack it ends after exactly round(bytes / cap) in ps,
  // as NanosToPicos rounds a formula's duration.
  void TransferCapped(int core, double bytes, const double* cap);
  // New rates after a cap changed.
  void Recompute();

 private:
  static constexpr int kMaxCores = 16;  // = SimHost::kMaxCores
  struct Flow {
    int core;
    double remaining;
    double rate;  // bytes per ns, until the next reschedule
    const double* cap;  // TransferCapped flows: their cap; nullptr for a DMA engine's piece
    sc_core::sc_event done;
  };
  void Advance();     // charges elapsed time to every flow at its current rate
  void Reschedule();  // new rates, next completion
  void ShareStack();  // max-min fair rates under the per-flow caps
  void OnTick();

  double stack_bw_ = 0, core_bw_ = 0, engine_bw_ = 0;  // bytes per ns
  Picos last_ = 0;
  std::vector<Flow*> flows_;
  sc_core::sc_event tick_;
};

}  // namespace nsim

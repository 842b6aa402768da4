#pragma once
// The core's share of HBM bandwidth, shared by every DMA transfer that reads
// or writes HBM at the same time: a fluid processor-sharing model. Each
// active flow moves at min(engine bandwidth, HBM bandwidth / active flows);
// rates are recomputed whenever a flow starts or finishes.
#include <vector>

#include <systemc>

#include "sim/base/time.h"

namespace nsim {

class HbmArbiter : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(HbmArbiter);
  explicit HbmArbiter(sc_core::sc_module_name name);

  void Configure(double hbm_bytes_per_ns, double engine_bytes_per_ns);
  // Blocks the calling thread until `bytes` have moved.
  void Transfer(double bytes);

 private:
  struct Flow {
    double remaining;
    sc_core::sc_event done;
  };
  void Advance();     // charges elapsed time to every flow at the current rate
  void Reschedule();  // new rate, next completion
  void OnTick();

  double hbm_bw_ = 0, engine_bw_ = 0, rate_ = 0;  // bytes per ns
  Picos last_ = 0;
  std::vector<Flow*> flows_;
  sc_core::sc_event tick_;
};

}  // namespace nsim

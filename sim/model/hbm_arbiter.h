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
#include <array>
#include <deque>
#include <vector>

#include <systemc>

#include "sim/base/time.h"
#include "sim/model/reuse_pool.h"

namespace nsim {

// Told by a direct call, from the arbiter's own process, that a flow started
// with HbmArbiter::StartFlow has moved its bytes (no SystemC event or thread
// switch per flow).
class FlowListener {
 public:
  virtual void FlowDone(int tag) = 0;

 protected:
  ~FlowListener() = default;
};

class HbmArbiter : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(HbmArbiter);
  explicit HbmArbiter(sc_core::sc_module_name name);

  // Bytes per ns: the whole stack, one core's share of it, one DMA engine.
  void Configure(double stack_bytes_per_ns, double core_share_bytes_per_ns, double engine_bytes_per_ns);
  // How a flow started by StartFlow joins the stack at its start:
  // kOnTick on the arbiter's own tick then (the flows starting together join
  // in the order asked), kAfterTick as a thread calling TransferCapped at its
  // start (after the flows the stack's tick at that time ends and starts).
  enum class Join { kOnTick, kAfterTick };
  // Starts a flow of `bytes` for `core` at absolute time `start` (>= now)
  // without blocking; `who->FlowDone(tag)` is called when it has moved its
  // bytes, after every flow ending then has ended and every flow starting
  // then on the tick has started (as a thread woken then would run).
  void StartFlow(int core, double bytes, Picos start, Join join, FlowListener* who, int tag);
  // Withdraws a StartFlow flow that has not started yet, as if it had never
  // been asked for (its listener is not told).
  void CancelFlow(FlowListener* who, int tag);
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
    double rate;  // bytes per ns, until the next reschedule (unless `rates_shared_`)
    const double* cap;  // TransferCapped flows: their cap; nullptr for a DMA engine's piece
    sc_core::sc_event* done;  // a blocked thread's; nullptr for StartFlow's
    FlowListener* listener;   // StartFlow's: told, with `tag`, when it ends
    int tag;
  };
  void Advance();     // charges elapsed time to every flow at its current rate
  void Reschedule();  // new rates, next completion
  void ShareStack();  // max-min fair rates under the per-flow caps
  bool ShareOneRate();  // ShareStack's common case; false if the caps do not all fit
  void WaterFill();     // the stack is oversubscribed: smallest caps first
  Picos NextEnd();      // ps from now to the first flow's end, -1 if none moves
  double Least();       // the least remaining bytes of any flow
  bool OneCoreUncapped() const { return capped_ == 0 && cores_ == 1; }
  void Add(Flow* f);
  void Remove(const Flow& f);
  void OnTick();
  void EndFinished();  // tells and removes the flows that have moved their bytes
  void StartDue();     // adds the delayed flows whose start has come
  void Delay(Flow* f, Picos start, Join join);  // joins `delayed_`, ticks at `start`
  void TellEnded();    // FlowDone for StartFlow's flows EndFinished removed
  void RetickWithoutCharge();  // the tick at the next end or delayed start, nothing else
  bool StartLone(Flow* f, Picos start);  // a flow alone on an idle stack: one tick, at its end
  void CatchUpLone();  // the lone flow's start, as its tick would have done it

  double stack_bw_ = 0, core_bw_ = 0, engine_bw_ = 0;  // bytes per ns
  Picos last_ = 0;
  std::vector<Flow*> flows_;  // in the order they started
  // StartFlow's kOnTick flows not started yet, by start, then in the order asked
  // (mostly asked in start order: inserted at or near the back).
  struct Delayed {
    Picos start;
    Join join;  // kOnTick flows first among those starting together
    Flow* flow;
  };
  std::deque<Delayed> delayed_;
  // When the next flow ends (-1: none moves). A tick for a delayed start
  // alone ends no flow: flows end only at the times Reschedule computed, as
  // when every flow started from its own thread.
  Picos end_at_ = -1;
  // What ShareStack needs of `flows_`, kept as flows start and end.
  std::array<int, kMaxCores> per_core_{};
  int cores_ = 0;    // cores with a flow
  int capped_ = 0;   // TransferCapped flows
  // One core's uncapped flows that fit the stack all move at one rate (the
  // common case): it is kept once instead of in every flow, and since every
  // flow then loses the same bytes at each Advance, the flow with the least
  // remaining stays the least, so the next end needs no pass over the flows.
  bool rates_shared_ = false;  // every flow moves at `shared_rate_` (Flow::rate unused)
  double shared_rate_ = 0;
  bool least_known_ = false;   // `least_` is the least remaining of `flows_`
  double least_ = 0;
  // Done events are reused: constructing and registering one per piece cost
  // more than the rest of the flow's bookkeeping.
  ReusePool<sc_core::sc_event> event_pool_;
  ReusePool<Flow> flow_pool_;  // StartFlow's flows (reused once told)
  std::vector<Flow*> ended_;  // StartFlow's flows EndFinished removed, not told yet
  sc_core::sc_event tick_;
  Picos tick_at_ = -1;  // when `tick_`'s pending notification fires (-1: none)
  bool lone_ = false;   // delayed_ holds one flow, with no tick at its start (StartLone)
  Picos lone_end_ = 0;  // when that flow ends if it stays alone
};

}  // namespace nsim

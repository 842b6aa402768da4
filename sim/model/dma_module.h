#pragma once
// The core's DMA engines (S1, S8): each has `queues_per_engine` FIFO queues
// per issuing engine (a NEFF's queues belong to the engine that triggers them,
// as the profiler's qSyncIO / qGpSimdIO / qActIO show), serves one transfer
// piece at a time, and picks among ready queue heads round-robin.
//
// A transfer's fixed costs are occupancy, not only latency (issue 9): its
// queue processes one descriptor ring at a time (`queue_setup` each, so a
// loop of tiny DMAs is throughput-bound), its pieces become ready
// `start_latency` after that, each costs `piece_setup` plus `descriptor` per
// descriptor plus its bytes at the engine bandwidth (shared with the other
// engines of the chip through the HBM stack it touches, see hbm_arbiter.h),
// and the queue completes its transfers in order, each paying
// `queue_completion` (completion semaphore writes) before its semaphores are
// signalled.
//
// One SystemC method serves all of the module's engines (issue 12): each
// engine is a small state machine (idle, moving a piece that does not touch
// HBM until a known time, or in a flow of its HBM stack, told when it ends by
// a direct call), and a calendar holds when each engine next acts, so the
// module is woken once per distinct time, with no thread switch per piece.
#include <deque>
#include <memory>
#include <vector>

#include <systemc>

#include "sim/model/dma_calendar.h"
#include "sim/model/hbm_arbiter.h"
#include "sim/model/interval_union.h"
#include "sim/model/reuse_pool.h"
#include "sim/model/round_robin_queues.h"
#include "sim/model/run_state.h"
#include "sim/model/semaphore_board.h"

namespace nsim {

class DmaModule : public sc_core::sc_module, private FlowListener {
 public:
  static constexpr int kMaxEngines = 32;
  static constexpr int kMaxQueues = 32;

  SC_HAS_PROCESS(DmaModule);
  explicit DmaModule(sc_core::sc_module_name name, SemaphoreBoard& sems);
  ~DmaModule() override;

  void Reset(RunState* run);
  // Called by the triggering engine at its trigger's completion time.
  void Submit(RunState& run, const LoadedInstruction& li, Picos trigger_end);

 private:
  // What one piece costs, worked out once per transfer (every piece of a
  // DmaPlan but the last is the same): the engine serves it without
  // recomputing its times.
  struct PieceCost {
    int64_t bytes = 0, descriptors = 0;
    double timed_bytes = 0;  // bytes / the plan's rate: what the engine and HBM take time for
    Picos setup = 0;   // piece_setup + descriptor x descriptors
    Picos setup_for = 0;  // how long a wait of `setup` lasts: ScPsValue(setup)
    Picos busy_for = 0;  // waits of `setup`, then of its bytes at the engine bandwidth: a piece off HBM
    Picos busy = -1;   // setup + its bytes at the engine bandwidth, rounded (TimeFits); -1: not representable
  };
  struct Transfer {
    const LoadedInstruction* li;
    const DmaPlan* plan;
    HbmArbiter* stack;  // the stack it moves its bytes through; nullptr if it touches no HBM
    int remaining;
    int queue;          // owner-engine-qualified queue (QueueKey)
    Picos finished = -1;  // when its last piece ended
    PieceCost cost[2];    // [0] every piece but the last, [1] the last
    Picos submitted = 0;  // its dma_copy completed (DmaRecord::submitted)
  };
  // The serial part of one queue: its descriptor-ring processing and its
  // in-order completions.
  struct QueueState {
    Picos setup_free = 0;
    Picos last_done = 0;
    std::deque<Transfer*> outstanding;  // in submission order
  };
  struct Piece {
    Transfer* transfer;
    Picos ready;
    bool last;  // the plan's last piece (Transfer::cost[1])
    const PieceCost& cost() const { return transfer->cost[last ? 1 : 0]; }
  };
  // What the summaries need of the pieces, accumulated as they end when the
  // execution keeps no per-piece records (ExecContext::record_dma_pieces).
  struct QueueTotals {
    bool used = false;
    int64_t bytes = 0;
    IntervalUnion busy;
    // The last interval added to `busy`: a piece inside it (the other pieces
    // of a transfer, served side by side) adds nothing to the union.
    Picos last_start = 0, last_end = 0;
  };
  // One DMA engine: its queues and the piece it serves.
  struct Engine {
    RoundRobinQueues<Piece, kMaxQueues * kNumEngines> queues;
    Piece current{};
    Picos serving_since = -1;  // when `current` began (-1: idle)
    // `current` was picked when it was queued, ahead of its start (ServeAhead):
    // the round-robin position before that pick, to undo it.
    bool ahead = false;
    int turn_before = 0;
  };
  void Wake();  // the module's process: acts for every engine due now
  void FlowDone(int engine) override;
  void ScheduleWake();
  // The engine is free at `now`: it serves the next ready piece, or waits
  // for the earliest one.
  void ServeNext(int engine, Picos now);
  bool Serve(int engine, const Piece& p, Picos start);  // false: dropped (the run failed)
  void Begin(int engine, const Piece& p, Picos start);  // the engine serves `p` from `start`
  bool ServeAhead(int engine, int queue);  // see Submit
  bool UndoneBy(const Engine& e, const Piece& p) const;  // the pick made ahead no longer holds
  void UndoAhead(int engine);
  void Finish(int engine, Picos end);  // its piece has ended
  static bool TimeFits(RunState& run, const Piece& p, const PieceCost& cost, Picos now);
  static bool Fits(const RunState& run, const PieceCost& cost, Picos now);  // TimeFits without the error
  static bool FailTimeFits(RunState& run, const Piece& p, const PieceCost& cost);
  void PieceDone(Transfer& t);
  void Complete(Transfer& t, Picos done);
  void NotePiece(int dma_engine, const Transfer& t, const PieceCost& p, Picos start, Picos end);
  static PieceCost CostOf(const DmaParams& d, const DmaPiece& p);
  void WriteTotals();
  Picos EarliestInService() const;
  static int QueueKey(const InstructionView& in, int64_t queues_per_engine);

  SemaphoreBoard& sems_;
  std::vector<std::unique_ptr<Engine>> engines_;
  DmaCalendar<kMaxEngines> calendar_;
  sc_core::sc_event wake_;
  Picos wake_at_ = -1;  // when `wake_`'s pending notification fires (-1: none)
  ReusePool<Transfer> transfer_pool_;  // completed ones are reused
  std::vector<QueueState> queue_state_;
  std::vector<DmaEngineSummary> engine_totals_;  // when pieces are not recorded
  std::vector<QueueTotals> queue_totals_;        // by QueueKey, likewise
  int64_t transfers_left_ = 0;                   // dma_copies of the run not yet complete
  RunState* run_ = nullptr;
};

}  // namespace nsim

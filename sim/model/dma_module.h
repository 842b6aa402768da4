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
#include <deque>
#include <memory>
#include <vector>

#include <systemc>

#include "sim/model/hbm_arbiter.h"
#include "sim/model/interval_union.h"
#include "sim/model/run_state.h"
#include "sim/model/semaphore_board.h"

namespace nsim {

class DmaModule : public sc_core::sc_module {
 public:
  static constexpr int kMaxEngines = 32;
  static constexpr int kMaxQueues = 32;

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
    Picos setup = 0;   // piece_setup + descriptor x descriptors
    sc_core::sc_time setup_wait;  // = setup (built once: an sc_time costs a library call)
    Picos moving = 0;  // its bytes at the engine bandwidth, rounded up (a piece that does not touch HBM)
    sc_core::sc_time busy_wait;  // setup_wait + moving: a piece that does not touch HBM
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
  class Engine;
  void PieceDone(Transfer& t);
  void Complete(Transfer& t, Picos done);
  void NotePiece(int dma_engine, const Transfer& t, const PieceCost& p, Picos start, Picos end);
  static PieceCost CostOf(const DmaParams& d, const DmaPiece& p);
  void WriteTotals();
  Picos EarliestInService() const;
  static int QueueKey(const Instruction& in, int64_t queues_per_engine);

  SemaphoreBoard& sems_;
  std::vector<std::unique_ptr<Engine>> engines_;
  std::deque<Transfer> transfers_;   // storage; completed ones are reused
  std::vector<Transfer*> free_transfers_;
  std::vector<QueueState> queue_state_;
  std::vector<DmaEngineSummary> engine_totals_;  // when pieces are not recorded
  std::vector<QueueTotals> queue_totals_;        // by QueueKey, likewise
  int64_t transfers_left_ = 0;                   // dma_copies of the run not yet complete
  RunState* run_ = nullptr;
};

}  // namespace nsim

#pragma once
// The core's DMA engines (S1, S8): each has `queues_per_engine` FIFO queues,
// serves one transfer piece at a time, and picks among ready queue heads
// round-robin. A piece becomes ready `start_latency` after its trigger, then
// costs `descriptor` per descriptor plus its bytes at the engine bandwidth
// (shared with the other engines of the chip through the HBM stack it
// touches, see hbm_arbiter.h). A dma_copy completes, moves its data and signals its semaphores when
// its last piece is done.
#include <deque>
#include <memory>
#include <vector>

#include <systemc>

#include "sim/model/hbm_arbiter.h"
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
  struct Transfer {
    const LoadedInstruction* li;
    int remaining;
  };
  struct Piece {
    Transfer* transfer;
    const DmaPiece* piece;
    Picos ready;
  };
  class Engine;
  void PieceDone(Transfer& t);

  SemaphoreBoard& sems_;
  std::vector<std::unique_ptr<Engine>> engines_;
  std::deque<Transfer> transfers_;
  RunState* run_ = nullptr;
};

}  // namespace nsim

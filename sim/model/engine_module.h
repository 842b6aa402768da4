#pragma once
// One instruction sequencer with its engine (TensorE, VectorE, ScalarE,
// GpSimd or Sync): runs its stream in order; an instruction issues once its
// semaphore waits hold, the previous instruction's initiation interval has
// passed and no in-flight instruction of this engine still writes what it
// reads (the RAW rule of S6); its outputs commit `latency` after issue.
//
// The engine is not a SystemC thread (issue 12): a method process starts it,
// it runs its stream until a semaphore wait does not hold, then returns; the
// semaphore board resumes it at the same stream position, by a direct call,
// when the semaphore reaches the value. A wait costs no thread context switch
// and no SystemC event.
#include <array>
#include <vector>

#include <systemc>

#include "sim/model/run_state.h"
#include "sim/model/semaphore_board.h"

namespace nsim {

class DmaModule;

class EngineModule : public sc_core::sc_module, private SemaphoreWaiter {
 public:
  SC_HAS_PROCESS(EngineModule);
  EngineModule(sc_core::sc_module_name name, EngineId id, SemaphoreBoard& sems, DmaModule& dma);

  void Start(RunState* run);
  // The run aborts: an engine stopped at a semaphore wait runs on (and ends)
  // in the next delta cycle (its waits are forgotten, SemaphoreBoard::ForgetWaiters).
  void Wake();
  // The pair peer reached the cross-core instruction this engine waits at
  // (core_link.h): it runs on at `at` (>= now).
  void WakeAt(Picos at);
  bool done() const { return done_; }
  int position() const { return position_; }  // instruction it is at (for deadlock reports)

 private:
  void Step();                 // the process: starts the stream, or ends it after an abort
  void Resume() override;      // the semaphore it waits on reached the value
  void Run();                  // runs the stream from where it stopped
  bool RunStream();  // true: stopped at a semaphore wait that does not hold yet
  enum class Waits { kHold, kBlocked, kAborted };
  Waits CheckSemaphores(const LoadedInstruction& li);
  Picos HazardFree(const LoadedInstruction& li) const;  // when its RAW producers have committed
  Picos TableLoad(const LoadedInstruction& li);
  InstructionRecord WhyItWaited(Picos released, Picos free, Picos start) const;
  void Issue(const LoadedInstruction& li, Picos start, InstructionRecord record);
  // A sendrecv or core_barrier (core_link.h): the time its pair meets, or -1
  // when the peer has not arrived (the engine stops; the link wakes it).
  Picos MeetPeer(const LoadedInstruction& li, Picos start);
  void IssueLinked(const LoadedInstruction& li, Picos start, Picos meet, InstructionRecord record);

  EngineId id_;
  SemaphoreBoard& sems_;
  DmaModule& dma_;
  RunState* run_ = nullptr;
  sc_core::sc_event start_event_;
  bool done_ = true;
  int position_ = 0;
  // The engine's own clock: when it finished issuing the instruction before
  // position_ (it runs ahead of SystemC time, see RunStream).
  Picos local_ = 0;
  // It stopped at position_'s semaphore wait; whoever runs it next (the
  // board's Resume, or Wake on an abort) finds it set.
  bool woken_ = false;
  int awaited_sem_ = 0;  // the semaphore it last stopped at (whose signaller released it)
  Picos next_issue_ = 0;
  int table_set_ = -1;
  // Commit time of the last issued instructions of this run, by index modulo
  // its size (RAW dependencies reach back at most 16 instructions).
  static constexpr int kCommitRing = 32;
  // HazardFree looks up to one RAW-mask width (LoadedInstruction::raw_deps)
  // back: the ring must hold that many commits and more.
  static_assert(kCommitRing > 8 * static_cast<int>(sizeof(LoadedInstruction::raw_deps)),
                "the commit ring must outlast the RAW dependency window");
  std::array<Picos, kCommitRing> commit_{};
  // Spec(op).execute by opcode, looked up on first use (Spec is a checked
  // registry lookup; this is the per-instruction path).
  using ExecuteFn = void (*)(ExecContext&, const InstructionView&);
  std::array<ExecuteFn, kNumOpcodes> execute_{};
  // Cross-core instructions this run has issued, [0] sendrecv, [1]
  // core_barrier: the ordinal that pairs the next one with the peer's.
  std::array<int, 2> linked_{};
  // When the cross-core instruction at position_ first tried to issue (-1:
  // none waits): a wake-up at the meeting time must not move its start.
  Picos link_start_ = -1;
};

}  // namespace nsim

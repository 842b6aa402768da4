#include "sim/model/engine_module.h"

#include <algorithm>

#include "sim/base/error.h"
#include "sim/isa/common.h"
#include "sim/model/core_link.h"
#include "sim/model/dma_module.h"

namespace nsim {
namespace {

[[noreturn]] void TimeOverflow(const LoadedKernel& k, const LoadedInstruction& li, Picos t, Picos d) {
  try {
    AddTime(t, d);
  } catch (const SimError& e) {
    isa::Fail(k.kernel(), k.instruction(li), e.what());
  }
  throw SimError("unreachable: AddTime did not overflow");
}

// t + d for a timestamp of `li`; past INT64_MAX ps is an error naming it.
// Inline: four of these per instruction.
inline Picos TimeAfter(const LoadedKernel& k, const LoadedInstruction& li, Picos t, Picos d) {
  Picos sum;
  if (__builtin_add_overflow(t, d, &sum)) TimeOverflow(k, li, t, d);
  return sum;
}

}  // namespace

EngineModule::EngineModule(sc_core::sc_module_name name, EngineId id, SemaphoreBoard& sems, DmaModule& dma)
    : sc_core::sc_module(name), id_(id), sems_(sems), dma_(dma) {
  SC_METHOD(Step);
  sensitive << start_event_;
  dont_initialize();
}

void EngineModule::Start(RunState* run) {
  run_ = run;
  done_ = run->kernel->stream(id_).empty();
  position_ = 0;
  woken_ = false;
  next_issue_ = run->t0 + run->result->launch;
  local_ = next_issue_;
  table_set_ = -1;  // every execution starts with no activation table loaded
  commit_.fill(0);
  linked_.fill(0);
  link_start_ = -1;
  if (!done_) {
    run->Busy();
    start_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

void EngineModule::Wake() {
  if (!done_) start_event_.notify(sc_core::SC_ZERO_TIME);
}

void EngineModule::WakeAt(Picos at) {
  if (!done_) start_event_.notify(Ps(at - Now()));
}

void EngineModule::Step() {
  if (!done_) Run();  // an engine that ended since it was woken has nothing to do
}

void EngineModule::Resume() { Run(); }

void EngineModule::Run() {
  try {
    if (RunStream()) {  // resumed when the semaphore it waits on reaches the value
      run_->records.Stopped(id_, local_ - run_->t0, Now() - run_->t0);
      return;
    }
  } catch (...) {
    run_->Fail(std::current_exception());
  }
  done_ = true;
  run_->records.Finished(id_, Now() - run_->t0);
  run_->Quiet();
}

// The engine keeps its own clock and runs ahead of SystemC time (temporal
// decoupling, as TLM's quantum keeper): it only synchronises before it must
// observe another engine, i.e. at a semaphore wait, where it returns until
// the semaphore changes. Everything else it does is ordered by absolute
// timestamps (semaphore signals, DMA ready times), so running ahead changes
// no result.
bool EngineModule::RunStream() {
  const auto& stream = run_->kernel->stream(id_);
  for (; position_ < static_cast<int>(stream.size()); ++position_) {
    const LoadedInstruction& li = stream[position_];
    // The engines take turns, a few instructions each: the hardware does not
    // see one sequential walk of a stream, so the next record is fetched now.
    if (position_ + 1 < static_cast<int>(stream.size())) __builtin_prefetch(&stream[position_ + 1]);
    Picos local = local_;
    if (li.num_waits > 0) {
      // Semaphores only grow (signal increments are >= 1, CheckKernel): a
      // wait that holds now holds at `local_` (>= now), and one that does not
      // holds from the signal that wakes the engine on. No need to reach
      // `local_` first: the instruction issues at the later of the two.
      const Waits waits = CheckSemaphores(li);
      if (waits != Waits::kHold) return waits == Waits::kBlocked;
      local = std::max(local, Now());
    }
    if (run_->aborted) return false;
    const Picos free = std::max(local, next_issue_);
    const Picos start = std::max(free, HazardFree(li));
    if (IsCoreLink(li.opcode)) {
      const Picos first = link_start_ >= 0 ? link_start_ : start;
      const Picos meet = MeetPeer(li, first);
      if (meet < 0) {
        link_start_ = first;
        return true;  // stopped until the peer arrives
      }
      link_start_ = -1;
      IssueLinked(li, first, meet, WhyItWaited(local, free, first));
      local_ = first;
      continue;
    }
    Issue(li, start, WhyItWaited(local, free, start));
    local_ = start;
  }
  return false;
}

// kBlocked: the first wait that does not hold is registered with the board,
// which resumes the engine when it holds (or Wake, when the run aborts: a
// resumed engine checks that first).
EngineModule::Waits EngineModule::CheckSemaphores(const LoadedInstruction& li) {
  if (woken_) {
    woken_ = false;
    if (run_->aborted) return Waits::kAborted;
  }
  const SemWait* w = sems_.FirstUnsatisfied(run_->kernel->waits(li), li.num_waits);
  if (w != nullptr) {
    sems_.Await(*w, this);
    awaited_sem_ = w->sem;
    woken_ = true;
    return Waits::kBlocked;
  }
  return run_->aborted ? Waits::kAborted : Waits::kHold;
}

// The record's waits (InstructionRecord): the semaphores held it until
// `released`, the engine until `free`, a producer's commit until `start`.
InstructionRecord EngineModule::WhyItWaited(Picos released, Picos free, Picos start) const {
  InstructionRecord r{id_, 0, 0, 0, released - local_};
  r.busy_wait = free - released;
  r.dependency_wait = start - free;
  if (r.wait > 0) {
    const Signaller s = sems_.last_signaller(awaited_sem_);
    r.signaller_engine = s.engine;
    r.signaller_index = s.index;
  }
  return r;
}

Picos EngineModule::HazardFree(const LoadedInstruction& li) const {
  // S6: a dependent instruction "cannot start data read until the previous
  // instruction has all of its output committed"; the commit reaches the
  // reader `raw_turnaround` later.
  Picos t = 0;
  for (unsigned deps = li.raw_deps; deps != 0; deps &= deps - 1) {
    const int dep = li.index - 1 - __builtin_ctz(deps);
    t = std::max(t, commit_[dep % kCommitRing] + run_->config->kernel.raw_turnaround_ps);
  }
  return t;
}

// S8/14.4: switching ScalarE to another activation-table set costs a load.
Picos EngineModule::TableLoad(const LoadedInstruction& li) {
  const int set = li.cost.table_set;
  if (set <= 0 || set == table_set_) return 0;
  table_set_ = set;
  return run_->config->scalar.table_load_ps;
}

Picos EngineModule::MeetPeer(const LoadedInstruction& li, Picos start) {
  const LoadedKernel& k = *run_->kernel;
  if (run_->link == nullptr) {
    isa::Fail(k.kernel(), k.instruction(li),
              "needs its pair peer: run the kernel as a grid of 2 programs (LNC=2, nsim run --grid 2, kernel[2])");
  }
  const int kind = li.opcode == Opcode::kSendRecv ? 0 : 1;
  return run_->link->Arrive(run_->program, li, linked_[kind], TimeAfter(k, li, start, li.cost.latency));
}

// The engine is held until the pair meets. A core_barrier ends there; a
// sendrecv then triggers its transfer, whose completion the link reports.
void EngineModule::IssueLinked(const LoadedInstruction& li, Picos start, Picos meet, InstructionRecord record) {
  const LoadedKernel& k = *run_->kernel;
  const Picos end = std::max(TimeAfter(k, li, start, li.cost.latency), meet);
  next_issue_ = std::max(TimeAfter(k, li, start, li.cost.ii), meet);
  ++linked_[li.opcode == Opcode::kSendRecv ? 0 : 1];
  if (li.opcode == Opcode::kSendRecv) {
    dma_.Submit(*run_, li, end);
  } else {
    if (li.num_signals > 0) {
      sems_.Signal(TimeAfter(k, li, end, run_->config->kernel.semaphore_latency_ps), k.signals(li), li.num_signals,
                   {id_, li.index});
    }
    commit_[li.index % kCommitRing] = end;
  }
  record.index = li.index;
  record.start = start - run_->t0;
  record.end = end - run_->t0;
  run_->records.Add(record);
  run_->NoteEnd(end);
}

void EngineModule::Issue(const LoadedInstruction& li, Picos start, InstructionRecord record) {
  const Picos extra = TableLoad(li);
  const LoadedKernel& k = *run_->kernel;
  const Picos begin = TimeAfter(k, li, start, extra);
  const Picos end = TimeAfter(k, li, begin, li.cost.latency);
  next_issue_ = TimeAfter(k, li, begin, li.cost.ii);
  const Picos signal_at = TimeAfter(k, li, end, run_->config->kernel.semaphore_latency_ps);
  if (IsDma(li.opcode)) {
    TimeAfter(k, li, end, run_->config->dma.start_latency_ps);  // when the transfer can start
    dma_.Submit(*run_, li, end);  // the transfer signals its semaphores when it completes
  } else {
    if (run_->ctx->compute_values) {
      const PreBound operands = run_->kernel->operands(li);
      run_->ctx->prebound = &operands;
      ExecuteFn& execute = execute_[static_cast<int>(li.opcode)];
      if (execute == nullptr) execute = Spec(li.opcode).execute;
      execute(*run_->ctx, k.instruction(li));
      run_->ctx->prebound = nullptr;
    }
    if (li.num_signals > 0) sems_.Signal(signal_at, run_->kernel->signals(li), li.num_signals, {id_, li.index});
    commit_[li.index % kCommitRing] = end;
  }
  record.index = li.index;
  record.start = start - run_->t0;
  record.end = end - run_->t0;
  record.table_load = extra;
  run_->records.Add(record);
  run_->NoteEnd(end);
}

}  // namespace nsim

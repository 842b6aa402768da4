#include "sim/model/dma_module.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "sim/base/error.h"
#include "sim/isa/common.h"
#include "sim/model/core_link.h"
#include "sim/model/dma_queue_name.h"
#include "sim/model/lazy_fifo.h"
#include "sim/model/sc_time_ps.h"

namespace nsim {

DmaModule::DmaModule(sc_core::sc_module_name name, SemaphoreBoard& sems)
    : sc_core::sc_module(name), sems_(sems) {
  for (int i = 0; i < kMaxEngines; ++i) engines_.push_back(std::make_unique<Engine>());
  SC_METHOD(Wake);
  sensitive << wake_;
  dont_initialize();
}

// Engines due at the same time act lowest first; what one does at a time
// never depends on another's (each serves only its own queues).
void DmaModule::Wake() {
  wake_at_ = -1;  // the pending notification has fired
  const Picos now = Now();
  for (int e; (e = calendar_.PopDue(now)) >= 0;) {
    if (engines_[e]->serving_since >= 0) Finish(e, now);  // a piece that does not touch HBM ended
    ServeNext(e, now);
  }
  ScheduleWake();
}

// The engine's HBM flow has moved its bytes (called from the stack's tick).
void DmaModule::FlowDone(int engine) {
  const Picos now = Now();
  Finish(engine, now);
  ServeNext(engine, now);
  ScheduleWake();
}

// One notification, for the earliest entry: a later pending one is replaced
// (SystemC keeps the earlier of two), an earlier or equal one kept.
void DmaModule::ScheduleWake() {
  const Picos next = calendar_.Next();
  if (next < 0 || (wake_at_ >= 0 && wake_at_ <= next)) return;
  wake_.notify(ScPs(next - Now()));
  wake_at_ = next;
}

// Round-robin among the queues whose head is ready (S8, v2/v3); with none
// ready the engine waits for the earliest head. A piece of a failed run is
// dropped and the next one taken at once.
void DmaModule::ServeNext(int engine, Picos now) {
  Engine& e = *engines_[engine];
  Piece p;
  Picos next;
  while (e.queues.PopReady(now, &p, &next)) {
    if (Serve(engine, p, now)) return;
  }
  if (next >= 0) calendar_.Set(engine, next);
}

// The piece's setup, then its bytes. Without HBM the two times add up (its
// end is known now). Through a stack, the flow starts after the setup: on
// the stack's tick when the transfer has other pieces that start together
// (one tick for all of them), else as a thread calling Transfer then would.
bool DmaModule::Serve(int engine, const Piece& p, Picos start) {
  RunState& run = *run_;
  if (run.aborted) return false;
  if (!TimeFits(run, p, p.cost(), start)) return false;
  Begin(engine, p, start);
  return true;
}

void DmaModule::Begin(int engine, const Piece& p, Picos start) {
  const RunState& run = *run_;
  const PieceCost& cost = p.cost();
  Engine& e = *engines_[engine];
  e.current = p;
  e.serving_since = start;
  const Transfer& t = *p.transfer;
  if (t.stack == nullptr) {
    calendar_.Set(engine, start + cost.busy_for);
  } else if (cost.setup > 0 && t.plan->count > 1) {
    t.stack->StartFlow(run.core, cost.timed_bytes, start + cost.setup, HbmArbiter::Join::kOnTick,
                       this, engine);
  } else {
    t.stack->StartFlow(run.core, cost.timed_bytes, start + cost.setup_for,
                       HbmArbiter::Join::kAfterTick, this, engine);
  }
}

// An idle engine given its only piece picks it now for its ready time: until
// then nothing but another queued piece can change that pick (the engine
// stays idle, its other queues are empty), so the module need not wake at
// the ready time. Pieces queued later that would be picked first, or tie,
// undo it (UndoneBy). False (nothing done) where the pick must wait: the
// run failed, or the piece's time would fail it (then it fails at its pick,
// as always).
bool DmaModule::ServeAhead(int engine, int queue) {
  Engine& e = *engines_[engine];
  const int turn = e.queues.turn();
  Piece p;
  e.queues.Take(queue, &p);  // its only piece: the pick at its ready time
  if (p.ready <= Now() || run_->aborted || !Fits(*run_, p.cost(), p.ready)) {
    e.queues.PutBack(p.transfer->queue, p, turn);
    return false;
  }
  e.ahead = true;
  e.turn_before = turn;
  Begin(engine, p, p.ready);
  return true;
}

// At its start the engine picks among the queue heads ready then: a piece
// ready earlier, or as early in another queue, may be picked instead of the
// one picked ahead (in the same queue it comes after it). Once the start has
// come the pick stands (a piece queued then cannot be ready earlier).
bool DmaModule::UndoneBy(const Engine& e, const Piece& p) const {
  const Picos start = e.serving_since;
  return e.ahead && Now() < start &&
         (p.ready < start || (p.ready == start && p.transfer->queue != e.current.transfer->queue));
}

// The pick made ahead is taken back before its start: the piece returns to
// the front of its queue, the engine is idle and waits for its earliest head.
void DmaModule::UndoAhead(int engine) {
  Engine& e = *engines_[engine];
  const Piece p = e.current;
  if (p.transfer->stack != nullptr) p.transfer->stack->CancelFlow(this, engine);
  e.queues.PutBack(p.transfer->queue, p, e.turn_before);
  e.ahead = false;
  e.serving_since = -1;
  calendar_.Set(engine, p.ready);
}

void DmaModule::Finish(int engine, Picos end) {
  Engine& e = *engines_[engine];
  const Piece p = e.current;
  const Picos start = e.serving_since;
  e.serving_since = -1;
  e.ahead = false;
  RunState& run = *run_;
  const Transfer& t = *p.transfer;
  const PieceCost& cost = p.cost();
  if (run.ctx->record_dma_pieces) {
    // t.queue is QueueKey's: the issuing engine's queues, then the queue.
    const int queue = t.queue - static_cast<int>(static_cast<int64_t>(t.li->engine) * run.config->dma.queues_per_engine);
    run.result->dma.push_back({engine, queue, t.li->engine, t.li->index, cost.bytes, cost.descriptors,
                               start - run.t0, end - run.t0, t.stack != nullptr, t.submitted - run.t0,
                               p.ready - run.t0});
  } else {
    NotePiece(engine, t, cost, start - run.t0, end - run.t0);
  }
  run.NoteEnd(end);
  PieceDone(*p.transfer);
}

// Whether the piece, at full engine bandwidth and with 2x headroom for HBM
// sharing, ends before INT64_MAX ps. Fails the run, naming the dma_copy, otherwise.
bool DmaModule::TimeFits(RunState& run, const Piece& p, const PieceCost& cost, Picos now) {
  return Fits(run, cost, now) || FailTimeFits(run, p, cost);
}

bool DmaModule::Fits(const RunState& run, const PieceCost& cost, Picos now) {
  Picos end, margin, sum;
  return cost.busy >= 0 && !__builtin_add_overflow(now, cost.busy, &end) &&
         !__builtin_add_overflow(cost.busy, run.config->kernel.semaphore_latency_ps, &margin) &&
         !__builtin_add_overflow(end, margin, &sum);
}

// TimeFits's error, worded and raised as it always was.
bool DmaModule::FailTimeFits(RunState& run, const Piece& p, const PieceCost& cost) {
  const DmaParams& d = run.config->dma;
  try {
    const Picos busy = d.piece_setup_ps + d.descriptor_ps * cost.descriptors +  // checked at load
                       CheckedRound(cost.timed_bytes / d.bytes_per_ns * 1000.0, "");
    AddTime(AddTime(Now(), busy), AddTime(busy, run.config->kernel.semaphore_latency_ps));
    return true;
  } catch (const SimError& e) {
    try {
      isa::Fail(run.kernel->kernel(), run.kernel->instruction(*p.transfer->li), std::string("its DMA transfer: ") + e.what());
    } catch (...) {
      run.Fail(std::current_exception());
    }
    return false;
  }
}

DmaModule::~DmaModule() = default;

void DmaModule::Reset(RunState* run) {
  run_ = run;
  transfer_pool_.Clear();
  const int64_t queues = run->config->dma.queues_per_engine;
  queue_state_.assign(static_cast<size_t>(queues * kNumEngines), QueueState{});
  for (auto& e : engines_) {
    e->queues.Reset(static_cast<int>(queues * kNumEngines));
    e->serving_since = -1;
    e->ahead = false;
  }
  calendar_.Reset(static_cast<int>(run->config->dma.engines));
  wake_.cancel();
  wake_at_ = -1;
  const LoadedKernel& k = *run->kernel;
  transfers_left_ = k.dma_count();
  ExecutionResult& r = *run->result;
  r.dma_pieces_recorded = run->ctx->record_dma_pieces;
  r.dma_copy_ends.reserve(static_cast<size_t>(k.dma_count()));
  if (r.dma_pieces_recorded) {
    r.dma.reserve(static_cast<size_t>(k.dma_piece_count()));
  } else {
    engine_totals_.assign(static_cast<size_t>(run->config->dma.engines), DmaEngineSummary{});
    queue_totals_.assign(static_cast<size_t>(queues * kNumEngines), QueueTotals{});
  }
}

int DmaModule::QueueKey(const InstructionView& in, int64_t queues_per_engine) {
  return static_cast<int>(static_cast<int64_t>(in.engine) * queues_per_engine + in.queue);
}

void DmaModule::Submit(RunState& run, const LoadedInstruction& li, Picos trigger_end) {
  const DmaParams& d = run.config->dma;
  const InstructionView in = run.kernel->instruction(li);
  const int key = QueueKey(in, d.queues_per_engine);
  QueueState& q = queue_state_[key];
  const Picos setup_start = std::max(trigger_end, q.setup_free);
  q.setup_free = AddTime(setup_start, d.queue_setup_ps);
  run.Busy();  // until Complete
  Transfer* t = transfer_pool_.Acquire();
  const DmaPlan& plan = run.kernel->dma_plan(li);
  HbmArbiter* stack = plan.touches_hbm ? &run.StackOf(in) : nullptr;
  const PieceCost first = CostOf(d, plan.piece(0));
  *t = {&li, &plan, stack, plan.count, key, -1, {first, plan.count == 1 ? first : CostOf(d, plan.piece(plan.count - 1))},
        trigger_end};
  q.outstanding.push_back(t);
  const Picos ready = AddTime(setup_start, d.start_latency_ps);  // the engine names the instruction
  for (int i = 0; i < plan.count; ++i) {
    const int engine = (plan.first_engine + i) % plan.engines;  // = plan.piece(i).dma_engine
    Engine& e = *engines_[engine];
    const Piece p{t, ready, i + 1 == plan.count};
    e.queues.Push(key, p);
    if (e.serving_since >= 0) {  // a busy one looks when it is free, unless its pick was made ahead
      if (!UndoneBy(e, p)) continue;
      UndoAhead(engine);
    } else if (calendar_.due(engine) < 0 && ServeAhead(engine, key)) {  // idle with no other piece queued
      continue;
    }
    calendar_.Lower(engine, ready);
  }
  ScheduleWake();
}

// The times the engine charges a piece (see Engine::Serve and TimeFits),
// with the same arithmetic; `busy` is -1 when it is not representable, which
// TimeFits then reports.
DmaModule::PieceCost DmaModule::CostOf(const DmaParams& d, const DmaPiece& p) {
  PieceCost c;
  c.bytes = p.bytes;
  c.timed_bytes = static_cast<double>(p.bytes) / p.rate;
  c.descriptors = p.descriptors;
  c.setup = d.piece_setup_ps + d.descriptor_ps * p.descriptors;  // checked at load
  c.setup_for = static_cast<Picos>(ScPsValue(c.setup));
  const double ps = c.timed_bytes / d.bytes_per_ns * 1000.0;
  if (!(std::fabs(ps) < 9223372036854775808.0) || __builtin_add_overflow(c.setup, std::llround(ps), &c.busy)) {
    c.busy = -1;
    return c;
  }
  // Its bytes at the engine bandwidth, rounded up: the wait after the setup
  // of a piece that does not touch HBM.
  const Picos moving = static_cast<Picos>(std::ceil(ps));
  c.busy_for = c.setup_for + static_cast<Picos>(ScPsValue(moving));
  return c;
}

// Pieces may end out of order across engines; the queue completes its
// transfers in submission order, one completion write after another.
void DmaModule::PieceDone(Transfer& t) {
  if (--t.remaining > 0) return;
  t.finished = Now();
  run_->result->dma_copy_ends.push_back({t.li->engine, t.li->index, t.finished - run_->t0});
  QueueState& q = queue_state_[t.queue];
  while (!q.outstanding.empty() && q.outstanding.front()->finished >= 0) {
    Transfer& head = *q.outstanding.front();
    q.outstanding.pop_front();
    q.last_done = std::max(head.finished, q.last_done) + run_->config->dma.queue_completion_ps;
    Complete(head, q.last_done);
    transfer_pool_.Release(&head);  // nothing refers to it any more
    if (run_->aborted) return;
  }
}

void DmaModule::Complete(Transfer& t, Picos done) {
  RunState& run = *run_;
  if (t.li->opcode == Opcode::kSendRecv) {  // the pair completes together (core_link.h)
    run.NoteEnd(done);
    if (--transfers_left_ == 0 && !run.ctx->record_dma_pieces) WriteTotals();
    try {
      run.link->SendDone(run.program, *t.li, done);  // quiets this run once the peer's transfer is done too
    } catch (...) {
      run.Fail(std::current_exception());
      run.Quiet();
    }
    return;
  }
  if (run.ctx->compute_values) {
    try {
      const PreBound operands = run.kernel->operands(*t.li);
      run.ctx->prebound = &operands;
      Spec(t.li->opcode).execute(*run.ctx, run.kernel->instruction(*t.li));
      run.ctx->prebound = nullptr;
    } catch (...) {
      run.Fail(std::current_exception());
      run.Quiet();
      return;
    }
  }
  run.NoteEnd(done);
  sems_.Signal(done + run.config->kernel.semaphore_latency_ps, run.kernel->signals(*t.li), t.li->num_signals,
               {t.li->engine, t.li->index});
  if (--transfers_left_ == 0 && !run.ctx->record_dma_pieces) WriteTotals();
  run.Quiet();
}

// Pieces on one DMA engine never overlap (it serves one at a time), so its
// busy time is their sum; a queue's pieces overlap across engines, so its
// busy time is the union (folded as it goes to keep memory bounded).
void DmaModule::NotePiece(int dma_engine, const Transfer& t, const PieceCost& p, Picos start, Picos end) {
  DmaEngineSummary& e = engine_totals_[dma_engine];
  e.bytes += p.bytes;
  e.transfers++;
  e.descriptors += p.descriptors;
  e.busy += end - start;
  QueueTotals& q = queue_totals_[t.queue];
  q.used = true;
  q.bytes += p.bytes;
  // Inside the queue's last interval (another piece of its transfer): already
  // in both unions.
  if (start >= q.last_start && end <= q.last_end) return;
  run_->result->dma_activity.Add(start, end);
  q.busy.Add(start, end);
  q.last_start = start;
  q.last_end = end;
  constexpr size_t kFoldEvery = 256;
  if (q.busy.pending() >= kFoldEvery) q.busy.Fold(EarliestInService() - run_->t0);
}

// No piece that has not ended yet started before this: pieces in service
// started at their engine's `serving_since`, the others start now or later.
Picos DmaModule::EarliestInService() const {
  Picos t = Now();
  for (const auto& e : engines_) {
    if (e->serving_since >= 0) t = std::min(t, e->serving_since);
  }
  return t;
}

// The last transfer of the run completed: hand the summaries to the result
// (Summarize derives them from the piece records when those are kept).
void DmaModule::WriteTotals() {
  ExecutionResult& r = *run_->result;
  r.dma_engines = engine_totals_;
  const int64_t per_engine = run_->config->dma.queues_per_engine;
  for (size_t key = 0; key < queue_totals_.size(); ++key) {
    QueueTotals& q = queue_totals_[key];
    if (!q.used) continue;
    const std::string name =
        DmaQueueName(static_cast<EngineId>(static_cast<int64_t>(key) / per_engine), static_cast<int>(key % per_engine));
    DmaQueueSummary& s = r.dma_queues[name];
    s.bytes += q.bytes;
    s.busy = q.busy.Total();
  }
}

}  // namespace nsim

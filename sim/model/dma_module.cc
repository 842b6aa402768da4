#include "sim/model/dma_module.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "sim/base/error.h"
#include "sim/isa/common.h"
#include "sim/model/dma_queue_name.h"
#include "sim/model/lazy_fifo.h"
#include "sim/model/sc_time_ps.h"

namespace nsim {

class DmaModule::Engine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Engine);
  Engine(sc_core::sc_module_name name, int index, DmaModule& owner)
      : sc_core::sc_module(name), index_(index), owner_(owner) {
    SC_THREAD(Main);
  }
  // When the piece it serves began (-1: idle).
  Picos serving_since() const { return serving_since_; }
  void Reset(int queues) {
    for (auto& q : queues_) q.clear();
    serving_since_ = -1;
    nonempty_.fill(0);
    round_robin_ = 0;
    queues_in_use_ = queues * kNumEngines;
  }
  // Wakes the engine when the piece becomes ready rather than now: an idle
  // engine then switches in once per piece. notify keeps the earliest
  // pending time, so a call that would not change it is skipped (SystemC
  // would return at once: the same events either way). That needs the
  // event's state followed exactly: it is while every notification is timed.
  void Push(int queue, const Piece& p, Picos now) {  // queue: QueueKey
    queues_[queue].push_back(p);
    nonempty_[queue / 64] |= uint64_t{1} << (queue % 64);
    if (arrival_followed_ && arrival_at_ > now && arrival_at_ <= p.ready) return;
    arrival_.notify(ScPs(std::max<Picos>(0, p.ready - now)));
    if (p.ready > now) arrival_at_ = p.ready;  // none was pending, or a later one was moved here
    else arrival_followed_ = false;            // a delta notification (dma.start_latency 0)
  }

 private:
  void Main() {
    while (true) {
      const Picos now = Now();
      int q = PickReady(now);
      if (q < 0) {
        const Picos next = EarliestReady();
        if (next < 0 || (arrival_followed_ && arrival_at_ == next)) sc_core::wait(arrival_);
        else sc_core::wait(ScPs(next - now), arrival_);  // no arrival notification pending for it
        continue;
      }
      const Piece p = queues_[q].front();
      queues_[q].pop_front();
      if (queues_[q].empty()) nonempty_[q / 64] &= ~(uint64_t{1} << (q % 64));
      Serve(p, now);
    }
  }
  // Round-robin among the queues whose head is ready (S8, v2/v3): the first
  // non-empty queue at or after `round_robin_` (wrapping) whose head is
  // ready. Only non-empty queues are visited (a bit each in `nonempty_`).
  int PickReady(Picos now) {
    const int n = queues_in_use_;
    int found = NextNonEmpty(round_robin_, n, now);
    if (found < 0 && round_robin_ > 0) found = NextNonEmpty(0, round_robin_, now);
    if (found >= 0) round_robin_ = (found + 1) % n;
    return found;
  }
  // The first queue in [from, to) that is non-empty with a head ready by `now`, or -1.
  int NextNonEmpty(int from, int to, Picos now) const {
    for (int w = from / 64; w * 64 < to; ++w) {
      uint64_t bits = nonempty_[w];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      while (bits != 0) {
        const int q = w * 64 + __builtin_ctzll(bits);
        if (q >= to) return -1;
        if (queues_[q].front().ready <= now) return q;
        bits &= bits - 1;
      }
    }
    return -1;
  }
  Picos EarliestReady() const {
    Picos t = -1;
    for (int w = 0; w < kWords; ++w) {
      for (uint64_t bits = nonempty_[w]; bits != 0; bits &= bits - 1) {
        const Picos ready = queues_[w * 64 + __builtin_ctzll(bits)].front().ready;
        if (t < 0 || ready < t) t = ready;
      }
    }
    return t;
  }
  void Serve(const Piece& p, Picos start) {  // start: now
    RunState& run = *owner_.run_;
    if (run.aborted) return;
    const PieceCost& cost = p.cost();
    if (!TimeFits(run, p, cost, start)) return;
    serving_since_ = start;
    const Transfer& t = *p.transfer;
    Move(run, t, cost);
    serving_since_ = -1;
    const Picos end = Now();
    const Instruction& in = *t.li->in;
    if (run.ctx->record_dma_pieces) {
      run.result->dma.push_back({index_, in.queue, in.engine, t.li->index, cost.bytes, cost.descriptors,
                                 start - run.t0, end - run.t0, t.stack != nullptr});
    } else {
      owner_.NotePiece(index_, t, cost, start - run.t0, end - run.t0);
    }
    run.NoteEnd(end);
    owner_.PieceDone(*p.transfer);
  }

  // The piece's setup, then its bytes: in one wait where the engine can
  // (without HBM the two times add up; through a stack, the flow starts on
  // the stack's tick after the setup, which costs a tick at the start: it
  // pays when the other pieces of the transfer start on the same tick, not
  // for a lone piece). A zero time keeps its delta cycle, as the plain two
  // waits.
  static void Move(const RunState& run, const Transfer& t, const PieceCost& cost) {
    if (t.stack == nullptr && cost.setup > 0 && cost.moving > 0) {
      sc_core::wait(cost.busy_wait);
    } else if (t.stack == nullptr) {
      sc_core::wait(cost.setup_wait);
      sc_core::wait(ScPs(cost.moving));
    } else if (cost.setup > 0 && t.plan->count > 1) {
      t.stack->TransferAfter(run.core, static_cast<double>(cost.bytes), cost.setup);
    } else {
      sc_core::wait(cost.setup_wait);
      t.stack->Transfer(run.core, static_cast<double>(cost.bytes));
    }
  }

  // Whether the piece, at full engine bandwidth and with 2x headroom for HBM
  // sharing, ends before INT64_MAX ps. Fails the run, naming the dma_copy, otherwise.
  static bool TimeFits(RunState& run, const Piece& p, const PieceCost& cost, Picos now) {
    Picos end, margin, sum;
    const bool fits = cost.busy >= 0 && !__builtin_add_overflow(now, cost.busy, &end) &&
                      !__builtin_add_overflow(cost.busy, run.config->kernel.semaphore_latency_ps, &margin) &&
                      !__builtin_add_overflow(end, margin, &sum);
    return fits || FailTimeFits(run, p, cost);
  }
  // TimeFits's error, worded and raised as it always was.
  static bool FailTimeFits(RunState& run, const Piece& p, const PieceCost& cost) {
    const DmaParams& d = run.config->dma;
    try {
      const Picos busy = d.piece_setup_ps + d.descriptor_ps * cost.descriptors +  // checked at load
                         CheckedRound(static_cast<double>(cost.bytes) / d.bytes_per_ns * 1000.0, "");
      AddTime(AddTime(Now(), busy), AddTime(busy, run.config->kernel.semaphore_latency_ps));
      return true;
    } catch (const SimError& e) {
      try {
        isa::Fail(run.kernel->kernel(), *p.transfer->li->in, std::string("its DMA transfer: ") + e.what());
      } catch (...) {
        run.Fail(std::current_exception());
      }
      return false;
    }
  }

  int index_;
  DmaModule& owner_;
  static constexpr int kWords = (kMaxQueues * kNumEngines + 63) / 64;
  LazyFifo<Piece> queues_[kMaxQueues * kNumEngines];  // no allocation until used
  std::array<uint64_t, kWords> nonempty_{};  // bit q: queues_[q] is not empty
  int round_robin_ = 0;
  int queues_in_use_ = 0;
  Picos serving_since_ = -1;
  sc_core::sc_event arrival_;
  // When `arrival_`'s pending notification fires (none pending once past).
  Picos arrival_at_ = -1;
  bool arrival_followed_ = true;
};

DmaModule::DmaModule(sc_core::sc_module_name name, SemaphoreBoard& sems)
    : sc_core::sc_module(name), sems_(sems) {
  for (int i = 0; i < kMaxEngines; ++i) {
    engines_.push_back(std::make_unique<Engine>(("engine" + std::to_string(i)).c_str(), i, *this));
  }
}

DmaModule::~DmaModule() = default;

void DmaModule::Reset(RunState* run) {
  run_ = run;
  transfers_.clear();
  free_transfers_.clear();
  const int64_t queues = run->config->dma.queues_per_engine;
  queue_state_.assign(static_cast<size_t>(queues * kNumEngines), QueueState{});
  for (auto& e : engines_) e->Reset(static_cast<int>(queues));
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

int DmaModule::QueueKey(const Instruction& in, int64_t queues_per_engine) {
  return static_cast<int>(static_cast<int64_t>(in.engine) * queues_per_engine + in.queue);
}

void DmaModule::Submit(RunState& run, const LoadedInstruction& li, Picos trigger_end) {
  const DmaParams& d = run.config->dma;
  const int key = QueueKey(*li.in, d.queues_per_engine);
  QueueState& q = queue_state_[key];
  const Picos setup_start = std::max(trigger_end, q.setup_free);
  q.setup_free = AddTime(setup_start, d.queue_setup_ps);
  run.Busy();  // until Complete
  Transfer* t;
  if (free_transfers_.empty()) {
    t = &transfers_.emplace_back();
  } else {
    t = free_transfers_.back();
    free_transfers_.pop_back();
  }
  const DmaPlan& plan = run.kernel->dma_plan(li);
  HbmArbiter* stack = plan.touches_hbm ? &run.StackOf(*li.in) : nullptr;
  *t = {&li, &plan, stack, plan.count, key, -1, {CostOf(d, plan.piece(0)), CostOf(d, plan.piece(plan.count - 1))}};
  q.outstanding.push_back(t);
  const Picos ready = AddTime(setup_start, d.start_latency_ps);  // the engine names the instruction
  const Picos now = Now();
  for (int i = 0; i < plan.count; ++i) {
    const int engine = (plan.first_engine + i) % plan.engines;  // = plan.piece(i).dma_engine
    engines_[engine]->Push(key, {t, ready, i + 1 == plan.count}, now);
  }
}

// The times the engine charges a piece (see Engine::Serve and TimeFits),
// with the same arithmetic; `busy` is -1 when it is not representable, which
// TimeFits then reports.
DmaModule::PieceCost DmaModule::CostOf(const DmaParams& d, const DmaPiece& p) {
  PieceCost c;
  c.bytes = p.bytes;
  c.descriptors = p.descriptors;
  c.setup = d.piece_setup_ps + d.descriptor_ps * p.descriptors;  // checked at load
  c.setup_wait = ScPs(c.setup);
  const double ps = static_cast<double>(p.bytes) / d.bytes_per_ns * 1000.0;
  if (!(std::fabs(ps) < 9223372036854775808.0) || __builtin_add_overflow(c.setup, std::llround(ps), &c.busy)) {
    c.busy = -1;
    return c;
  }
  c.moving = static_cast<Picos>(std::ceil(ps));
  c.busy_wait = c.setup_wait + ScPs(c.moving);
  return c;
}

// Pieces may end out of order across engines; the queue completes its
// transfers in submission order, one completion write after another.
void DmaModule::PieceDone(Transfer& t) {
  if (--t.remaining > 0) return;
  t.finished = Now();
  run_->result->dma_copy_ends.push_back({t.li->in->engine, t.li->index, t.finished - run_->t0});
  QueueState& q = queue_state_[t.queue];
  while (!q.outstanding.empty() && q.outstanding.front()->finished >= 0) {
    Transfer& head = *q.outstanding.front();
    q.outstanding.pop_front();
    q.last_done = std::max(head.finished, q.last_done) + run_->config->dma.queue_completion_ps;
    Complete(head, q.last_done);
    free_transfers_.push_back(&head);  // nothing refers to it any more
    if (run_->aborted) return;
  }
}

void DmaModule::Complete(Transfer& t, Picos done) {
  RunState& run = *run_;
  if (run.ctx->compute_values) {
    try {
      const PreBound operands = run.kernel->operands(*t.li);
      run.ctx->prebound = &operands;
      Spec(Opcode::kDmaCopy).execute(*run.ctx, *t.li->in);
      run.ctx->prebound = nullptr;
    } catch (...) {
      run.Fail(std::current_exception());
      run.Quiet();
      return;
    }
  }
  run.NoteEnd(done);
  sems_.Signal(done + run.config->kernel.semaphore_latency_ps, run.kernel->signals(*t.li), t.li->num_signals);
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
  run_->result->dma_activity.Add(start, end);
  QueueTotals& q = queue_totals_[t.queue];
  q.used = true;
  q.bytes += p.bytes;
  if (start >= q.last_start && end <= q.last_end) return;
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
    if (e->serving_since() >= 0) t = std::min(t, e->serving_since());
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

#include "sim/model/dma_module.h"

#include <algorithm>
#include <string>

#include "sim/base/error.h"
#include "sim/isa/common.h"
#include "sim/model/lazy_fifo.h"

namespace nsim {

class DmaModule::Engine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Engine);
  Engine(sc_core::sc_module_name name, int index, DmaModule& owner)
      : sc_core::sc_module(name), index_(index), owner_(owner) {
    SC_THREAD(Main);
  }
  void Reset(int queues) {
    for (auto& q : queues_) q.clear();
    round_robin_ = 0;
    queues_in_use_ = queues * kNumEngines;
  }
  // Wakes the engine when the piece becomes ready rather than now: an idle
  // engine then switches in once per piece (notify keeps the earliest time).
  void Push(int queue, const Piece& p) {  // queue: QueueKey
    queues_[queue].push_back(p);
    arrival_.notify(Ps(std::max<Picos>(0, p.ready - Now())));
  }

 private:
  void Main() {
    while (true) {
      int q = PickReady();
      if (q < 0) {
        const Picos next = EarliestReady();
        if (next < 0) sc_core::wait(arrival_);
        else sc_core::wait(Ps(next - Now()), arrival_);
        continue;
      }
      const Piece p = queues_[q].front();
      queues_[q].pop_front();
      Serve(p, q);
    }
  }
  // Round-robin among the queues whose head is ready (S8, v2/v3).
  int PickReady() {
    const int n = queues_in_use_;
    for (int i = 0; i < n; ++i) {
      const int q = (round_robin_ + i) % n;
      if (!queues_[q].empty() && queues_[q].front().ready <= Now()) {
        round_robin_ = (q + 1) % n;
        return q;
      }
    }
    return -1;
  }
  Picos EarliestReady() const {
    Picos t = -1;
    for (const auto& q : queues_) {
      if (!q.empty() && (t < 0 || q.front().ready < t)) t = q.front().ready;
    }
    return t;
  }
  void Serve(const Piece& p, int queue) {
    RunState& run = *owner_.run_;
    if (run.aborted) return;
    const DmaParams& d = run.config->dma;
    const Picos start = Now();
    if (!TimeFits(run, p)) return;
    sc_core::wait(Ps(d.piece_setup_ps + d.descriptor_ps * p.piece->descriptors));
    const double bytes = static_cast<double>(p.piece->bytes);
    if (p.transfer->li->dma_touches_hbm) {
      run.StackOf(*p.transfer->li->in).Transfer(run.core, bytes);
    } else {
      sc_core::wait(Ps(static_cast<Picos>(std::ceil(bytes / d.bytes_per_ns * 1000.0))));
    }
    const Instruction& in = *p.transfer->li->in;
    run.result->dma.push_back({index_, in.queue, in.engine, p.transfer->li->index, p.piece->bytes,
                               p.piece->descriptors, start - run.t0, Now() - run.t0,
                               p.transfer->li->dma_touches_hbm});
    run.NoteEnd(Now());
    owner_.PieceDone(*p.transfer);
  }

  // Whether the piece, at full engine bandwidth and with 2x headroom for HBM
  // sharing, ends before INT64_MAX ps. Fails the run, naming the dma_copy, otherwise.
  static bool TimeFits(RunState& run, const Piece& p) {
    const DmaParams& d = run.config->dma;
    try {
      const Picos busy = d.piece_setup_ps + d.descriptor_ps * p.piece->descriptors +  // checked at load
                         CheckedRound(static_cast<double>(p.piece->bytes) / d.bytes_per_ns * 1000.0, "");
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
  LazyFifo<Piece> queues_[kMaxQueues * kNumEngines];  // no allocation until used
  int round_robin_ = 0;
  int queues_in_use_ = 0;
  sc_core::sc_event arrival_;
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
  const int64_t queues = run->config->dma.queues_per_engine;
  queue_state_.assign(static_cast<size_t>(queues * kNumEngines), QueueState{});
  for (auto& e : engines_) e->Reset(static_cast<int>(queues));
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
  transfers_.push_back({&li, static_cast<int>(li.dma.size()), key});
  Transfer& t = transfers_.back();
  q.outstanding.push_back(&t);
  const Picos ready = AddTime(setup_start, d.start_latency_ps);  // the engine names the instruction
  for (const DmaPiece& p : li.dma) engines_[p.dma_engine]->Push(key, {&t, &p, ready});
}

// Pieces may end out of order across engines; the queue completes its
// transfers in submission order, one completion write after another.
void DmaModule::PieceDone(Transfer& t) {
  if (--t.remaining > 0) return;
  t.finished = Now();
  QueueState& q = queue_state_[t.queue];
  while (!q.outstanding.empty() && q.outstanding.front()->finished >= 0) {
    Transfer& head = *q.outstanding.front();
    q.outstanding.pop_front();
    q.last_done = std::max(head.finished, q.last_done) + run_->config->dma.queue_completion_ps;
    Complete(head, q.last_done);
    if (run_->aborted) return;
  }
}

void DmaModule::Complete(Transfer& t, Picos done) {
  RunState& run = *run_;
  if (run.ctx->compute_values) {
    try {
      run.ctx->prebound = &t.li->operands;
      Spec(Opcode::kDmaCopy).execute(*run.ctx, *t.li->in);
      run.ctx->prebound = nullptr;
    } catch (...) {
      run.Fail(std::current_exception());
      run.Quiet();
      return;
    }
  }
  run.NoteEnd(done);
  sems_.Signal(done + run.config->kernel.semaphore_latency_ps, t.li->in->signals);
  run.Quiet();
}

}  // namespace nsim

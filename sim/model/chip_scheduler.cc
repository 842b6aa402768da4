#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "sim/model/chip_scheduler.h"

#include <algorithm>
#include <cstring>

#include <systemc>

#include "sim/base/error.h"
#include "sim/base/sim_clock.h"
#include "sim/model/chip.h"
#include "sim/model/core_link.h"
#include "sim/model/core_modules.h"
#include "sim/model/hbm_arbiter.h"
#include "sim/model/hbm_binding.h"
#include "sim/model/record_order.h"
#include "sim/memory/onchip_memory.h"
#include "sim/model/race_detector.h"
#include "sim/model/run_state.h"
#include "sim/model/summary.h"

namespace nsim {

struct ChipScheduler::Events {
  sc_core::sc_event cores_changed;  // a core was released or a queue head left
  sc_core::sc_event drained;        // the simulation drained: failed launches give their cores back
};

struct ChipScheduler::Item {
  ItemRef pub;
  std::vector<std::shared_ptr<Item>> prev;  // stream predecessors, until this item starts
  Picos start_sc = 0;          // SystemC time of its submission
  std::vector<int> cores;      // kernels: the cores it takes
  bool done = false;
  sc_core::sc_event done_event;
  // A kernel in flight, for deadlock detection at starvation.
  std::vector<RunState>* states = nullptr;
  const CoreLink* link = nullptr;  // its cross-core instructions' pairing
  const KernelLaunch* launch = nullptr;
  Picos started_sc = 0;  // SystemC time the kernel began
  sc_core::sc_event wake;  // quiet or aborted
  std::string deadlock;
  bool aborting = false;  // found deadlocked at a starvation
};

// The host link (PCIe): its bandwidth is shared equally by the host copies
// in flight; each copy also competes, at that cap, in its HBM stack.
class ChipScheduler::HostLink {
 public:
  explicit HostLink(double bytes_per_ns) : bytes_per_ns_(bytes_per_ns) {}
  void Transfer(HbmArbiter& stack, int core, double bytes) {
    Flow f{&stack, bytes_per_ns_};
    flows_.push_back(&f);
    Share();
    stack.TransferCapped(core, bytes, &f.cap);
    flows_.erase(std::find(flows_.begin(), flows_.end(), &f));
    Share();
  }

 private:
  struct Flow {
    HbmArbiter* stack;
    double cap;
  };
  void Share() {
    for (Flow* f : flows_) f->cap = bytes_per_ns_ / static_cast<double>(flows_.size());
    std::vector<HbmArbiter*> stacks;
    for (Flow* f : flows_) {
      if (std::find(stacks.begin(), stacks.end(), f->stack) == stacks.end()) stacks.push_back(f->stack);
    }
    for (HbmArbiter* s : stacks) s->Recompute();
  }
  double bytes_per_ns_;
  std::vector<Flow*> flows_;
};

ChipScheduler::ChipScheduler(Chip& chip, int cores)
    : chip_(chip),
      cores_(cores > 0 ? cores : chip.cores()),
      core_queue_(static_cast<size_t>(chip.cores())),
      core_busy_(static_cast<size_t>(chip.cores()), false),
      link_(std::make_unique<HostLink>(chip.config().chip.host_link_bytes_per_ns)),
      events_(std::make_unique<Events>()) {
  epoch_ = Now();
  stream_last_.emplace_back();  // stream 0
}

ChipScheduler::~ChipScheduler() {
  try {
    RunUntilIdle();
  } catch (...) {  // a destructor must not throw; the items carry their errors
  }
  if (slot_.cores > 0) SimHost::Get().ReleaseSlot(slot_);
}

int ChipScheduler::NewStream() {
  stream_last_.emplace_back();
  return static_cast<int>(stream_last_.size()) - 1;
}

Picos ChipScheduler::now() const { return Now() - epoch_; }

HbmArbiter& ChipScheduler::Stack(uint64_t address) { return *StackModule(chip_.StackOfAddress(address)); }

HbmArbiter* ChipScheduler::StackModule(int stack) {
  if (stack < 0) return nullptr;
  return &SimHost::Get().stack_module(slot_.first_stack + std::min(stack, slot_.stacks - 1));
}

int ChipScheduler::CoreOf(uint64_t address) const {
  return std::min(chip_.CoreOfAddress(address), chip_.cores() - 1);
}

// ------------------------------------------------------------------ submission

ItemRef ChipScheduler::Submit(const std::vector<int>& streams, Picos at, std::function<void(ScheduledItem&)> on_done,
                              std::function<void(Item&)> body, const std::vector<int>& cores) {
  for (int stream : streams) {
    if (!HasStream(stream)) throw SimError("chip scheduler: no stream " + std::to_string(stream));
  }
  for (int c : cores) {
    if (c < 0 || c >= cores_) {
      throw SimError("chip scheduler: no core " + std::to_string(c) + " (it models " + std::to_string(cores_) + ")");
    }
  }
  std::lock_guard<std::recursive_mutex> lock(SimHost::Get().mutex());
  if (in_flight_ == 0) {
    // Idle, the chip takes modules from the pool and the host's time (see the header).
    if (slot_.cores == 0) slot_ = SimHost::Get().AcquireSlot(chip_.config(), cores_);
    epoch_ = Now() - at;
  }
  auto item = std::make_shared<Item>();
  item->pub = std::make_shared<ScheduledItem>();
  item->pub->on_done = std::move(on_done);
  for (int stream : streams) {
    if (stream_last_[stream]) item->prev.push_back(stream_last_[stream]);
  }
  item->start_sc = std::max(Now(), epoch_ + at);
  item->cores = cores;
  for (int c : cores) core_queue_[c].push_back(item.get());
  for (int stream : streams) stream_last_[stream] = item;
  ++in_flight_;
  sc_core::sc_spawn_options options;
  options.set_stack_size(1 << 20);  // kernels bind and summarise on this thread
  sc_core::sc_spawn(
      [this, item, body] {
        WaitToStart(*item);
        try {
          body(*item);
        } catch (...) {
          if (!item->pub->error) item->pub->error = std::current_exception();
        }
        Finish(*item);
      },
      nullptr, &options);
  return item->pub;
}

void ChipScheduler::WaitToStart(Item& item) {
  if (item.start_sc > Now()) sc_core::wait(Ps(item.start_sc - Now()));
  for (const std::shared_ptr<Item>& prev : item.prev) {
    while (!prev->done) sc_core::wait(prev->done_event);
  }
  item.prev.clear();
  if (item.cores.empty()) return;
  auto ready = [this, &item] {
    for (int c : item.cores) {
      if (core_busy_[c] || core_queue_[c].front() != &item) return false;
    }
    return true;
  };
  while (!ready()) sc_core::wait(events_->cores_changed);
  for (int c : item.cores) {
    core_busy_[c] = true;
    core_queue_[c].pop_front();
  }
  events_->cores_changed.notify(sc_core::SC_ZERO_TIME);  // the next in a queue may now be its head
}

void ChipScheduler::Finish(Item& item) {
  for (int c : item.cores) core_busy_[c] = false;
  if (!item.cores.empty()) events_->cores_changed.notify(sc_core::SC_ZERO_TIME);
  item.pub->end = now();
  if (item.pub->on_done) item.pub->on_done(*item.pub);
  item.pub->done = item.done = true;
  item.done_event.notify(sc_core::SC_ZERO_TIME);
  if (--in_flight_ == 0) {  // idle: nothing of this chip is on its modules
    SimHost::Get().ReleaseSlot(slot_);
    slot_ = ChipSlot{};
  }
  if (target_ == item.pub.get() || (pause_when_idle_ && in_flight_ == 0)) sc_core::sc_pause();
}

ItemRef ChipScheduler::SubmitKernel(int stream, Picos at, KernelLaunch launch,
                                    std::function<void(ScheduledItem&)> on_done) {
  return SubmitKernel(std::vector<int>{stream}, at, std::move(launch), std::move(on_done));
}

ItemRef ChipScheduler::SubmitKernel(const std::vector<int>& streams, Picos at, KernelLaunch launch,
                                    std::function<void(ScheduledItem&)> on_done) {
  const std::vector<int> cores = launch.cores;
  auto shared = std::make_shared<KernelLaunch>(std::move(launch));
  return Submit(streams, at, std::move(on_done), [this, shared](Item& item) { RunKernel(item, *shared); }, cores);
}

ItemRef ChipScheduler::SubmitHostWrite(int stream, Picos at, uint64_t address, std::vector<uint8_t> bytes,
                                       std::function<void(ScheduledItem&)> on_done) {
  auto staged = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  return Submit(
      {stream}, at, std::move(on_done),
      [this, address, staged](Item& item) {
        RunHostCopy(item, address, staged->size(),
                    [this, address, staged] { chip_.hbm().Write(address, staged->data(), staged->size()); });
      },
      {});
}

ItemRef ChipScheduler::SubmitHostRead(int stream, Picos at, uint64_t address, void* dst, uint64_t bytes,
                                      std::function<void(ScheduledItem&)> on_done) {
  return Submit(
      {stream}, at, std::move(on_done),
      [this, address, dst, bytes](Item& item) {
        RunHostCopy(item, address, bytes, [this, address, dst, bytes] { chip_.hbm().Read(address, dst, bytes); });
      },
      {});
}

ItemRef ChipScheduler::SubmitCopy(int stream, Picos at, uint64_t dst, uint64_t src, uint64_t bytes,
                                  std::function<void(ScheduledItem&)> on_done) {
  return Submit(
      {stream}, at, std::move(on_done), [this, dst, src, bytes](Item& item) { RunCoreCopy(item, dst, src, bytes); }, {});
}

// ------------------------------------------------------------------ items

// host_link_latency, then the bytes over the link at its share, through the
// address's stack as a flow of the core whose memory it is (host copies use
// that core's DMA rings); alone, exactly host_link_latency + bytes / host_link_bytes_per_ns.
void ChipScheduler::RunHostCopy(Item& item, uint64_t address, uint64_t bytes, const std::function<void()>& data) {
  item.pub->start = now();
  sc_core::wait(Ps(chip_.config().chip.host_link_latency_ps));
  SimHost::Get().ConfigureStacks(chip_.config(), slot_);
  link_->Transfer(Stack(address), CoreOf(address), static_cast<double>(bytes));
  data();
}

// dma.start_latency, then the bytes read from the source's stack and written
// to the destination's, both at the DMA's share of a stack
// (dma.hbm_bytes_per_ns); on one stack the bytes cross it twice.
void ChipScheduler::RunCoreCopy(Item& item, uint64_t dst, uint64_t src, uint64_t bytes) {
  item.pub->start = now();
  const HardwareConfig& config = chip_.config();
  sc_core::wait(Ps(config.dma.start_latency_ps));
  SimHost::Get().ConfigureStacks(config, slot_);
  const double cap = config.dma.hbm_bytes_per_ns;
  HbmArbiter& from = Stack(src);
  HbmArbiter& to = Stack(dst);
  const int reader = CoreOf(src), writer = CoreOf(dst);
  if (&from == &to && reader == writer) {
    from.TransferCapped(reader, 2.0 * static_cast<double>(bytes), &cap);
  } else {
    bool written = false;
    sc_core::sc_event write_done;
    sc_core::sc_spawn([&] {
      to.TransferCapped(writer, static_cast<double>(bytes), &cap);
      written = true;
      write_done.notify();
    });
    from.TransferCapped(reader, static_cast<double>(bytes), &cap);
    while (!written) sc_core::wait(write_done);
  }
  std::vector<uint8_t> buffer(bytes);
  chip_.hbm().Read(src, buffer.data(), bytes);
  chip_.hbm().Write(dst, buffer.data(), bytes);
}

void ChipScheduler::RunKernel(Item& item, const KernelLaunch& launch) {
  item.pub->start = now();
  const HardwareConfig& config = chip_.config();
  SimHost& host = SimHost::Get();
  host.ConfigureStacks(config, slot_);
  const size_t n = launch.programs.size();
  BoundGrid bound = launch.bind ? launch.bind()
                                : chip_.Bind(launch.programs, launch.bindings, launch.cores, launch.scratch_top,
                                             !launch.timing_only);
  item.pub->scratch = bound.scratch;
  const std::vector<std::vector<uint64_t>>& addresses = bound.addresses;

  std::vector<ExecutionResult>& results = item.pub->results;
  results.resize(n);
  std::vector<RunState> states(n);
  const Picos t0 = Now();
  auto abort_all = [&states, &host, &launch, &item, this] {
    for (size_t i = 0; i < states.size(); ++i) {
      states[i].aborted = true;
      host.core_module(slot_.first_core + launch.cores[i]).WakeAll();
    }
    item.wake.notify(sc_core::SC_ZERO_TIME);
  };
  int quiet_cores = 0;
  std::vector<RunState*> programs;
  for (RunState& s : states) programs.push_back(&s);
  CoreLink link(programs);
  for (size_t i = 0; i < n; ++i) {
    ExecutionResult& result = results[i];
    result.kernel_hash = launch.programs[i]->hash();
    result.launch = config.kernel.launch_ps;
    result.teardown = config.kernel.teardown_ps;
    RunState& run = states[i];
    run.config = &config;
    run.kernel = launch.programs[i].get();
    run.ctx = bound.contexts[i].get();
    run.result = &result;
    run.core = launch.cores[i];
    run.program = static_cast<int>(i);
    run.link = &link;
    run.t0 = t0;
    run.last_end = t0 + result.launch;
    run.wake_all = abort_all;
    run.on_quiet = [&quiet_cores, &item, n] {
      if (++quiet_cores == static_cast<int>(n)) item.wake.notify(sc_core::SC_ZERO_TIME);
    };
    for (int s : chip_.StacksOf(launch.programs[i]->kernel(), addresses[i])) run.tensor_stack.push_back(StackModule(s));
    item.pub->progress.instructions_total += static_cast<int64_t>(launch.programs[i]->kernel().NumInstructions());
  }
  item.states = &states;
  item.link = &link;
  item.launch = &launch;
  item.started_sc = t0;
  running_kernels_.push_back(&item);
  for (size_t i = 0; i < n; ++i) host.core_module(slot_.first_core + launch.cores[i]).Start(&states[i]);
  for (const RunState& s : states) quiet_cores += s.busy == 0 ? 1 : 0;  // a core with nothing to do
  bool aborted = false;
  while (quiet_cores < static_cast<int>(n) && !aborted) {
    sc_core::wait(item.wake);
    for (const RunState& s : states) aborted = aborted || s.aborted;
  }
  running_kernels_.erase(std::find(running_kernels_.begin(), running_kernels_.end(), &item));
  item.states = nullptr;
  item.link = nullptr;
  if (aborted) {
    // Its DMA may still be moving: keep the cores until the simulation drains.
    ++draining_;
    sc_core::wait(events_->drained);
    --draining_;
    for (const RunState& s : states) {
      if (s.error) std::rethrow_exception(s.error);
    }
    throw SimError(item.deadlock.empty() ? "kernel launch aborted" : item.deadlock);
  }
  Picos device_time = 0;
  for (size_t i = 0; i < n; ++i) {
    results[i].device_time = states[i].last_end - t0 + results[i].teardown;
    SortRecords(&results[i]);
    Summarize(config, *launch.programs[i], &results[i]);
    CheckRaces(*launch.programs[i], addresses[i], launch.allow_races, &results[i]);
    results[i].scratch_addresses = item.pub->scratch;
    device_time = std::max(device_time, results[i].device_time);
  }
  const Picos end = t0 + device_time + (launch.tail ? launch.tail(results) : 0);
  if (end > Now()) sc_core::wait(Ps(end - Now()));
  item.pub->progress.simulated = Now() - t0;
  item.pub->progress.instructions_done = item.pub->progress.instructions_total;
}

// ------------------------------------------------------------------ running

ItemRef ChipScheduler::LaunchAndWait(int stream, KernelLaunch launch, const ProgressFn& progress) {
  SimClock& clock = SimClock::Get();
  ItemRef item = SubmitKernel(stream, clock.now(), std::move(launch), {});
  RunUntil(item, progress);
  clock.AdvanceTo(item->end);
  if (item->error) std::rethrow_exception(item->error);
  return item;
}

void ChipScheduler::RunUntil(const ItemRef& item, const ProgressFn& progress) {
  if (!item || item->done) return;
  std::lock_guard<std::recursive_mutex> lock(SimHost::Get().mutex());
  const ScheduledItem* saved = target_;
  target_ = item.get();
  std::function<void()> report;
  if (progress) report = [this, &item, &progress] { progress(Progress(item)); };
  try {
    Run([&item] { return item->done; }, report);
  } catch (...) {
    target_ = saved;
    throw;
  }
  target_ = saved;
}

void ChipScheduler::RunUntilIdle() {
  if (in_flight_ == 0) return;
  std::lock_guard<std::recursive_mutex> lock(SimHost::Get().mutex());
  const bool saved = pause_when_idle_;
  pause_when_idle_ = true;
  try {
    Run([this] { return in_flight_ == 0; });
  } catch (...) {
    pause_when_idle_ = saved;
    throw;
  }
  pause_when_idle_ = saved;
}

void ChipScheduler::RunTo(Picos t) {
  std::lock_guard<std::recursive_mutex> lock(SimHost::Get().mutex());
  if (t > now()) sc_core::sc_start(Ps(t - now()));
}

// Exit on starvation: reporting, time stops at the last event, exactly where
// one uninterrupted sc_start() would stop.
void ChipScheduler::Run(const std::function<bool()>& finished, const std::function<void()>& report) {
  while (!finished()) {
    if (!sc_core::sc_pending_activity()) OnStarvation();
    if (!report) {
      sc_core::sc_start();
      continue;
    }
    sc_core::sc_start(Ps(kProgressSlicePs), sc_core::SC_EXIT_ON_STARVATION);
    report();
  }
}

// Live while the kernel runs; before it starts and once it is done, the item's own figures.
RunProgress ChipScheduler::Progress(const ItemRef& item) const {
  for (const Item* k : running_kernels_) {
    if (k->pub != item) continue;
    RunProgress p = item->progress;
    p.simulated = Now() - k->started_sc;
    for (const RunState& s : *k->states) p.instructions_done += static_cast<int64_t>(s.records.size());
    return p;
  }
  return item->progress;
}

// Nothing can move: every kernel still running is deadlocked, and launches
// that failed earlier may now give their cores back.
void ChipScheduler::OnStarvation() {
  bool moved = draining_ > 0;
  events_->drained.notify(sc_core::SC_ZERO_TIME);
  SimHost& host = SimHost::Get();
  for (Item* item : running_kernels_) {
    if (item->aborting) continue;
    item->aborting = moved = true;
    const KernelLaunch& launch = *item->launch;
    for (size_t i = 0; i < launch.cores.size(); ++i) {
      CoreModules& core = host.core_module(slot_.first_core + launch.cores[i]);
      if (!core.Stuck() || !item->deadlock.empty()) continue;
      item->deadlock = core.DeadlockReport(*launch.programs[i]);
      if (launch.cores.size() > 1) item->deadlock = "core " + std::to_string(launch.cores[i]) + ": " + item->deadlock;
    }
    // A sendrecv or core_barrier whose peer never came is the cause: name both programs' lines.
    const std::string unmatched = item->link != nullptr ? item->link->Unmatched() : "";
    if (!unmatched.empty()) item->deadlock = "deadlock: " + unmatched + "\n" + item->deadlock;
    (*item->states)[0].wake_all();
  }
  if (!moved) {
    throw SimError("chip scheduler: the simulation stopped with work in flight that cannot finish");
  }
}

}  // namespace nsim

#include "backend/neuron/codegen/scheduler.h"

#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

using Extent = Scheduler::Extent;
using Touches = std::map<int, std::vector<Extent>>;

Extent ExtentOf(const Kernel& k, const AccessPattern& ap) {
  Extent e;
  const bool onchip = k.tensors[ap.tensor].space != MemSpace::kHbm;
  if (onchip) {
    e.p0 = ap.partition_start;
    e.p1 = ap.partition_start + ap.dims[0].size;
  }
  e.f0 = e.f1 = ap.offset;
  for (size_t d = onchip ? 1 : 0; d < ap.dims.size(); ++d) e.f1 += (ap.dims[d].size - 1) * ap.dims[d].stride;
  return e;
}

bool Overlap(const std::vector<Extent>& a, const std::vector<Extent>& b) {
  for (const Extent& x : a) {
    for (const Extent& y : b) {
      if (x.p0 < y.p1 && y.p0 < x.p1 && x.f0 <= y.f1 && y.f0 <= x.f1) return true;
    }
  }
  return false;
}

void Touch(const Kernel& k, const AccessPattern& ap, Touches* t) {
  if (ap.present()) (*t)[ap.tensor].push_back(ExtentOf(k, ap));
}

Touches Reads(const Kernel& k, const InstructionView& in) {
  Touches t;
  Touch(k, in.src0, &t);
  Touch(k, in.src1, &t);
  if (in.scalar0.is_ap) Touch(k, in.scalar0.ap, &t);
  if (in.scalar1.is_ap) Touch(k, in.scalar1.ap, &t);
  if (in.opcode == Opcode::kMatmul && in.accumulate) Touch(k, in.dst, &t);
  return t;
}

Touches Writes(const Kernel& k, const InstructionView& in) {
  Touches t;
  Touch(k, in.dst, &t);
  Touch(k, in.acc, &t);
  return t;
}

bool IsHbm(const Kernel& k, int tensor) { return k.tensors[tensor].space == MemSpace::kHbm; }

}  // namespace

Scheduler::Scheduler(Kernel* kernel) : kernel_(kernel) {}

int Scheduler::Materialise(Access& a, int tensor, const char* what) {
  if (a.sem >= 0) return a.sem;
  a.sem = AddSemaphore(*kernel_, std::string(what) + "_" + kernel_->tensors[tensor].name);
  for (const Ref& r : a.refs) {  // retroactively: the kernel re-packs each one
    kernel_->EditInstruction(static_cast<int>(r.engine), static_cast<size_t>(r.index),
                             [&](Instruction& in) { in.signals.push_back({a.sem, 1}); });
  }
  return a.sem;
}

void Scheduler::WaitFor(Access& a, int tensor, const char* what, int agent, const std::vector<Extent>& ext,
                        Instruction* in) {
  const int64_t total = static_cast<int64_t>(a.refs.size());
  const int64_t covered = a.sem >= 0 ? waited_[{agent, a.sem}] : 0;
  bool need = false;
  for (int64_t i = covered; i < total && !need; ++i) {
    need = a.refs[i].agent != agent && Overlap(a.refs[i].extents, ext);
  }
  if (!need) return;
  const int sem = Materialise(a, tensor, what);
  in->waits.push_back({sem, total});
  waited_[{agent, sem}] = total;
}

void Scheduler::Record(Access& a, const Ref& r, Instruction* in) {
  a.refs.push_back(r);
  if (a.sem >= 0) in->signals.push_back({a.sem, 1});
}

void Scheduler::Add(Instruction in) {
  const bool dma = in.opcode == Opcode::kDmaCopy;
  const int agent = dma ? next_dma_agent_++ : static_cast<int>(in.engine);
  const Touches reads = Reads(*kernel_, in), writes = Writes(*kernel_, in);
  for (const auto& [t, ext] : reads) WaitFor(tracked_[t].writes, t, "w", agent, ext, &in);  // RAW
  for (const auto& [t, ext] : writes) {
    if (IsHbm(*kernel_, t)) continue;  // disjoint tiles, written once
    WaitFor(tracked_[t].writes, t, "w", agent, ext, &in);  // WAW
    WaitFor(tracked_[t].reads, t, "r", agent, ext, &in);   // WAR
  }
  const int index = static_cast<int>(kernel_->stream(in.engine).size());
  for (const auto& [t, ext] : reads) {
    if (!IsHbm(*kernel_, t)) Record(tracked_[t].reads, Ref{in.engine, index, agent, ext}, &in);
  }
  for (const auto& [t, ext] : writes) Record(tracked_[t].writes, Ref{in.engine, index, agent, ext}, &in);
  kernel_->Append(in);
}

void Scheduler::Dma(EngineId engine, const AccessPattern& dst, const AccessPattern& src, int queue) {
  Instruction in = MakeInstruction(engine, Opcode::kDmaCopy);
  in.dst = dst;
  in.src0 = src;
  in.queue = queue;
  Add(std::move(in));
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim

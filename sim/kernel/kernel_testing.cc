#include "sim/kernel/kernel_testing.h"

#include <cmath>
#include <sstream>

#include "sim/kernel/printer.h"

namespace nsim {
namespace {

// Accumulates the first mismatch; later checks are skipped once one failed.
class Diff {
 public:
  template <typename T>
  void Check(bool equal, const std::string& what, const T& a, const T& b) {
    if (!found_.empty() || equal) return;
    std::ostringstream os;
    os << what << " differs: " << a << " vs " << b;
    found_ = os.str();
  }
  const std::string& found() const { return found_; }

 private:
  std::string found_;
};

bool SameDouble(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void CompareTensor(Diff& d, const std::string& where, const TensorDecl& a, const TensorDecl& b) {
  d.Check(a.name == b.name, where + ".name", a.name, b.name);
  d.Check(a.space == b.space, where + ".space", MemSpaceName(a.space), MemSpaceName(b.space));
  d.Check(a.dtype == b.dtype, where + ".dtype", DTypeName(a.dtype), DTypeName(b.dtype));
  d.Check(a.shape == b.shape, where + ".shape rank/dims", a.shape.size(), b.shape.size());
  d.Check(a.init.kind == b.init.kind, where + ".init.kind", int(a.init.kind), int(b.init.kind));
  d.Check(SameDouble(a.init.value, b.init.value), where + ".init.value", a.init.value, b.init.value);
  d.Check(a.init.seed == b.init.seed, where + ".init.seed", a.init.seed, b.init.seed);
}

void CompareAp(Diff& d, const Kernel& ka, const Kernel& kb, const std::string& where, const AccessPattern& a,
               const AccessPattern& b) {
  d.Check(a == b, where, FormatAccessPattern(ka, a), FormatAccessPattern(kb, b));
}

void CompareScalar(Diff& d, const Kernel& ka, const Kernel& kb, const std::string& where, const Scalar& a,
                   const Scalar& b) {
  d.Check(a.is_ap == b.is_ap, where + ".is_ap", a.is_ap, b.is_ap);
  d.Check(SameDouble(a.imm, b.imm), where + ".imm", a.imm, b.imm);
  CompareAp(d, ka, kb, where + ".ap", a.ap, b.ap);
}

void CompareSync(Diff& d, const std::string& where, const InstructionView& a, const InstructionView& b) {
  d.Check(a.waits.size() == b.waits.size(), where + ".waits.size()", a.waits.size(), b.waits.size());
  d.Check(a.signals.size() == b.signals.size(), where + ".signals.size()", a.signals.size(),
          b.signals.size());
  for (size_t i = 0; i < a.waits.size() && i < b.waits.size(); ++i) {
    d.Check(a.waits[i].sem == b.waits[i].sem, where + ".waits.sem", a.waits[i].sem, b.waits[i].sem);
    d.Check(a.waits[i].value == b.waits[i].value, where + ".waits.value", a.waits[i].value, b.waits[i].value);
  }
  for (size_t i = 0; i < a.signals.size() && i < b.signals.size(); ++i) {
    d.Check(a.signals[i].sem == b.signals[i].sem, where + ".signals.sem", a.signals[i].sem, b.signals[i].sem);
    d.Check(a.signals[i].delta == b.signals[i].delta, where + ".signals.delta", a.signals[i].delta,
            b.signals[i].delta);
  }
}

void CompareInstruction(Diff& d, const Kernel& ka, const Kernel& kb, const std::string& where,
                        const InstructionView& a, const InstructionView& b) {
  d.Check(a.engine == b.engine, where + ".engine", EngineName(a.engine), EngineName(b.engine));
  d.Check(a.opcode == b.opcode, where + ".opcode", OpcodeName(a.opcode), OpcodeName(b.opcode));
  CompareAp(d, ka, kb, where + ".dst", a.dst, b.dst);
  CompareAp(d, ka, kb, where + ".src0", a.src0, b.src0);
  CompareAp(d, ka, kb, where + ".src1", a.src1, b.src1);
  CompareAp(d, ka, kb, where + ".acc", a.acc, b.acc);
  CompareScalar(d, ka, kb, where + ".scalar0", a.scalar0, b.scalar0);
  CompareScalar(d, ka, kb, where + ".scalar1", a.scalar1, b.scalar1);
  d.Check(a.alu0 == b.alu0, where + ".alu0", AluOpName(a.alu0), AluOpName(b.alu0));
  d.Check(a.alu1 == b.alu1, where + ".alu1", AluOpName(a.alu1), AluOpName(b.alu1));
  d.Check(a.reduce == b.reduce, where + ".reduce", ReduceOpName(a.reduce), ReduceOpName(b.reduce));
  d.Check(a.func == b.func, where + ".func", ActFuncName(a.func), ActFuncName(b.func));
  d.Check(a.accumulate == b.accumulate, where + ".accumulate", a.accumulate, b.accumulate);
  d.Check(a.broadcast == b.broadcast, where + ".broadcast", a.broadcast, b.broadcast);
  d.Check(SameDouble(a.base, b.base), where + ".base", a.base, b.base);
  d.Check(SameDouble(a.partition_step, b.partition_step), where + ".partition_step", a.partition_step,
          b.partition_step);
  d.Check(SameDouble(a.free_step, b.free_step), where + ".free_step", a.free_step, b.free_step);
  d.Check(a.queue == b.queue, where + ".queue", a.queue, b.queue);
  CompareSync(d, where, a, b);
}

}  // namespace

::testing::AssertionResult KernelsEqual(const Kernel& a, const Kernel& b) {
  Diff d;
  d.Check(a.name == b.name, "name", a.name, b.name);
  d.Check(a.tensors.size() == b.tensors.size(), "number of tensors", a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size() && i < b.tensors.size(); ++i) {
    CompareTensor(d, "tensors[" + std::to_string(i) + "]", a.tensors[i], b.tensors[i]);
  }
  d.Check(a.semaphores == b.semaphores, "semaphores (count)", a.semaphores.size(), b.semaphores.size());
  for (int e = 0; e < kNumEngines; ++e) {
    const StreamView sa = a.stream(e);
    const StreamView sb = b.stream(e);
    const std::string engine = EngineName(static_cast<EngineId>(e));
    d.Check(sa.size() == sb.size(), engine + " stream length", sa.size(), sb.size());
    for (size_t i = 0; i < sa.size() && i < sb.size(); ++i) {
      CompareInstruction(d, a, b, engine + "[" + std::to_string(i) + "]", sa[i], sb[i]);
    }
  }
  if (d.found().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << d.found();
}

}  // namespace nsim

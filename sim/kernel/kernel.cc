#include "sim/kernel/kernel.h"

#include <cmath>

namespace nsim {
namespace {

// One table per enum serves both directions: the first entry for a value is
// its canonical name, later entries are accepted aliases.
template <typename E>
struct NameEntry {
  const char* name;
  E value;
};

template <typename E, size_t N>
const char* NameOf(const NameEntry<E> (&table)[N], E value) {
  for (const NameEntry<E>& e : table) {
    if (e.value == value) return e.name;
  }
  return "?";
}

template <typename E, size_t N>
bool Lookup(const NameEntry<E> (&table)[N], const std::string& s, E* out) {
  for (const NameEntry<E>& e : table) {
    if (s == e.name) {
      *out = e.value;
      return true;
    }
  }
  return false;
}

const NameEntry<MemSpace> kMemSpaces[] = {
    {"hbm", MemSpace::kHbm}, {"sbuf", MemSpace::kSbuf}, {"psum", MemSpace::kPsum}};

const NameEntry<EngineId> kEngines[] = {
    {"tensor", EngineId::kTensor}, {"vector", EngineId::kVector}, {"scalar", EngineId::kScalar},
    {"gpsimd", EngineId::kGpSimd}, {"sync", EngineId::kSync}};

const NameEntry<EngineId> kEngineLanes[] = {
    {"TensorE", EngineId::kTensor}, {"VectorE", EngineId::kVector}, {"ScalarE", EngineId::kScalar},
    {"GpSimd", EngineId::kGpSimd},  {"Sync", EngineId::kSync}};

const NameEntry<Opcode> kOpcodes[] = {
#define NSIM_OPCODE_NAME(enumerator, name, hw_name, engines, operands) {name, Opcode::enumerator},
    NSIM_OPCODE_TABLE(NSIM_OPCODE_NAME)
#undef NSIM_OPCODE_NAME
};

const NameEntry<AluOp> kAluOps[] = {
    {"none", AluOp::kNone},
#define NSIM_ALU_NAME(e, name, nl_name, commutative, reciprocal_rate, value) {name, AluOp::e},
    NSIM_ALU_OP_TABLE(NSIM_ALU_NAME)
#undef NSIM_ALU_NAME
    {"sub", AluOp::kSub},  {"mul", AluOp::kMul},  // aliases, after the canonical names
};

const NameEntry<ReduceOp> kReduceOps[] = {
    {"sum", ReduceOp::kSum}, {"max", ReduceOp::kMax}, {"min", ReduceOp::kMin}, {"mean", ReduceOp::kMean}};

const NameEntry<ActFunc> kActFuncs[] = {
#define NSIM_ACT_NAME(e, name, nl_name, table_set, value) {name, ActFunc::e},
    NSIM_ACT_FUNC_TABLE(NSIM_ACT_NAME)
#undef NSIM_ACT_NAME
    {"copy", ActFunc::kIdentity},  // alias, after the canonical name
};

// Per opcode, indexed by Opcode: opcode_table.h's columns.
constexpr const char* kOpcodeHwNames[kNumOpcodes] = {
#define NSIM_OPCODE_HW_NAME(enumerator, name, hw_name, engines, operands) hw_name,
    NSIM_OPCODE_TABLE(NSIM_OPCODE_HW_NAME)
#undef NSIM_OPCODE_HW_NAME
};
constexpr uint32_t kOpcodeEngines[kNumOpcodes] = {
#define NSIM_OPCODE_ENGINES(enumerator, name, hw_name, engines, operands) engines,
    NSIM_OPCODE_TABLE(NSIM_OPCODE_ENGINES)
#undef NSIM_OPCODE_ENGINES
};
constexpr int kApOperands[kNumOpcodes] = {
#define NSIM_OPCODE_OPERANDS(enumerator, name, hw_name, engines, operands) operands,
    NSIM_OPCODE_TABLE(NSIM_OPCODE_OPERANDS)
#undef NSIM_OPCODE_OPERANDS
};

int64_t Product(const std::vector<int64_t>& v, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < v.size(); ++i) p *= v[i];
  return p;
}

bool SameNumber(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

const char* MemSpaceName(MemSpace s) { return NameOf(kMemSpaces, s); }
bool ParseMemSpace(const std::string& s, MemSpace* out) { return Lookup(kMemSpaces, s, out); }
const char* EngineName(EngineId e) { return NameOf(kEngines, e); }
const char* EngineLaneName(EngineId e) { return NameOf(kEngineLanes, e); }
bool ParseEngine(const std::string& s, EngineId* out) { return Lookup(kEngines, s, out); }
const char* OpcodeName(Opcode o) { return NameOf(kOpcodes, o); }
bool ParseOpcode(const std::string& s, Opcode* out) { return Lookup(kOpcodes, s, out); }
const char* AluOpName(AluOp o) { return NameOf(kAluOps, o); }
const char* ReduceOpName(ReduceOp o) { return NameOf(kReduceOps, o); }
const char* ActFuncName(ActFunc f) { return NameOf(kActFuncs, f); }
bool ParseReduceOp(const std::string& s, ReduceOp* out) { return Lookup(kReduceOps, s, out); }
bool ParseActFunc(const std::string& s, ActFunc* out) { return Lookup(kActFuncs, s, out); }

bool ParseAluOp(const std::string& s, AluOp* out) {
  // "none" only marks an unused slot; it is not something a kernel can ask for.
  return s != "none" && Lookup(kAluOps, s, out);
}

const char* OpcodeHwName(Opcode o) { return kOpcodeHwNames[static_cast<int>(o)]; }
uint32_t OpcodeEngines(Opcode o) { return kOpcodeEngines[static_cast<int>(o)]; }
bool OpcodeAllowedOn(Opcode o, EngineId e) { return (OpcodeEngines(o) & EngineMask(e)) != 0; }

int NumApOperands(Opcode o) { return kApOperands[static_cast<int>(o)]; }

int64_t TensorDecl::FreeElements() const {
  return Product(shape, space == MemSpace::kHbm ? 0 : 1);
}

int64_t TensorDecl::NumElements() const { return Product(shape, 0); }

bool operator==(const Scalar& a, const Scalar& b) {
  if (a.is_ap != b.is_ap) return false;
  return a.is_ap ? a.ap == b.ap : SameNumber(a.imm, b.imm);
}

int Kernel::FindTensor(const std::string& n) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == n) return static_cast<int>(i);
  }
  return -1;
}

int Kernel::FindSemaphore(const std::string& n) const {
  for (size_t i = 0; i < semaphores.size(); ++i) {
    if (semaphores[i] == n) return static_cast<int>(i);
  }
  return -1;
}

const std::string& Kernel::SourceAt(int line) const {
  static const std::string kNone;
  auto it = sources.find(line);
  return it == sources.end() ? kNone : it->second;
}

std::string KernelLoops::Label(uint32_t iteration) const {
  const Iteration& it = iterations[iteration];
  std::string label;
  const std::vector<std::string>& names = nests[it.nest];
  for (size_t k = 0; k < names.size(); ++k) {
    label += (k ? "," : "") + names[k] + "=" + std::to_string(values[it.first + k]);
  }
  return label;
}

std::string Kernel::LoopIndicesAt(int engine, size_t i) const {
  if (!loops_) return "";
  const std::vector<uint32_t>& of = loops_->iteration_of[static_cast<size_t>(engine)];
  return i < of.size() ? loops_->Label(of[i]) : "";
}

}  // namespace nsim

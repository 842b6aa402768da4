#include "backend/neuron/codegen/graph.h"

#include <iomanip>
#include <sstream>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

[[noreturn]] void Fail(const std::string& msg) { throw SimError("codegen: " + msg); }

std::vector<int64_t> NonUnit(const std::vector<int64_t>& v) {
  std::vector<int64_t> out;
  for (int64_t s : v) if (s != 1) out.push_back(s);
  return out;
}

struct KindInfo {
  OpKind kind;
  const char* name;
};
constexpr KindInfo kKinds[] = {
    {OpKind::kInput, "input"},       {OpKind::kConstant, "constant"},
#define NSIM_BINARY_OP(name, Name, ...) {OpKind::k##Name, #name},
#include "backend/binary_ops.def"
#define NSIM_UNARY_OP(name, Name, ...) {OpKind::k##Name, #name},
#include "backend/unary_ops.def"
    {OpKind::kSquare, "square"},     {OpKind::kGelu, "gelu"},
    {OpKind::kGeluTanh, "gelu_tanh"}, {OpKind::kPowScalar, "pow"},      {OpKind::kCast, "cast"},
    {OpKind::kWhere, "where"},        {OpKind::kView, "view"},
    {OpKind::kIota, "iota"},
#define NSIM_REDUCTION_OP(name, Name, ...) {OpKind::kRow##Name, "row_" #name},
#include "backend/reduction_ops.def"
    {OpKind::kRowCumsum, "row_cumsum"}, {OpKind::kRowCumprod, "row_cumprod"}, {OpKind::kMatmul, "matmul"},
};

}  // namespace

const char* OpKindName(OpKind k) {
  for (const KindInfo& i : kKinds) if (i.kind == k) return i.name;
  return "?";
}

// The first and last kinds of each table.
#define NSIM_BINARY_OP(name, Name, ...) OpKind::k##Name,
constexpr OpKind kBinaryKinds[] = {
#include "backend/binary_ops.def"
};
constexpr OpKind kFirstBinary = kBinaryKinds[0];
constexpr OpKind kLastBinary = kBinaryKinds[sizeof(kBinaryKinds) / sizeof(kBinaryKinds[0]) - 1];

#define NSIM_REDUCTION_OP(name, Name, ...) OpKind::kRow##Name,
constexpr OpKind kRowReduceKinds[] = {
#include "backend/reduction_ops.def"
};
constexpr OpKind kFirstRowReduce = kRowReduceKinds[0];
constexpr OpKind kLastRowReduce = kRowReduceKinds[sizeof(kRowReduceKinds) / sizeof(kRowReduceKinds[0]) - 1];

bool IsBinary(OpKind k) { return k >= kFirstBinary && k <= kLastBinary; }
bool IsUnary(OpKind k) { return k > kLastBinary && k <= OpKind::kCast; }
bool IsRowReduce(OpKind k) { return k >= kFirstRowReduce && k <= kLastRowReduce; }
bool IsRowScan(OpKind k) { return k == OpKind::kRowCumsum || k == OpKind::kRowCumprod; }
bool IsFloat(DType t) {
  switch (t) {
    case DType::kI32: case DType::kI16: case DType::kI8: case DType::kU8:
    case DType::kU16: case DType::kU32: case DType::kBool: return false;
    default: return true;
  }
}
bool IsPointwise(OpKind k) {
  return IsBinary(k) || IsUnary(k) || k == OpKind::kWhere || k == OpKind::kConstant || k == OpKind::kView ||
         k == OpKind::kIota;
}

std::vector<int64_t> BroadcastSizes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                    const char* op) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) {
      Fail(std::string("'") + op + "': shapes " + FormatSizes(a) + " and " + FormatSizes(b) + " do not broadcast");
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

const Node& Graph::node(ValueId v) const {
  CheckValue(v, "node");
  return nodes_[v];
}

void Graph::CheckValue(ValueId v, const char* op) const {
  if (v < 0 || v >= static_cast<ValueId>(nodes_.size())) {
    Fail(std::string("'") + op + "': no value " + std::to_string(v));
  }
}

void Graph::CheckName(const std::string& name) const {
  if (!IsIdentifier(name)) Fail("tensor name '" + name + "' is not an identifier");
  for (const Node& n : nodes_) if (n.kind == OpKind::kInput && n.name == name) Fail("duplicate tensor name '" + name + "'");
  for (const GraphOutput& o : outputs_) if (o.name == name) Fail("duplicate tensor name '" + name + "'");
}

ValueId Graph::Add(Node n) {
  nodes_.push_back(std::move(n));
  return static_cast<ValueId>(nodes_.size()) - 1;
}

ValueId Graph::Input(const std::string& name, const TensorDesc& desc) {
  CheckName(name);
  CheckTensorDesc(desc, "input '" + name + "'");
  Node n;
  n.kind = OpKind::kInput;
  n.dtype = desc.dtype;
  n.sizes = desc.sizes;
  n.name = name;
  n.desc = desc;
  return Add(std::move(n));
}

ValueId Graph::Constant(double value, DType dtype) {
  Node n;
  n.kind = OpKind::kConstant;
  n.dtype = dtype;
  n.scalar = value;
  return Add(std::move(n));
}

ValueId Graph::Binary(OpKind kind, ValueId a, ValueId b, DType out, double alpha) {
  if (!IsBinary(kind)) Fail(std::string("Binary() with non-binary op '") + OpKindName(kind) + "'");
  CheckValue(a, OpKindName(kind));
  CheckValue(b, OpKindName(kind));
  Node n;
  n.kind = kind;
  n.inputs = {a, b};
  n.dtype = out;
  n.sizes = BroadcastSizes(nodes_[a].sizes, nodes_[b].sizes, OpKindName(kind));
  n.scalar = alpha;
  return Add(std::move(n));
}

ValueId Graph::Unary(OpKind kind, ValueId a, DType out) {
  if (!IsUnary(kind) || kind == OpKind::kPowScalar || kind == OpKind::kCast) {
    Fail(std::string("Unary() with op '") + OpKindName(kind) + "' (use Pow/Cast for those)");
  }
  CheckValue(a, OpKindName(kind));
  Node n;
  n.kind = kind;
  n.inputs = {a};
  n.dtype = out;
  n.sizes = nodes_[a].sizes;
  return Add(std::move(n));
}

ValueId Graph::Pow(ValueId a, double exponent, DType out) {
  CheckValue(a, "pow");
  Node n;
  n.kind = OpKind::kPowScalar;
  n.inputs = {a};
  n.dtype = out;
  n.sizes = nodes_[a].sizes;
  n.scalar = exponent;
  return Add(std::move(n));
}

ValueId Graph::Cast(ValueId a, DType out) {
  CheckValue(a, "cast");
  Node n;
  n.kind = OpKind::kCast;
  n.inputs = {a};
  n.dtype = out;
  n.sizes = nodes_[a].sizes;
  return Add(std::move(n));
}

ValueId Graph::Where(ValueId cond, ValueId a, ValueId b, DType out) {
  CheckValue(cond, "where");
  CheckValue(a, "where");
  CheckValue(b, "where");
  Node n;
  n.kind = OpKind::kWhere;
  n.inputs = {cond, a, b};
  n.dtype = out;
  n.sizes = BroadcastSizes(BroadcastSizes(nodes_[cond].sizes, nodes_[a].sizes, "where"), nodes_[b].sizes, "where");
  return Add(std::move(n));
}

ValueId Graph::View(ValueId a, std::vector<int64_t> sizes) {
  CheckValue(a, "view");
  if (NonUnit(sizes) != NonUnit(nodes_[a].sizes)) {
    Fail("'view' from " + FormatSizes(nodes_[a].sizes) + " to " + FormatSizes(sizes) + " may only add or remove size-1 dims");
  }
  Node n;
  n.kind = OpKind::kView;
  n.inputs = {a};
  n.dtype = nodes_[a].dtype;
  n.sizes = std::move(sizes);
  return Add(std::move(n));
}

ValueId Graph::Iota(std::vector<int64_t> sizes, double base, double step, DType out) {
  if (sizes.empty()) Fail("'iota' of a 0-dim value");
  Node n;
  n.kind = OpKind::kIota;
  n.dtype = out;
  n.sizes = std::move(sizes);
  n.scalar = base;
  n.step = step;
  return Add(std::move(n));
}

Node Graph::RowNode(OpKind kind, bool kind_ok, const char* what, ValueId a, DType out) const {
  if (!kind_ok) Fail(std::string(what) + "() with op '" + OpKindName(kind) + "'");
  CheckValue(a, OpKindName(kind));
  if (nodes_[a].sizes.empty()) Fail(std::string("'") + OpKindName(kind) + "' of a 0-dim value");
  Node n;
  n.kind = kind;
  n.inputs = {a};
  n.dtype = out;
  n.sizes = nodes_[a].sizes;
  return n;
}

ValueId Graph::RowScan(OpKind kind, ValueId a, DType out) {
  return Add(RowNode(kind, IsRowScan(kind), "RowScan", a, out));
}

ValueId Graph::RowReduce(OpKind kind, ValueId a, DType out) {
  Node n = RowNode(kind, IsRowReduce(kind), "RowReduce", a, out);
  n.sizes.back() = 1;
  return Add(std::move(n));
}

ValueId Graph::Matmul(ValueId a, ValueId b, DType out) {
  CheckValue(a, "matmul");
  CheckValue(b, "matmul");
  const std::vector<int64_t>& sa = nodes_[a].sizes;
  const std::vector<int64_t>& sb = nodes_[b].sizes;
  auto fail = [&](const std::string& why) { Fail("'matmul' of " + FormatSizes(sa) + " and " + FormatSizes(sb) + ": " + why); };
  if (sa.size() < 2 || sb.size() < 2) fail("both operands need at least 2 dims");
  if (sa[sa.size() - 1] != sb[sb.size() - 2]) fail("contraction dims differ");
  const std::vector<int64_t> batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  if (!batch_b.empty() && batch_b != batch_a) fail("the second operand is 2-D or has the first's batch dims");
  Node n;
  n.kind = OpKind::kMatmul;
  n.inputs = {a, b};
  n.dtype = out;
  n.sizes = batch_a;
  n.sizes.push_back(sa[sa.size() - 2]);
  n.sizes.push_back(sb.back());
  return Add(std::move(n));
}

void Graph::Output(ValueId v, const std::string& name, const TensorDesc& desc) {
  CheckValue(v, "output");
  CheckName(name);
  CheckTensorDesc(desc, "output '" + name + "'");
  if (NonUnit(desc.sizes) != NonUnit(nodes_[v].sizes)) {
    Fail("output '" + name + "' " + desc.ToString() + " does not hold value " + std::to_string(v) + " of shape " +
         FormatSizes(nodes_[v].sizes));
  }
  if (desc.dtype != nodes_[v].dtype) {
    Fail("output '" + name + "' is " + DTypeName(desc.dtype) + " but value " + std::to_string(v) + " is " +
         DTypeName(nodes_[v].dtype) + " (add a Cast)");
  }
  outputs_.push_back({v, name, desc});
}

std::vector<ValueId> Graph::Users(ValueId v) const {
  std::vector<ValueId> users;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (ValueId in : nodes_[i].inputs) {
      if (in == v) { users.push_back(static_cast<ValueId>(i)); break; }
    }
  }
  return users;
}

std::string Graph::ToString() const {
  std::ostringstream os;
  os << std::setprecision(17);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    os << "%" << i << " = " << OpKindName(n.kind) << "(";
    for (size_t j = 0; j < n.inputs.size(); ++j) os << (j ? ", " : "") << "%" << n.inputs[j];
    os << ") " << DTypeName(n.dtype) << FormatSizes(n.sizes);
    if (n.kind == OpKind::kConstant || n.kind == OpKind::kPowScalar || n.kind == OpKind::kAdd ||
        n.kind == OpKind::kSub) {
      os << " scalar=" << n.scalar;
    }
    if (n.kind == OpKind::kIota) os << " base=" << n.scalar << " step=" << n.step;
    if (n.kind == OpKind::kInput) os << " " << n.name << ": " << n.desc.ToString();
    os << "\n";
  }
  for (const GraphOutput& o : outputs_) os << "out " << o.name << " = %" << o.value << ": " << o.desc.ToString() << "\n";
  return os.str();
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim

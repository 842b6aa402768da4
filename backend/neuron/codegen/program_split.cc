#include "backend/neuron/codegen/program_split.h"

#include "sim/base/error.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

constexpr int kUnset = -2;  // no user has asked for the value yet (dead so far)
constexpr int kWhole = -1;  // every program computes all of it

// Which axis of every value each program computes a share of (or kWhole),
// found from the outputs backwards: each node asks its inputs for the rows
// its own share needs.
class AxisPlan {
 public:
  explicit AxisPlan(const Graph& g) : g_(g), axis_(g.nodes().size(), kUnset) {}

  // Seeds the outputs with axis `axis` of output 0's value; false (and
  // `why_`) when the graph cannot be split along it.
  bool Plan(int axis) {
    const std::vector<int64_t>& first = g_.node(g_.outputs()[0].value).sizes;
    for (const GraphOutput& o : g_.outputs()) {
      const std::vector<int64_t>& sizes = g_.node(o.value).sizes;
      // The same axis counted from the right (broadcasting), else from the
      // left (a reduction without keepdim): any consistent choice is correct,
      // as every program computes its rows from the rows its inputs give.
      int a = AlignedAxis(first, axis, sizes);
      if (a < 0 || sizes[a] != first[axis]) a = axis;
      if (a >= static_cast<int>(sizes.size()) || sizes[a] != first[axis]) {
        return Fail("output '" + o.name + "' has no matching rows");
      }
      if (!Ask(o.value, a)) return false;
    }
    for (ValueId v = static_cast<ValueId>(g_.nodes().size()) - 1; v >= 0; --v) {
      if (axis_[v] != kUnset && !AskInputs(v)) return false;
    }
    for (ValueId v = 0; v < static_cast<ValueId>(axis_.size()); ++v) {
      if (axis_[v] == kUnset) return Fail("value " + std::to_string(v) + " is not used by an output");
    }
    return true;
  }

  int axis(ValueId v) const { return axis_[v]; }
  const std::string& why() const { return why_; }

 private:
  bool Fail(const std::string& why) {
    why_ = why;
    return false;
  }

  bool Ask(ValueId v, int a) {
    if (axis_[v] == kUnset) axis_[v] = a;
    if (axis_[v] == a) return true;
    return Fail(std::string("'") + OpKindName(g_.node(v).kind) + "' value " + std::to_string(v) +
                " is needed both whole and split, or split two ways");
  }

  // Axis of `to` (right-aligned, broadcasting) for axis `a` of `from`; -1
  // when `to` has no such dim.
  static int AlignedAxis(const std::vector<int64_t>& from, int a, const std::vector<int64_t>& to) {
    return a - static_cast<int>(from.size()) + static_cast<int>(to.size());
  }

  // A broadcast operand: split where it has the rows, whole where it repeats.
  bool AskBroadcast(ValueId x, const std::vector<int64_t>& out, int a) {
    if (a == kWhole) return Ask(x, kWhole);
    const std::vector<int64_t>& s = g_.node(x).sizes;
    const int ax = AlignedAxis(out, a, s);
    return Ask(x, ax < 0 || s[ax] == 1 ? kWhole : ax);
  }

  bool AskInputs(ValueId v) {
    const Node& n = g_.node(v);
    const int a = axis_[v];
    const int rank = static_cast<int>(n.sizes.size());
    if (n.kind == OpKind::kInput || n.kind == OpKind::kConstant) return true;
    if (n.kind == OpKind::kIota) return a != rank - 1 || Fail("an iota split along its index");
    if (IsBinary(n.kind)) return AskBroadcast(n.inputs[0], n.sizes, a) && AskBroadcast(n.inputs[1], n.sizes, a);
    if (IsUnary(n.kind)) return Ask(n.inputs[0], a);
    if (n.kind == OpKind::kWhere) {
      return AskBroadcast(n.inputs[0], n.sizes, a) && AskBroadcast(n.inputs[1], n.sizes, a) &&
             AskBroadcast(n.inputs[2], n.sizes, a);
    }
    if (n.kind == OpKind::kView) {
      if (a == kWhole) return Ask(n.inputs[0], kWhole);
      const int ax = MatchingAxis(n.sizes, a, g_.node(n.inputs[0]).sizes);
      return ax < 0 ? Fail("a view moves the split rows") : Ask(n.inputs[0], ax);
    }
    if (IsRowReduce(n.kind) || IsRowScan(n.kind)) {
      if (a >= 0 && a == rank - 1) return Fail("the rows would be split along a reduced dim");
      return Ask(n.inputs[0], a);
    }
    if (n.kind == OpKind::kMatmul) {
      if (a == kWhole) return Ask(n.inputs[0], kWhole) && Ask(n.inputs[1], kWhole);
      if (a == rank - 1) return Fail("a matmul split along N");
      const ValueId x = n.inputs[0], w = n.inputs[1];
      const int xr = static_cast<int>(g_.node(x).sizes.size());
      if (a == rank - 2) return Ask(x, xr - 2) && Ask(w, kWhole);  // rows of M
      // A batch dim, broadcast as an elementwise operand's (a plain [K, N] weight is whole).
      return AskBroadcast(x, n.sizes, a) && AskBroadcast(w, n.sizes, a);
    }
    return Fail(std::string("no split rule for '") + OpKindName(n.kind) + "'");
  }

  const Graph& g_;
  std::vector<int> axis_;
  std::string why_;
};

std::vector<int64_t> SliceSizes(std::vector<int64_t> sizes, int axis, const RowShare& share) {
  if (axis >= 0) sizes[axis] = share.count;
  return sizes;
}

// The graph program `share` computes, built through the Graph builders (so
// every shape is checked again).
Graph Rebuild(const Graph& g, const AxisPlan& plan, const RowShare& share) {
  Graph out;
  std::vector<ValueId> id(g.nodes().size(), -1);
  for (ValueId v = 0; v < static_cast<ValueId>(g.nodes().size()); ++v) {
    const Node& n = g.nodes()[v];
    const int a = plan.axis(v);
    auto in = [&](size_t i) { return id[n.inputs[i]]; };
    if (n.kind == OpKind::kInput) {
      id[v] = out.Input(n.name, a >= 0 ? SliceDesc(n.desc, a, share.first, share.count) : n.desc);
    } else if (n.kind == OpKind::kConstant) {
      id[v] = out.Constant(n.scalar, n.dtype);
    } else if (IsBinary(n.kind)) {
      id[v] = out.Binary(n.kind, in(0), in(1), n.dtype, n.scalar);
    } else if (n.kind == OpKind::kPowScalar) {
      id[v] = out.Pow(in(0), n.scalar, n.dtype);
    } else if (n.kind == OpKind::kCast) {
      id[v] = out.Cast(in(0), n.dtype);
    } else if (n.kind == OpKind::kWhere) {
      id[v] = out.Where(in(0), in(1), in(2), n.dtype);
    } else if (n.kind == OpKind::kIota) {
      id[v] = out.Iota(SliceSizes(n.sizes, a, share), n.scalar, n.step, n.dtype);
    } else if (IsUnary(n.kind)) {
      id[v] = out.Unary(n.kind, in(0), n.dtype);
    } else if (n.kind == OpKind::kView) {
      id[v] = out.View(in(0), SliceSizes(n.sizes, a, share));
    } else if (IsRowReduce(n.kind)) {
      id[v] = out.RowReduce(n.kind, in(0), n.dtype);
    } else if (IsRowScan(n.kind)) {
      id[v] = out.RowScan(n.kind, in(0), n.dtype);
    } else if (n.kind == OpKind::kMatmul) {
      id[v] = out.Matmul(in(0), in(1), n.dtype);
    } else {
      throw SimError(std::string("codegen: cannot rebuild '") + OpKindName(n.kind) + "' for a program");
    }
  }
  for (const GraphOutput& o : g.outputs()) {
    const int a = MatchingAxis(g.node(o.value).sizes, plan.axis(o.value), o.desc.sizes);
    out.Output(id[o.value], o.name, SliceDesc(o.desc, a, share.first, share.count));
  }
  return out;
}

}  // namespace

RowShare ShareOf(int64_t rows, int program, int programs) {
  const int64_t first = rows * program / programs;
  return {first, rows * (program + 1) / programs - first};
}

TensorDesc SliceDesc(const TensorDesc& d, int axis, int64_t first, int64_t count) {
  if (axis < 0 || axis >= static_cast<int>(d.sizes.size()) || first < 0 || first + count > d.sizes[axis]) {
    throw SimError("codegen: cannot take rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                   ") of axis " + std::to_string(axis) + " of " + d.ToString());
  }
  TensorDesc s = d;
  s.sizes[axis] = count;
  s.offset += first * d.strides[axis];
  return s;
}

int MatchingAxis(const std::vector<int64_t>& from, int axis, const std::vector<int64_t>& to) {
  if (axis < 0 || axis >= static_cast<int>(from.size()) || from[axis] == 1) return -1;
  int before = 0;  // non-1 dims of `from` before `axis`
  for (int i = 0; i < axis; ++i) before += from[i] != 1;
  for (int i = 0; i < static_cast<int>(to.size()); ++i) {
    if (to[i] == 1) continue;
    if (before-- == 0) return to[i] == from[axis] ? i : -1;
  }
  return -1;
}

std::optional<ProgramSplit> SplitRows(const Graph& g, int programs, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<ProgramSplit> {
    if (why != nullptr) *why = w;
    return std::nullopt;
  };
  if (programs < 2) return fail("one program");
  if (g.outputs().empty()) return fail("no outputs");
  const std::vector<int64_t>& sizes = g.node(g.outputs()[0].value).sizes;
  std::string last = "the first output has no axis of " + std::to_string(programs) + " rows or more";
  for (int axis = 0; axis < static_cast<int>(sizes.size()); ++axis) {
    if (sizes[axis] < programs) continue;
    AxisPlan plan(g);
    if (!plan.Plan(axis)) {
      last = plan.why();
      continue;
    }
    ProgramSplit split;
    split.axis = axis;
    split.rows = sizes[axis];
    for (int p = 0; p < programs; ++p) split.programs.push_back(Rebuild(g, plan, ShareOf(split.rows, p, programs)));
    return split;
  }
  return fail(last);
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim

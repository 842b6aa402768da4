// Neuron kernels for reductions: the reduced dims become the innermost dim
// of a [rows..., n] layout (ops/row_layout.h) and VectorE reduces each row
// (tensor_reduce), accumulating in fp32 as the CPU reference does. Rows too
// long for one SBUF tile are reduced in two levels (chunks, then the chunk
// results), which is exact for max and a different fp32 summation order for
// sum and mean.
#include "backend/library.h"
#include "backend/meta/shape_functions.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/op_lowering.h"
#include "backend/neuron/ops/row_layout.h"
#include "backend/reductions.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;
using codegen::Graph;
using codegen::OpKind;
using codegen::ValueId;

std::vector<int64_t> ReducedDims(const at::ReduceMetaResult& r) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < r.reduced.size(); ++d) {
    if (r.reduced[d]) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

// Elements one row may have in SBUF: a quarter of a partition in fp32, so
// the row's input, temporaries and double buffers still fit.
int64_t MaxRow(const rt::NeuronCoreDevice& core) { return core.config().memory.sbuf_bytes_per_partition / 16; }

// The largest divisor of n that is at most `limit` (1 if none is larger).
int64_t ChunkOf(int64_t n, int64_t limit) {
  for (int64_t c = std::min(n, limit); c > 1; --c) {
    if (n % c == 0) return c;
  }
  return 1;
}

// Reduces the last dim of [kept..., n]; a row longer than `max_row` is
// viewed as [kept..., n/chunk, chunk] and reduced twice.
// A row that fits is the op's shared lowering (op_lowering.h) over the row layout.
Graph ReduceGraph(const std::string& op, OpKind kind, const RowLayout& l, const codegen::TensorDesc& out,
                  int64_t max_row) {
  Graph g;
  codegen::TensorDesc x = l.desc;
  const int64_t chunk = ChunkOf(l.n, max_row);
  if (l.n <= max_row || chunk == 1) {
    EagerOperands args(&g, {g.Input("x", x)}, {}, out.dtype, out.sizes);
    g.Output(EmitOp(g, op, args), "out", out);
    return g;
  }
  const int64_t s = x.strides.back();
  x.sizes.back() = l.n / chunk;
  x.strides.back() = s * chunk;
  x.sizes.push_back(chunk);
  x.strides.push_back(s);
  const ValueId parts = g.RowReduce(kind, g.Input("x", x), DType::kF32);  // [kept..., n/chunk, 1]
  std::vector<int64_t> t = x.sizes;
  t[t.size() - 2] = 1;
  t.back() = l.n / chunk;
  g.Output(g.RowReduce(kind, g.View(parts, t), out.dtype), "out", out);  // [kept..., 1, 1]
  return g;
}

// A reduction over no elements launches no kernel (there is nothing to
// read): its result is PyTorch's, 0 for a sum and NaN (0 / 0) for a mean.
// (amax over nothing is an error of its meta function.)
bool FillEmptyReduction(Tensor& out, const at::ReduceMetaResult& r, double value) {
  if (r.count != 0) return false;
  if (out.numel() > 0) out.fill_(value);
  return true;
}

// An op of backend/reduction_ops.def: one generated kernel, its result over
// no elements the CPU reference's (R::Finish of R::Init).
template <class R, OpKind K>
Tensor Reduce(const std::string& op, const Tensor& self, const at::ReduceMetaResult& r) {
  RequireFloat(op, r.out.dtype);
  RequireDeviceType(op, self.dtype());
  Tensor out = at::MakeOutput(r.out);
  if (FillEmptyReduction(out, r, R::template Finish<float>(R::template Init<float>(), 0))) return out;
  const RowLayout l = RowsOver(self, ReducedDims(r));
  const int64_t max_row = MaxRow(CoreOf(self.device()));
  LaunchGraph(op, {{{"x", l.tensor}}, {{"out", out}}},
              [&] { return ReduceGraph(op, K, l, ReducedDesc(l, r.out.dtype), max_row); });
  return out;
}

#define NSIM_REDUCTION_DTYPE(name, Name, overload, kind)                                                     \
  Tensor name(const Tensor& self, const std::optional<at::IntList>& dim, bool keepdim,                      \
              std::optional<at::ScalarType> dtype) {                                                        \
    return Reduce<at::reduction::Name, OpKind::kRow##Name>(                                                 \
        "aten::" #name overload, self, at::ReduceMeta(#name, self, dim, keepdim, dtype, at::ReduceKind::kind)); \
  }
#define NSIM_REDUCTION_PLAIN(name, Name, overload, kind)                                                   \
  Tensor name(const Tensor& self, const at::IntList& dim, bool keepdim) {                                 \
    return Reduce<at::reduction::Name, OpKind::kRow##Name>(                                               \
        "aten::" #name overload, self,                                                                    \
        at::ReduceMeta(#name, self, dim, keepdim, std::nullopt, at::ReduceKind::kind));                   \
  }
#define NSIM_REDUCTION_OP(name, Name, form, overload, kind, ...) NSIM_REDUCTION_##form(name, Name, overload, kind)
#include "backend/reduction_ops.def"
#undef NSIM_REDUCTION_DTYPE
#undef NSIM_REDUCTION_PLAIN

// argmax / argmin along the rows of [kept..., n]: m = the row's max (min),
// which is NaN when the row holds one (VectorE max/min propagate NaN); the
// hits are x == m or NaN; each hit's column index (a GpSimd iota), n
// elsewhere, and the row's min of those is the first hit, as ATen's
// kernels pick it. Indices are exact in fp32 (n <= MaxRow < 2^24); the
// int64 result is written as its two int32 words (the high word 0).
// `values`, when defined, gets m too (max.dim / min.dim).
Graph ArgGraph(OpKind extremum, const RowLayout& l, const Tensor& lo, const Tensor& hi, const Tensor& values) {
  Graph g;
  const ValueId x = g.Input("x", l.desc);
  const ValueId m = g.RowReduce(extremum, x, DType::kF32);
  if (values.defined()) g.Output(g.Cast(m, at::ToSimDType(values.dtype())), "values", DescOf(values));
  const ValueId hit = g.Binary(OpKind::kLogicalOr, g.Binary(OpKind::kEq, x, m, DType::kBool),
                               g.Unary(OpKind::kIsnan, x, DType::kBool), DType::kBool);
  const ValueId index = g.Iota({l.n}, 0, 1, DType::kF32);
  const ValueId first = g.RowReduce(OpKind::kRowAmin, g.Where(hit, index, g.Constant(static_cast<double>(l.n)), DType::kF32),
                                    DType::kF32);
  g.Output(g.Cast(first, DType::kI32), "lo", DescOf(lo));
  g.Output(g.Cast(g.Binary(OpKind::kMul, first, g.Constant(0), DType::kF32), DType::kI32), "hi", DescOf(hi));
  return g;
}

template <bool kMax>
std::tuple<Tensor, Tensor> ArgExtremum(const char* name, const char* overload, const Tensor& self,
                                       std::optional<int64_t> dim, bool keepdim, bool with_values) {
  const std::string op = std::string("aten::") + name + overload;
  RequireFloat(op, self.dtype());
  RequireDeviceType(op, self.dtype());
  const at::ReduceMetaResult r = at::ArgReduceMeta(name, self, dim, keepdim);
  Tensor out = at::MakeOutput(r.out);
  const RowLayout l = RowsOver(self, ReducedDims(r));
  const int64_t max_row = MaxRow(CoreOf(self.device()));
  if (l.n > max_row) {
    throw SimError(op + ": a reduced dim of " + std::to_string(l.n) + " elements is longer than one SBUF row (" +
                   std::to_string(max_row) + ") on the device");
  }
  at::TensorMeta vm = r.out;
  vm.dtype = self.dtype();
  Tensor values = with_values ? at::MakeOutput(vm) : Tensor();
  if (out.numel() == 0) return {values, out};
  const Tensor lo = ReinterpretAs(out, at::kInt, 0), hi = ReinterpretAs(out, at::kInt, 1);
  GraphOperands ops{{{"x", l.tensor}}, {{"lo", lo}, {"hi", hi}}};
  if (with_values) ops.outputs.push_back({"values", values});
  LaunchGraph(op, ops, [&] { return ArgGraph(kMax ? OpKind::kRowAmax : OpKind::kRowAmin, l, lo, hi, values); });
  return {values, out};
}

// cumsum / cumprod along `dim`: the dim moved last ([kept..., n]), one
// VectorE scan per row tile carried in fp32, written back through the same
// permutation of the output. Floating results only (integer sums need
// int64 on the device).
Tensor Scan(const std::string& op, OpKind kind, const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  int64_t d;
  const at::TensorMeta m = at::CumsumMeta(self, dim, dtype, &d);
  RequireFloat(op, m.dtype);
  RequireDeviceType(op, self.dtype());
  Tensor out = at::MakeOutput(m);
  if (out.numel() == 0) return out;
  const Tensor x = self.dtype() == m.dtype ? self : self.to(m.dtype);
  if (self.dim() == 0) return out.copy_(x), out;
  const RowLayout l = RowsOver(x, {d});
  const int64_t max_row = MaxRow(CoreOf(self.device()));
  if (l.n > max_row) {
    throw SimError(op + ": a dim of " + std::to_string(l.n) + " elements is longer than one SBUF row (" +
                   std::to_string(max_row) + ") on the device");
  }
  at::IntList perm;
  for (int64_t i = 0; i < self.dim(); ++i) if (i != d) perm.push_back(i);
  perm.push_back(d);
  const Tensor dst = out.permute(perm);
  LaunchGraph(op, {{{"x", l.tensor}}, {{"out", dst}}}, [&] {
    Graph g;
    codegen::TensorDesc o = DescOf(dst);
    g.Output(g.RowScan(kind, g.Input("x", l.desc), o.dtype), "out", o);
    return g;
  });
  return out;
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  return Scan("aten::cumsum", OpKind::kRowCumsum, self, dim, dtype);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  return Scan("aten::cumprod", OpKind::kRowCumprod, self, dim, dtype);
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(ArgExtremum<true>("argmax", "", self, dim, keepdim, false));
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return std::get<1>(ArgExtremum<false>("argmin", "", self, dim, keepdim, false));
}
std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return ArgExtremum<true>("max", ".dim", self, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim) {
  return ArgExtremum<false>("min", ".dim", self, dim, keepdim, true);
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
  m.impl("argmax", &argmax);
  m.impl("argmin", &argmin);
  m.impl("max.dim", &max_dim);
  m.impl("min.dim", &min_dim);
  m.impl("cumsum", &cumsum);
  m.impl("cumprod", &cumprod);
#define NSIM_REDUCTION_OP(name, Name, form, overload, ...) m.impl(#name overload, &name);
#include "backend/reduction_ops.def"
}

}  // namespace neuron
}  // namespace nsim

// Eager Neuron kernels of composite ops, derived from their one
// decomposition (decompositions.h), so eager, compile() and torch.compile
// run the same maths: the call's decomposition is recorded on its metadata
// as a graph, lowered as compile() lowers a region (lowering.h) into ONE
// fused kernel, cached by (op, argument metadata, constants) and launched
// inside the op's own profiler row.
//
// The one thing known per op is its row form: the dims it works along. The
// lowering reduces along the innermost dim only, so the call is recorded on
// [rows..., n] views of its tensors (neuron/ops/row_layout.h; a copy when
// those dims are not one strided block) with its dim arguments naming that
// last dim, and the kernel writes each result through the matching view.
#include <iomanip>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "backend/compile/decompositions.h"
#include "backend/compile/fake_tensor.h"
#include "backend/compile/graph_printer.h"
#include "backend/compile/lowering.h"
#include "backend/empty_tensor.h"
#include "backend/library.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/ops/row_layout.h"
#include "backend/record_function.h"
#include "sim/base/error.h"

namespace nsim {
namespace compiler {
namespace {

using at::Tensor;
using neuron::RowLayout;

// A tensor the kernel reads: its row form and the memory at its element 0.
struct RowInput {
  ValueMeta meta;
  Tensor memory;  // the argument, or its copy in row order
};

// One call in row form: the arguments the decomposition is recorded with,
// the tensors they read, and where the kernel writes each result.
struct RowCall {
  std::vector<Arg> args;  // a value Arg i is inputs[i]
  std::vector<RowInput> inputs;
  std::vector<cg::TensorDesc> outputs;
};

RowInput Input(const RowLayout& l, const Tensor& t) {
  ValueMeta m;
  m.sizes = l.desc.sizes;
  m.strides = l.desc.strides;
  m.dtype = t.dtype();
  m.device = t.device();
  return {m, l.tensor};
}

std::vector<int64_t> Dims(int64_t from, int64_t to) {
  std::vector<int64_t> dims;
  for (int64_t d = from; d < to; ++d) dims.push_back(d);
  return dims;
}

at::IValue LastDim() { return at::IValue(static_cast<int64_t>(-1)); }

// The dims an op along `dim` of t works over: that dim (none for a 0-dim t).
std::vector<int64_t> Along(const Tensor& t, int64_t dim) {
  return t.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{at::MaybeWrapDim(dim, t.dim())};
}

// softmax.int(self, dim, dtype): along `dim`; the result has self's shape.
RowCall SoftmaxRows(const at::Stack& a, const std::vector<Tensor>& results) {
  const Tensor& x = a[0].toTensor();
  const std::vector<int64_t> dims = Along(x, a[1].toInt());
  const RowLayout l = neuron::RowsOver(x, dims);
  return {{Arg::Value(0), Arg::Constant(LastDim()), Arg::Constant(a[2])},
          {Input(l, x)},
          {neuron::RowsOver(results[0], dims).desc}};
}

// _softmax_backward_data / _log_softmax_backward_data(grad_output, output,
// dim, input_dtype): both tensors along `dim`; the result has their shape.
RowCall SoftmaxBackwardRows(const at::Stack& a, const std::vector<Tensor>& results) {
  const Tensor& g = a[0].toTensor();
  const Tensor& y = a[1].toTensor();
  const std::vector<int64_t> dims = Along(g, a[2].toInt());
  return {{Arg::Value(0), Arg::Value(1), Arg::Constant(LastDim()), Arg::Constant(a[3])},
          {Input(neuron::RowsOver(g, dims), g), Input(neuron::RowsOver(y, dims), y)},
          {neuron::RowsOver(results[0], dims).desc}};
}

// native_layer_norm(input, normalized_shape, weight, bias, eps): along the
// trailing dims; weight and bias have their shape, so they become [n].
RowCall LayerNormRows(const at::Stack& a, const std::vector<Tensor>& results) {
  const Tensor& x = a[0].toTensor();
  const RowLayout l = neuron::RowsOver(x, Dims(x.dim() - static_cast<int64_t>(a[1].toIntList().size()), x.dim()));
  RowCall c{{Arg::Value(0), Arg::Constant(at::IValue(at::IntList{l.n}))},
            {Input(l, x)},
            {neuron::FullDesc(l, results[0].dtype()), neuron::ReducedDesc(l, results[1].dtype()),
             neuron::ReducedDesc(l, results[2].dtype())}};
  for (size_t i : {2, 3}) {
    if (a[i].isNone() || !a[i].toTensor().defined()) {
      c.args.push_back(Arg::Constant(at::IValue()));
      continue;
    }
    const Tensor& p = a[i].toTensor();
    c.args.push_back(Arg::Value(static_cast<int>(c.inputs.size())));
    c.inputs.push_back(Input(neuron::RowsOver(p, Dims(0, p.dim())), p));
  }
  c.args.push_back(Arg::Constant(a[4]));
  return c;
}

// var.correction(self, dim, correction, keepdim): along `dim` (every dim
// when absent or empty); the result is contiguous over the kept dims.
RowCall VarRows(const at::Stack& a, const std::vector<Tensor>& results) {
  const Tensor& x = a[0].toTensor();
  const at::IntList dims = a[1].isNone() ? at::IntList{} : a[1].toIntList();
  const std::vector<bool> mask = at::DimMask(dims, x.dim());
  std::vector<int64_t> reduced;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (dims.empty() || mask[d]) reduced.push_back(d);
  }
  const RowLayout l = neuron::RowsOver(x, reduced);
  return {{Arg::Value(0), Arg::Constant(at::IValue(at::IntList{-1})), Arg::Constant(a[2]), Arg::Constant(at::IValue(true))},
          {Input(l, x)},
          {neuron::ReducedDesc(l, results[0].dtype())}};
}

using RowForm = RowCall (*)(const at::Stack& args, const std::vector<Tensor>& results);

// The composite ops whose eager device kernel is their decomposition.
const std::map<std::string, RowForm>& RowForms() {
  static const auto* forms = new std::map<std::string, RowForm>{
      {"aten::softmax.int", &SoftmaxRows},
      {"aten::_log_softmax", &SoftmaxRows},  // (self, dim, half_to_float): softmax.int's positions
      {"aten::_softmax_backward_data", &SoftmaxBackwardRows},
      {"aten::_log_softmax_backward_data", &SoftmaxBackwardRows},
      {"aten::native_layer_norm", &LayerNormRows},
      {"aten::var.correction", &VarRows},
  };
  return *forms;
}

// What one (op, argument metadata, constants) derives once.
struct Derived {
  std::vector<ValueMeta> results;        // from the op's Meta kernel
  std::optional<LoweredRegion> lowered;  // the kernel's graph, once a call had elements
};

struct Cache {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Derived>> entries;
};

Cache& GetCache() {
  static Cache* c = new Cache;  // never destroyed: ops may run during exit
  return *c;
}

// The op and its arguments: tensors by dtype, sizes and strides (a kernel
// binds element 0, so not by offset), everything else by value.
std::string CallKey(const std::string& op, const at::Stack& args) {
  std::ostringstream os;
  os << std::setprecision(17) << op;
  for (const at::IValue& v : args) {
    os << "|";
    if (v.isTensor() && v.toTensor().defined()) {
      os << FormatMeta(ValueMeta::Of(v.toTensor())) << at::ShapeToString(v.toTensor().strides());
    } else {
      os << v;
    }
  }
  return os.str();
}

// The op's results as its Meta kernel infers them: argument errors are the op's own.
std::vector<ValueMeta> ResultMetas(const at::OperatorHandle& op, const at::Stack& args) {
  at::Stack meta;
  for (const at::IValue& v : args) {
    meta.push_back(v.isTensor() && v.toTensor().defined() ? at::IValue(MetaStandIn(v.toTensor())) : v);
  }
  op.callBoxed(&meta);
  std::vector<ValueMeta> results;
  for (const at::IValue& r : meta) results.push_back(ValueMeta::Of(r.toTensor()));
  return results;
}

LoweredRegion LowerRowCall(const at::OperatorHandle& op, const RowCall& c) {
  std::vector<ValueMeta> inputs;
  for (const RowInput& in : c.inputs) inputs.push_back(in.meta);
  std::optional<Graph> g = RecordDecomposition(op, c.args, inputs);
  if (!g) throw SimError(op.schema().full_name() + " on neuron: its decomposition does not apply to this call");
  try {
    return Lower(*g, &c.outputs);
  } catch (const std::exception& e) {
    throw SimError(op.schema().full_name() + " on neuron: " + e.what());
  }
}

void Launch(const at::OperatorHandle& op, const std::string& key, const LoweredRegion& lowered, const RowCall& c,
            const std::vector<Tensor>& results) {
  rt::Bindings bindings;
  for (const KernelInput& in : lowered.inputs) {
    const Tensor& t = c.inputs[in.placeholder].memory;
    bindings[in.name] = neuron::ElementAddress(t) + static_cast<uint64_t>(in.element_offset * t.element_size());
  }
  for (size_t i = 0; i < results.size(); ++i) bindings[lowered.outputs[i]] = neuron::ElementAddress(results[i]);
  rt::NeuronCoreDevice& core = neuron::CoreOf(results.front().device());
  neuron::LaunchPrograms(core, key, [&] {
    neuron::codegen::GenerateOptions options;
    options.kernel_name = neuron::KernelName(op.schema().full_name());
    return neuron::GenerateForCore(lowered.graph, core, options);
  }, bindings);
}

bool AnyEmpty(const at::Stack& args, const std::vector<Tensor>& results) {
  for (const at::IValue& v : args) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().numel() == 0) return true;
  }
  for (const Tensor& t : results) {
    if (t.numel() == 0) return true;
  }
  return false;
}

void RunDerived(const at::OperatorHandle& op, at::Stack* stack) {
  const std::string& name = op.schema().full_name();
  const size_t first = stack->size() - op.schema().arguments().size();
  const at::Stack args(stack->begin() + static_cast<std::ptrdiff_t>(first), stack->end());
  const std::string key = CallKey(name, args);
  Cache& cache = GetCache();
  Derived* d = nullptr;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) d = it->second.get();
  }
  if (d == nullptr) {
    auto made = std::make_unique<Derived>();
    {
      at::UnobservedScope quiet;  // inferring the results is no op of the program
      made->results = ResultMetas(op, args);
    }
    std::lock_guard<std::mutex> lock(cache.mu);
    d = cache.entries.emplace(key, std::move(made)).first->second.get();
  }
  const at::Device device = args[0].toTensor().device();
  for (const at::IValue& v : args) {
    if (v.isTensor() && v.toTensor().defined()) neuron::RequireDeviceType(name, v.toTensor().dtype());
  }
  std::vector<Tensor> results;
  for (const ValueMeta& m : d->results) {
    neuron::RequireFloat(name, m.dtype);  // the decompositions compute in floating point
    results.push_back(at::EmptyTensor(m.sizes, m.dtype, device));
  }
  if (AnyEmpty(args, results)) {
    // Nothing for a kernel to read or write: each op of the decomposition
    // gives its own result over no elements (a mean's NaN, a sum's 0).
    FindDecomposition(op, *stack)->callBoxed(op, stack);
    return;
  }
  const RowCall c = RowForms().at(name)(args, results);
  const LoweredRegion* lowered = nullptr;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (!d->lowered) {
      at::UnobservedScope quiet;  // recording the decomposition is no op of the program
      d->lowered = LowerRowCall(op, c);
    }
    lowered = &*d->lowered;
  }
  Launch(op, "decomposed|" + key, *lowered, c, results);
  stack->resize(first);
  for (Tensor& t : results) stack->emplace_back(std::move(t));
}

}  // namespace

NSIM_LIBRARY_IMPL(aten, Neuron, m) {
  for (const auto& [name, form] : RowForms()) {
    m.impl(name.substr(name.find("::") + 2), at::KernelFunction::FromBoxed(&RunDerived));
  }
}

}  // namespace compiler
}  // namespace nsim

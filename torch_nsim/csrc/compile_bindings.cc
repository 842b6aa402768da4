// torch.compile(backend="neuron") reaches the simulator here: Python
// (torch_nsim/compiler.py) rebuilds each FX graph that AOTAutograd produced
// as the simulator's compile() graph (backend/compile/graph.h), node by
// node, and hands it to the same "neuron" CompilerBackend that nsim's C++
// compile() uses: the same lowering rules, the same fusion code generator,
// one kernel per graph, one execution per call.
#include <torch/csrc/Device.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/Dtype.h>
#include <torch/extension.h>

#include "backend/compile/compiler_backend.h"
#include "backend/compile/decompositions.h"
#include "backend/factories.h"
#include "backend/tensor_impl.h"
#include "torch_nsim/csrc/bridge.h"

namespace torch_nsim {
namespace {

namespace nat = nsim::at;
namespace nc = nsim::compiler;

nat::IntList Ints(const py::sequence& s) {
  nat::IntList out;
  for (const auto& v : s) out.push_back(v.cast<int64_t>());
  return out;
}

nat::ScalarType DtypeOf(const py::object& o, const std::string& what) {
  TORCH_CHECK(THPDtype_Check(o.ptr()), what, ": expected a torch.dtype");
  return ToNsim(reinterpret_cast<THPDtype*>(o.ptr())->scalar_type, what);
}

nc::ValueMeta Meta(const py::sequence& sizes, const py::sequence& strides, int64_t offset, const py::object& dtype,
                   int device, const std::string& what) {
  nc::ValueMeta m;
  m.sizes = Ints(sizes);
  m.strides = Ints(strides);
  m.storage_offset = offset;
  m.dtype = DtypeOf(dtype, what);
  m.device = nat::Device(nat::kNeuron, static_cast<int8_t>(device));
  return m;
}

nat::Scalar ScalarOf(const py::handle& o) {
  if (py::isinstance<py::bool_>(o)) return nat::Scalar(o.cast<bool>());
  if (py::isinstance<py::int_>(o)) return nat::Scalar(o.cast<int64_t>());
  return nat::Scalar(o.cast<double>());
}

// A Python constant of an FX node as the nsim argument of schema type `t`.
nc::Arg Constant(const py::handle& o, nat::ArgType t, const std::string& what) {
  using T = nat::ArgType;
  if (o.is_none()) return nc::Arg::Constant(nat::IValue());
  switch (t) {
    case T::Tensor:
    case T::OptionalTensor: {  // a Python number where a tensor goes: a wrapped 0-dim CPU tensor (an immediate)
      const nat::Scalar s = ScalarOf(o);
      const nat::ScalarType dtype = s.isFloatingPoint() ? nat::kFloat : (s.isBoolean() ? nat::kBool : nat::kInt);
      nat::Tensor scalar = nat::full({}, s, nat::TensorOptions().dtype(dtype));
      scalar.unsafeGetTensorImpl()->set_wrapped_number(true);
      return nc::Arg::ScalarTensor(scalar);
    }
    case T::Scalar:
    case T::OptionalScalar: return nc::Arg::Constant(nat::IValue(ScalarOf(o)));
    case T::Float:
    case T::OptionalFloat: return nc::Arg::Constant(nat::IValue(o.cast<double>()));
    case T::Int:
    case T::OptionalInt: return nc::Arg::Constant(nat::IValue(o.cast<int64_t>()));
    case T::Bool: return nc::Arg::Constant(nat::IValue(o.cast<bool>()));
    case T::IntList:
    case T::OptionalIntList: return nc::Arg::Constant(nat::IValue(Ints(o.cast<py::sequence>())));
    case T::ScalarType:
    case T::OptionalScalarType: return nc::Arg::Constant(nat::IValue(DtypeOf(py::reinterpret_borrow<py::object>(o), what)));
    case T::Device:
    case T::OptionalDevice:
      return nc::Arg::Constant(nat::IValue(ToNsim(reinterpret_cast<THPDevice*>(o.ptr())->device)));
    case T::String: return nc::Arg::Constant(nat::IValue(o.cast<std::string>()));
  }
  TORCH_CHECK(false, what, ": unsupported argument");
}

// A recorded constant as Python: what the same torch op takes.
py::object ToPython(const nat::IValue& v) {
  if (v.isNone()) return py::none();
  if (v.isBool()) return py::bool_(v.toBool());
  if (v.isInt()) return py::int_(v.toInt());
  if (v.isDouble()) return py::float_(v.toDouble());
  if (v.isIntList()) return py::cast(v.toIntList());
  if (v.isScalarType()) {
    return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(torch::getTHPDtype(FromNsim(v.toScalarType()))));
  }
  if (v.isString()) return py::str(v.toStringRef());
  TORCH_CHECK(false, "torch_nsim: a decomposition recorded an unsupported constant ", v.tagName());
}

// The C++ decomposition of op_name (backend/compile/decompositions.h) for
// `args`, one per nsim schema argument: ("t", sizes, strides, offset, dtype,
// device index) for a tensor, ("c", value) otherwise. Returns None when the
// op is not decomposed, else (calls, outputs): each call is (op name, args,
// result ids) with args ("v", id) or ("c", value); ids 0.. are the tensor
// arguments in order, then each call's results.
py::object Decomposition(const std::string& op_name, const py::list& args) {
  std::optional<nat::OperatorHandle> op = nat::Dispatcher::Singleton().findSchema(op_name);
  TORCH_CHECK(op, op_name, ": not an nsim op");
  const auto& schema_args = op->schema().arguments();
  TORCH_CHECK(args.size() == schema_args.size(), op_name, ": expected ", schema_args.size(), " arguments");
  std::vector<nc::Arg> nargs;
  std::vector<nc::ValueMeta> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    const py::tuple a = args[i].cast<py::tuple>();
    if (a[0].cast<std::string>() == "t") {
      nargs.push_back(nc::Arg::Value(static_cast<int>(inputs.size())));
      inputs.push_back(Meta(a[1], a[2], a[3].cast<int64_t>(), py::reinterpret_borrow<py::object>(a[4]),
                            a[5].cast<int>(), op_name));
    } else {
      nargs.push_back(Constant(a[1], schema_args[i].type, op_name));
    }
  }
  std::optional<nc::Graph> g;
  try {
    g = nc::RecordDecomposition(*op, nargs, inputs);
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw std::invalid_argument(e.what());
  }
  if (!g) return py::none();
  py::list calls;
  for (const nc::Graph::Call& c : g->calls()) {
    py::list cargs;
    for (const nc::Arg& a : c.args) {
      if (a.is_value()) {
        cargs.append(py::make_tuple("v", a.value));
      } else if (a.kind == nc::Arg::Kind::kScalarTensor) {
        cargs.append(py::make_tuple("c", ToPython(nat::IValue(a.constant.toTensor().item()))));
      } else {
        cargs.append(py::make_tuple("c", ToPython(a.constant)));
      }
    }
    calls.append(py::make_tuple(c.op.schema().full_name(), cargs, c.outputs));
  }
  return py::make_tuple(calls, g->outputs());
}

class Executor {
 public:
  explicit Executor(std::unique_ptr<nc::RegionExecutor> e) : e_(std::move(e)) {}
  std::vector<at::Tensor> Run(const std::vector<at::Tensor>& inputs) {
    std::vector<nat::Tensor> in;
    for (const at::Tensor& t : inputs) in.push_back(ToNsim(t, "torch.compile(backend='neuron')"));
    std::vector<at::Tensor> out;
    for (const nat::Tensor& t : e_->Run(in)) out.push_back(FromNsim(t));
    return out;
  }

 private:
  std::unique_ptr<nc::RegionExecutor> e_;
};

class RegionBuilder {
 public:
  int Placeholder(const std::string& name, const py::sequence& sizes, const py::sequence& strides, int64_t offset,
                  const py::object& dtype, int device) {
    return g_.AddPlaceholder(name, Meta(sizes, strides, offset, dtype, device, name));
  }

  // args: one per nsim schema argument, each ("v", value id) or ("c", constant).
  // Returns the result ids, or raises with the reason the backend cannot
  // compile the op (the caller decides: graph break or error).
  std::vector<int> Call(const std::string& op_name, const py::list& args, const py::list& results,
                        const std::string& base) {
    std::optional<nat::OperatorHandle> op = nat::Dispatcher::Singleton().findSchema(op_name);
    if (!op) throw std::invalid_argument(op_name + ": the neuron compiler has no such op");
    const auto& schema_args = op->schema().arguments();
    if (args.size() != schema_args.size()) {
      throw std::invalid_argument(op_name + ": expected " + std::to_string(schema_args.size()) + " arguments, got " +
                                  std::to_string(args.size()));
    }
    std::vector<nc::Arg> nargs;
    for (size_t i = 0; i < args.size(); ++i) {
      const py::tuple a = args[i].cast<py::tuple>();
      if (a[0].cast<std::string>() == "v") {
        nargs.push_back(nc::Arg::Value(a[1].cast<int>()));
      } else {
        nargs.push_back(Constant(a[1], schema_args[i].type, op_name));
      }
    }
    std::vector<nc::ValueMeta> metas;
    for (const auto& r : results) {
      const py::tuple t = r.cast<py::tuple>();
      metas.push_back(Meta(t[0], t[1], t[2].cast<int64_t>(), py::reinterpret_borrow<py::object>(t[3]), device_, op_name));
    }
    std::vector<int> outs = g_.AddCall(*op, std::move(nargs), std::move(metas), base);
    if (auto why = Backend().Unsupported(g_, g_.calls().back())) {
      g_.PopCall();
      throw std::invalid_argument(op_name + ": " + *why);
    }
    return outs;
  }

  void SetOutputs(const std::vector<int>& outputs) { g_.SetOutputs(outputs); }
  void SetDevice(int device) { device_ = device; }

  Executor Compile(const std::string& name) {
    try {
      return Executor(Backend().Compile(g_, name));
    } catch (const c10::Error&) {
      throw;
    } catch (const std::exception& e) {
      throw std::runtime_error(e.what());
    }
  }

 private:
  static const nc::CompilerBackend& Backend() { return nc::GetBackend("neuron"); }
  nc::Graph g_;
  int device_ = 0;
};

}  // namespace

void RegisterCompileBindings(py::module& m) {
  py::class_<Executor>(m, "CompiledRegion").def("run", &Executor::Run);
  py::class_<RegionBuilder>(m, "RegionBuilder")
      .def(py::init<>())
      .def("set_device", &RegionBuilder::SetDevice)
      .def("placeholder", &RegionBuilder::Placeholder)
      .def("call", &RegionBuilder::Call)
      .def("set_outputs", &RegionBuilder::SetOutputs)
      .def("compile", &RegionBuilder::Compile);
  m.def("decomposition", &Decomposition);
  m.def("decomposed_ops", &nc::DecomposedOps);
  m.def("nsim_schema_args", [](const std::string& op_name) {
    std::optional<nat::OperatorHandle> op = nat::Dispatcher::Singleton().findSchema(op_name);
    std::vector<std::string> names;
    if (op) {
      for (const auto& a : op->schema().arguments()) names.push_back(a.name);
    }
    return py::make_tuple(op.has_value(), names);
  });
}

}  // namespace torch_nsim

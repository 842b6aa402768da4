#include "backend/compile/lowering.h"

#include <map>

#include "backend/compile/graph_printer.h"
#include "backend/shape.h"
#include "sim/base/error.h"

namespace nsim {
namespace compiler {
namespace {

// Whether `out` lists the elements of `in` in the same row order (a reshape, size-1 dims aside).
bool IsReshape(const ValueMeta& in, const ValueMeta& out) {
  bool ok = true;
  const at::IntList strides = at::ComputeViewStrides(in.sizes, in.strides, out.sizes, &ok);
  if (!ok || in.storage_offset != out.storage_offset) return false;
  for (size_t d = 0; d < out.sizes.size(); ++d) {
    if (out.sizes[d] != 1 && strides[d] != out.strides[d]) return false;
  }
  return true;
}

class Lowerer : public LowerContext {
 public:
  Lowerer(const Graph& g, const std::vector<cg::TensorDesc>* output_descs)
      : g_(g), output_descs_(output_descs), entries_(g.values().size()) {}

  LoweredRegion Run() {
    for (size_t i = 0; i < g_.placeholders().size(); ++i) {
      const int v = g_.placeholders()[i].value;
      entries_[v] = Entry{-1, static_cast<int>(i), g_.value(v).meta};
    }
    for (const Graph::Call& c : g_.calls()) LowerCall(c);
    for (size_t i = 0; i < g_.outputs().size(); ++i) AddOutput(g_.outputs()[i], i);
    return std::move(out_);
  }

  cg::Graph& graph() override { return out_.graph; }
  const Graph& source() const override { return g_; }

  cg::ValueId Operand(const Graph::Call& call, size_t i) override {
    const Arg& a = call.args[i];
    if (a.is_value()) return Read(a.value);
    if (a.kind == Arg::Kind::kScalarTensor) return out_.graph.Constant(a.scalar_value());
    return out_.graph.Constant(a.constant.toDouble());
  }

 private:
  // An ATen value: a codegen value, or a view of a region input not read yet.
  struct Entry {
    cg::ValueId id = -1;
    int placeholder = -1;
    ValueMeta view;
  };

  // A view of an input is read straight from HBM: a kernel input per
  // distinct view, bound to the input's memory at the view's offset.
  cg::ValueId Read(int v) {
    Entry& e = entries_[v];
    if (e.id >= 0) return e.id;
    const std::string key = std::to_string(e.placeholder) + FormatMeta(e.view) + at::ShapeToString(e.view.strides);
    auto it = input_ids_.find(key);
    if (it != input_ids_.end()) return e.id = it->second;
    const std::string name = "in" + std::to_string(out_.inputs.size());
    const ValueMeta& base = g_.value(g_.placeholders()[e.placeholder].value).meta;
    out_.inputs.push_back(KernelInput{name, e.placeholder, e.view.storage_offset - base.storage_offset});
    e.id = out_.graph.Input(name, cg::TensorDesc{at::ToSimDType(e.view.dtype), e.view.sizes, e.view.strides, 0});
    return input_ids_[key] = e.id;
  }

  void LowerCall(const Graph::Call& c) {
    if (std::optional<std::string> why = WhyNotLowerable(g_, c)) {
      throw SimError("cannot lower " + c.op.schema().full_name() + ": " + *why);
    }
    const LoweringRule& rule = *FindLoweringRule(c.op);
    const int in = c.args[0].is_value() ? c.args[0].value : -1;
    const int result = c.outputs[0];
    switch (rule.kind) {
      case LoweringRule::Kind::kIdentity:
        if (entries_[in].id < 0 && !KeepsLayout(g_, c)) {
          entries_[result].id = Read(in);  // materialised in row order: views of it are codegen views
        } else {
          entries_[result] = entries_[in];
        }
        break;
      case LoweringRule::Kind::kView: {
        const Entry& src = entries_[in];
        const ValueMeta& view = g_.value(result).meta;
        // A value already read is kept in row order, so only a reshape of it is a codegen view; a
        // transpose, broadcast or slice of an input reads the input again through its strides.
        if (src.id < 0 || (src.placeholder >= 0 && !IsReshape(g_.value(in).meta, view))) {
          entries_[result] = Entry{-1, src.placeholder, view};
        } else {
          entries_[result].id = out_.graph.View(src.id, view.sizes);
        }
        break;
      }
      case LoweringRule::Kind::kCompute:
        entries_[result].id = rule.lower(*this, c);
        break;
    }
  }

  void AddOutput(int v, size_t i) {
    const ValueMeta& m = g_.value(v).meta;
    const DType dtype = at::ToSimDType(m.dtype);
    cg::ValueId id = Read(v);
    // The kernel cannot hand back its input's memory: copy (cast to the same dtype).
    if (out_.graph.node(id).kind == cg::OpKind::kInput) id = out_.graph.Cast(id, dtype);
    const std::string name = "out" + std::to_string(out_.outputs.size());
    out_.graph.Output(id, name, output_descs_ ? output_descs_->at(i) : cg::TensorDesc::Contiguous(dtype, m.sizes));
    out_.outputs.push_back(name);
  }

  const Graph& g_;
  const std::vector<cg::TensorDesc>* output_descs_;
  std::vector<Entry> entries_;
  std::map<std::string, cg::ValueId> input_ids_;
  LoweredRegion out_;
};

}  // namespace

std::optional<std::string> WhyNotLowerable(const Graph& g, const Graph::Call& call) {
  for (int v : call.outputs) {
    if (g.value(v).meta.device.type() != at::kNeuron) {
      return "the neuron backend compiles tensors on a neuron device, not on " + g.value(v).meta.device.str();
    }
  }
  const LoweringRule* rule = FindLoweringRule(call.op);
  if (rule == nullptr) return std::string("the neuron backend has no lowering for it");
  if (call.outputs.size() != 1) return std::string("the neuron backend lowers single-result ops only");
  return rule->check != nullptr ? rule->check(g, call) : std::nullopt;
}

LoweredRegion Lower(const Graph& g, const std::vector<cg::TensorDesc>* output_descs) {
  return Lowerer(g, output_descs).Run();
}

}  // namespace compiler
}  // namespace nsim

// neuron::all_reduce_: the schema (device_check off: its tensors live on
// different devices on purpose) and its Neuron kernel on the runtime's
// AllReduce.
#include <set>
#include <string>

#include "backend/dispatcher.h"
#include "backend/library.h"
#include "backend/neuron/collectives.h"
#include "backend/neuron/device_glue.h"
#include "backend/neuron/hbm_tensor.h"
#include "runtime/runtime.h"
#include "sim/base/error.h"

namespace nsim {
namespace neuron {
namespace {

using at::Tensor;

constexpr const char* kAllReduce = "neuron::all_reduce_";

[[noreturn]] void Fail(const std::string& why) { throw SimError(std::string(kAllReduce) + ": " + why); }

// One tensor per device, alike, each its device's own contiguous memory.
void CheckAllReduceOperands(const std::vector<Tensor>& tensors) {
  if (tensors.size() < 2) Fail("needs one tensor per device, at least 2; got " + std::to_string(tensors.size()));
  std::set<int> devices;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    const std::string which = "tensor " + std::to_string(i);
    if (!t.defined()) Fail(which + " is undefined");
    if (t.device().type() != at::kNeuron) Fail(which + " is on " + t.device().str() + ", not a neuron device");
    if (!devices.insert(CoreIndex(t.device())).second) Fail(which + ": two tensors on " + t.device().str());
    if (t.sizes() != tensors[0].sizes() || t.dtype() != tensors[0].dtype()) {
      Fail(which + " is " + at::ToString(t.dtype()) + at::ShapeToString(t.sizes()) + ", tensor 0 is " +
           at::ToString(tensors[0].dtype()) + at::ShapeToString(tensors[0].sizes()));
    }
    if (!t.is_contiguous()) Fail(which + " is not contiguous");
  }
  RequireFloat(kAllReduce, tensors[0].dtype());
}

void all_reduce_(const std::vector<Tensor>& tensors) {
  CheckAllReduceOperands(tensors);
  if (tensors[0].numel() == 0) return;
  std::vector<rt::CollectiveBuffer> buffers;
  for (const Tensor& t : tensors) buffers.push_back({CoreIndex(t.device()), ElementAddress(t)});
  const int stream = CurrentStream(CoreIndex(tensors[0].device()));
  rt::Runtime::Get().AllReduce(buffers, tensors[0].numel(), at::ToSimDType(tensors[0].dtype()), stream);
}

}  // namespace

void AllReduce_(const std::vector<Tensor>& tensors) {
  static const auto op = at::FindOp<void(const std::vector<Tensor>&)>(kAllReduce);
  op.call(tensors);
}

}  // namespace neuron
}  // namespace nsim

NSIM_LIBRARY(neuron, m) { m.def("all_reduce_(Tensor(a!)[] tensors) -> ()", nsim::at::DeviceCheck::kNoCheck); }

NSIM_LIBRARY_IMPL(neuron, Neuron, m) { m.impl("all_reduce_", &nsim::neuron::all_reduce_); }

#include "backend/neuron/device_glue.h"

#include <map>
#include <vector>

#include "backend/allocator.h"
#include "backend/copy_registry.h"
#include "backend/neuron/hbm_copy_kernel.h"
#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/record_function.h"
#include "runtime/runtime.h"

namespace nsim {
namespace neuron {
namespace {

// ---------------------------------------------------------------- memory

class HbmAllocator : public at::DeviceAllocator {
 public:
  at::DataPtr Allocate(size_t nbytes, at::Device device) override {
    const int index = CoreIndex(device);
    const uint64_t address = rt::Runtime::Get().core(index).Allocate(nbytes);
    return at::DataPtr(reinterpret_cast<void*>(address), [index](void* p) { Release(index, p); });
  }

 private:
  // Deleters must not throw; a core destroyed by Runtime::Reset (tests)
  // took its memory with it.
  static void Release(int index, void* p) {
    try {
      if (rt::Runtime::Get().HasCore(index)) rt::Runtime::Get().core(index).Free(reinterpret_cast<uint64_t>(p));
    } catch (...) {
    }
  }
};

// ---------------------------------------------------------------- copies

uint64_t Address(const void* base, size_t offset) { return reinterpret_cast<uint64_t>(base) + offset; }

void HostToDevice(const at::CopyRequest& r) {
  CoreOf(r.dst_device).CopyToDevice(Address(r.dst_base, r.dst_offset),
                                    static_cast<const char*>(r.src_base) + r.src_offset, r.nbytes,
                                    CurrentStream(CoreIndex(r.dst_device)), CurrentCorrelationId());
}

void DeviceToHost(const at::CopyRequest& r) {
  CoreOf(r.src_device).CopyFromDevice(static_cast<char*>(r.dst_base) + r.dst_offset,
                                      Address(r.src_base, r.src_offset), r.nbytes,
                                      CurrentStream(CoreIndex(r.src_device)), CurrentCorrelationId());
}

void DeviceToDevice(const at::CopyRequest& r) {
  const uint64_t src = Address(r.src_base, r.src_offset), dst = Address(r.dst_base, r.dst_offset);
  if (CoreIndex(r.src_device) != CoreIndex(r.dst_device) || r.nbytes % 2 != 0) {
    // Between cores, or bytes the DMA cannot move as whole elements: via the host.
    std::vector<char> staging(r.nbytes);
    CoreOf(r.src_device).CopyFromDevice(staging.data(), src, r.nbytes);
    CoreOf(r.dst_device).CopyToDevice(dst, staging.data(), r.nbytes);
    return;
  }
  Launch(CoreOf(r.dst_device), "hbm_copy|" + std::to_string(r.nbytes), [&] { return HbmCopyKernel(r.nbytes); },
         {{"src", src}, {"dst", dst}});
}

// ---------------------------------------------------------------- host time

int CoreOfCall(const at::OpCall& call) {
  for (const at::IValue& v : *call.inputs) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().device().type() == at::kNeuron) {
      return CoreIndex(v.toTensor().device());
    }
    if (v.isDevice() && v.toDevice().type() == at::kNeuron) return CoreIndex(v.toDevice());
  }
  return 0;
}

thread_local std::vector<uint64_t> t_neuron_ops;  // correlation ids of the Neuron-key ops open on this thread
thread_local std::map<int, int> t_streams;        // core -> current stream, where not the default

class FrameworkHostCost : public at::HostCostModel, public at::OpObserver {
 public:
  Picos DispatchCost(const at::OpCall& call) override {
    if (call.depth > 0) return 0;
    return rt::Runtime::Get().core(CoreOfCall(call)).config().host.framework_dispatch_ps;
  }
  void OnOpBegin(const at::OpCall& call) override {
    if (call.key == at::DispatchKey::Neuron) t_neuron_ops.push_back(call.correlation_id);
  }
  void OnOpEnd(const at::OpCall& call) override {
    if (call.key == at::DispatchKey::Neuron && !t_neuron_ops.empty()) t_neuron_ops.pop_back();
  }
};

bool Register() {
  static HbmAllocator allocator;
  static FrameworkHostCost cost;
  at::SetDeviceAllocator(at::kNeuron, &allocator);
  at::SetCopyFunction(at::kCPU, at::kNeuron, &HostToDevice);
  at::SetCopyFunction(at::kNeuron, at::kCPU, &DeviceToHost);
  at::SetCopyFunction(at::kNeuron, at::kNeuron, &DeviceToDevice);
  at::SetHostCostModel(&cost);
  at::AddOpObserver(&cost);
  return true;
}

const bool g_registered = Register();

}  // namespace

void Synchronize(const at::Device& device) { CoreOf(device).Synchronize(); }

uint64_t CurrentCorrelationId() { return t_neuron_ops.empty() ? 0 : t_neuron_ops.back(); }

}  // namespace neuron
}  // namespace nsim

namespace nsim {
namespace neuron {

int CurrentStream(int core) {
  auto it = t_streams.find(core);
  return it == t_streams.end() ? rt::NeuronCoreDevice::kDefaultStream : it->second;
}

void SetCurrentStream(int core, int stream) { t_streams[core] = stream; }

}  // namespace neuron
}  // namespace nsim

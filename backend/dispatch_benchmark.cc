// The frontend's own real CPU cost per dispatched op (no simulation): key
// selection, kernel lookup, the observer branch, and for the CPU key a tiny
// reference kernel. Run with: bazel run -c opt //backend:dispatch_benchmark
#include <cstring>

#include <benchmark/benchmark.h>

#include "backend/allocator.h"
#include "backend/copy_registry.h"
#include "backend/dispatcher.h"
#include "backend/factories.h"
#include "backend/library.h"
#include "backend/ops.h"
#include "backend/record_function.h"

namespace nsim {
namespace at {
namespace {

// mul of two 2-element CPU tensors: dispatch + allocation + a 2-element loop.
void BM_Dispatch_MulCpu(benchmark::State& state) {
  const Tensor a = ones({2}), b = ones({2});
  for (auto _ : state) benchmark::DoNotOptimize(a * b);
}
BENCHMARK(BM_Dispatch_MulCpu);

// The same on meta tensors: dispatch + shape function, no data.
void BM_Dispatch_MulMeta(benchmark::State& state) {
  const Tensor a = empty({4, 512}, Device(kMeta)), b = empty({512}, Device(kMeta));
  for (auto _ : state) benchmark::DoNotOptimize(a * b);
}
BENCHMARK(BM_Dispatch_MulMeta);

// A view: dispatch + metadata only.
void BM_Dispatch_Transpose(benchmark::State& state) {
  const Tensor a = ones({4, 8});
  for (auto _ : state) benchmark::DoNotOptimize(a.transpose(0, 1));
}
BENCHMARK(BM_Dispatch_Transpose);

// The boxed path: what a tracer or fallback pays.
void BM_Dispatch_MulMetaBoxed(benchmark::State& state) {
  const Tensor a = empty({4, 512}, Device(kMeta)), b = empty({512}, Device(kMeta));
  const OperatorHandle op = Dispatcher::Singleton().findSchemaOrThrow("aten::mul.Tensor");
  for (auto _ : state) {
    Stack s = {IValue(a), IValue(b)};
    op.callBoxed(&s);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_Dispatch_MulMetaBoxed);

// With an observer registered: boxing the inputs and two callbacks.
class NullObserver : public OpObserver {
  void OnOpBegin(const OpCall&) override {}
  void OnOpEnd(const OpCall&) override {}
};
void BM_Dispatch_MulMetaObserved(benchmark::State& state) {
  const Tensor a = empty({4, 512}, Device(kMeta)), b = empty({512}, Device(kMeta));
  NullObserver obs;
  AddOpObserver(&obs);
  for (auto _ : state) benchmark::DoNotOptimize(a * b);
  RemoveOpObserver(&obs);
}
BENCHMARK(BM_Dispatch_MulMetaObserved);

// A Neuron-key op whose kernel does nothing (host memory stands in for the
// device): the pure dispatch cost, then `x + 1e-6`, which adds the scalar's
// lift to the device (aten::to -> _to_copy -> empty + copy_, four more ops).
class HostBackedAllocator : public DeviceAllocator {
 public:
  DataPtr Allocate(size_t n, Device d) override { return GetDeviceAllocator(kCPU).Allocate(n, d); }
};
void MemCopy(const CopyRequest& r) {
  std::memcpy(static_cast<char*>(r.dst_base) + r.dst_offset,
              static_cast<const char*>(r.src_base) + r.src_offset, r.nbytes);
}
Tensor FirstArg(const Tensor& a, const Tensor&, const Scalar&) { return a; }

struct FakeNeuron {
  FakeNeuron() : lib(Library::Kind::IMPL, "aten", DispatchKey::Neuron, __FILE__, __LINE__) {
    SetDeviceAllocator(kNeuron, &alloc);
    SetCopyFunction(kCPU, kNeuron, &MemCopy);
    lib.impl("add.Tensor", &FirstArg);
  }
  ~FakeNeuron() {
    SetDeviceAllocator(kNeuron, nullptr);
    SetCopyFunction(kCPU, kNeuron, nullptr);
  }
  HostBackedAllocator alloc;
  Library lib;
};

void BM_Dispatch_AddNeuronNoOpKernel(benchmark::State& state) {
  FakeNeuron fake;
  const Tensor x = ones({4, 512}, Device("neuron:0"));
  for (auto _ : state) benchmark::DoNotOptimize(add(x, x));
}
BENCHMARK(BM_Dispatch_AddNeuronNoOpKernel);

void BM_Dispatch_AddPythonScalarNeuron(benchmark::State& state) {
  FakeNeuron fake;
  const Tensor x = ones({4, 512}, Device("neuron:0"));
  for (auto _ : state) benchmark::DoNotOptimize(x + 1e-6);
}
BENCHMARK(BM_Dispatch_AddPythonScalarNeuron);

}  // namespace
}  // namespace at
}  // namespace nsim

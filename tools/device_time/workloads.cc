#include "tools/device_time/workloads.h"

#include <memory>

#include "backend/compile/compile.h"
#include "backend/factories.h"
#include "backend/ops.h"
#include "runtime/runtime.h"

namespace nsim {
namespace gate {
namespace {

using at::Tensor;

// Runs `body` on core 0 of a fresh runtime configured with `config` and
// returns the summed device time of the kernel executions it issued.
Picos RunOnDevice(const std::string& config, bool timing_only, const std::function<void(at::Device)>& body) {
  rt::Runtime& runtime = rt::Runtime::Get();
  runtime.Reset();
  runtime.Configure(config);
  runtime.set_timing_only(timing_only);
  rt::NeuronCoreDevice& core = runtime.core(0);
  body(at::Device("neuron:0"));
  core.Synchronize();
  Picos total = 0;
  for (const rt::ExecutionHandle& h : core.records()) {
    if (!h->is_copy()) total += h->result->device_time;
  }
  runtime.Reset();
  return total;
}

at::TensorOptions Bf16() { return at::TensorOptions().dtype(at::ScalarType::BFloat16); }

Tensor RmsNormOpByOp(const Tensor& x, const Tensor& w) { return x * at::rsqrt((x * x).mean({-1}, true) + 1e-6) * w; }

Tensor SoftmaxOpByOp(const Tensor& x) {
  const Tensor e = at::exp(x - x.amax({-1}, true));
  return e / e.sum({-1}, true);
}

// The steps are named so the tracer sees them in one order whatever the
// compiler: C++ leaves the evaluation order of an operator's operands
// unspecified (gcc evaluates `a * b`'s right operand first, clang the left),
// and the fused kernel is scheduled in graph order. x@w3 first, as the
// goldens were recorded with gcc.
Tensor Mlp(const Tensor& x, const Tensor& w1, const Tensor& w3, const Tensor& w2) {
  const Tensor up = at::matmul(x, w3);
  const Tensor gate = at::silu(at::matmul(x, w1));
  return at::matmul(gate * up, w2);
}

Workload RmsNorm(const std::string& path, std::vector<int64_t> shape, const std::string& config) {
  const std::string name = "rmsnorm/" + path + "/" + std::to_string(shape[0]) + "x" + std::to_string(shape[1]);
  return {name, config, [path, shape](const std::string& cfg, bool timing_only) {
            return RunOnDevice(cfg, timing_only, [&](at::Device d) {
              const Tensor x = at::randn(shape, 0, Bf16()).to(d), w = at::randn({shape[1]}, 1, Bf16()).to(d);
              if (path == "op_by_op") {
                RmsNormOpByOp(x, w);
              } else if (path == "rms_norm") {
                at::rms_norm(x, {shape[1]}, w, 1e-6);
              } else {
                auto f = nsim::compile(RmsNormOpByOp, nsim::CompileOptions{.fullgraph = true});
                f(x, w);
              }
            });
          }};
}

Workload Matmul(const std::string& config) {
  return {"matmul/256x512x384", config, [](const std::string& cfg, bool timing_only) {
            return RunOnDevice(cfg, timing_only, [](at::Device d) {
              at::matmul(at::randn({256, 512}, 2, Bf16()).to(d), at::randn({512, 384}, 3, Bf16()).to(d));
            });
          }};
}

Workload Softmax(const std::string& config) {
  return {"softmax/op_by_op/128x1024", config, [](const std::string& cfg, bool timing_only) {
            return RunOnDevice(cfg, timing_only, [](at::Device d) { SoftmaxOpByOp(at::randn({128, 1024}, 4, Bf16()).to(d)); });
          }};
}

Workload MlpCompiled(const std::string& config) {
  return {"mlp/compiled/64x256x512", config, [](const std::string& cfg, bool timing_only) {
            return RunOnDevice(cfg, timing_only, [](at::Device d) {
              auto f = nsim::compile(Mlp, nsim::CompileOptions{.fullgraph = true});
              // Copied to the device last argument first, as gcc evaluated the
              // call's arguments when the goldens were recorded (see Mlp).
              const Tensor w2 = at::randn({512, 256}, 8, Bf16()).to(d);
              const Tensor w3 = at::randn({256, 512}, 7, Bf16()).to(d);
              const Tensor w1 = at::randn({256, 512}, 6, Bf16()).to(d);
              const Tensor x = at::randn({64, 256}, 5, Bf16()).to(d);
              f(x, w1, w3, w2);
            });
          }};
}

}  // namespace

std::vector<Workload> BuiltinWorkloads() {
  std::vector<Workload> w;
  for (const char* config : {"trn1", "trn2", "trn3"}) {
    for (const char* path : {"op_by_op", "rms_norm", "compiled"}) {
      w.push_back(RmsNorm(path, {4, 512}, config));
      w.push_back(RmsNorm(path, {128, 2048}, config));
    }
    w.push_back(Matmul(config));
    w.push_back(Softmax(config));
    w.push_back(MlpCompiled(config));
    for (const char* k : {"trivial_add", "matmul", "rmsnorm"}) {
      const std::string file = std::string("sim/kernel/examples/") + k + ".nk";
      w.push_back(KernelFileWorkload(file, config, "kernel/" + std::string(k)));
    }
  }
  return w;
}

}  // namespace gate
}  // namespace nsim

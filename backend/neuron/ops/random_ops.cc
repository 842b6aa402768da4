#include "backend/neuron/ops/random_ops.h"

#include <string>

#include "backend/neuron/hbm_tensor.h"
#include "backend/neuron/kernel_launch.h"
#include "backend/neuron/kernels/random_kernel.h"
#include "sim/base/error.h"

namespace nsim {
namespace neuron {

void LaunchRandomUniform(const std::string& op, const at::Tensor& keys, const at::Tensor& out, int64_t n) {
  if (n <= 0 || n > kMaxRandomElements) {
    throw SimError(op + " on neuron: " + std::to_string(n) + " uniforms in one kernel (1 to 2^24)");
  }
  if (out.dtype() != at::kFloat || !out.is_contiguous() || out.numel() != RandomPaddedCount(n) ||
      keys.dtype() != at::kFloat || keys.numel() != kSpeckRounds || !keys.is_contiguous()) {
    throw SimError(op + " on neuron: the uniform kernel takes contiguous fp32 keys[22] and out[" +
                   std::to_string(RandomPaddedCount(n)) + "]");
  }
  rt::NeuronCoreDevice& core = CoreOf(out.device());
  const rt::Bindings bindings{{"keys", ElementAddress(keys)}, {"out", ElementAddress(out)}};
  Launch(core, "random_uniform|" + std::to_string(RandomPaddedCount(n)), [&] { return RandomUniformKernel(n); },
         bindings);
}

}  // namespace neuron
}  // namespace nsim

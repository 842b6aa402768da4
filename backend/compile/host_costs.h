#pragma once
// The host time compile() puts on the simulated clock, from the config's
// host.* keys (configs/trn1.yaml has their sources and calibration):
//
//   each compiled-region call   host.graph_lookup + host.guard_eval x guards
//   a guard set that misses      host.guard_eval x its guards
//   each region compiled         host.trace_op x ops + host.graph_compile
//
// The runtime adds its own costs (host.runtime_submit, host.alloc,
// host.kernel_load) when the region's kernel is loaded and submitted.
#include "backend/device.h"
#include "sim/base/time.h"

namespace nsim {
namespace compiler {

struct HostCosts {
  Picos graph_lookup = 0;
  Picos guard_eval = 0;
  Picos trace_op = 0;
  Picos graph_compile = 0;

  // The costs of the host driving `device` (its core's config; the default
  // config for the CPU).
  static HostCosts For(const at::Device& device);
};

// Advances the simulated clock the host and the device share.
void ChargeHost(Picos cost);

}  // namespace compiler
}  // namespace nsim

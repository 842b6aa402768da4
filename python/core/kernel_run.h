#pragma once
// One run of a kernel given as text, as the Python frontend needs it: inputs
// and outputs are raw bytes of HBM tensors (already in the tensor's dtype),
// results are the device time, the `nsim run` report and the output bytes.
// Binds to the nsim::Device API only.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/chip.h"
#include "sim/model/execution_result.h"

namespace nsim {
namespace pyfront {

struct RunRequest {
  std::string kernel_text;
  std::string source_name;  // labels parser errors ("vector_add.nk")
  std::string config = "trn2";
  std::vector<std::string> overrides;           // "vector.freq=2GHz", as `nsim run --set`
  std::map<std::string, std::string> inputs;    // HBM tensor name -> bytes
  std::vector<std::string> outputs;             // HBM tensors to read back
  std::string profile_dir;                      // non-empty: write trace.json, NEFF/NTFF, summary there
  bool timing_only = false;                     // time without values (Device::set_timing_only); no outputs
};

struct RunResponse {
  Kernel kernel;
  HardwareConfig config;
  ExecutionResult result;
  std::map<std::string, std::string> outputs;  // name -> bytes (none when timing-only)
  std::vector<std::string> profile_files;
};

// The hardware config for (name or path, overrides); loaded once per key.
const HardwareConfig& ConfigFor(const std::string& config, const std::vector<std::string>& overrides);

// Parses, loads (validation + capacity checks of Device::Load), binds every
// input and output tensor at its own HBM address, runs, and reads outputs
// back. Throws SimError naming the problem.
RunResponse RunKernel(const RunRequest& request);

// An SPMD launch: `programs` copies of the kernel (program_id 0..programs-1)
// on cores 0..programs-1 of one chip, all at once, on shared HBM.
struct GridRunResponse {
  std::vector<Kernel> kernels;  // per program
  HardwareConfig config;
  GridResult result;
  std::map<std::string, std::string> outputs;  // name -> bytes
};

// As RunKernel, on the config's chip: inputs and outputs live in core 0's
// home region of chip memory. Throws SimError for a bad grid (more programs
// than chip.cores) or kernel, naming the problem.
// `program_texts` empty: request.kernel_text is every program's text (program_id
// evaluated per program); else one text per program (LNC=2 kernels that branch on
// program_id trace to different programs), all declaring the same HBM tensors.
GridRunResponse RunGrid(const RunRequest& request, int programs,
                        const std::vector<std::string>& program_texts = {});

}  // namespace pyfront
}  // namespace nsim

#pragma once
// `nsim run KERNEL --grid N`: runs a kernel file as N SPMD programs
// (program_id 0..N-1) on cores 0..N-1 of one chip, in parallel on shared
// HBM. The report gives the chip's device time (the slowest core) and a
// per-core breakdown; each core's entry is the single-core `nsim run` report.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/chip.h"

namespace nsim {

// Throws SimError for a bad kernel, a bad grid size or a failing run.
nlohmann::json GridReport(const HardwareConfig& config, const std::string& kernel_text, const std::string& filename,
                          int programs);
// The report of a finished launch: chip device time and, per program, its
// core, home HBM stack and figures. `kernels` are the programs, in
// program_id order. GridReport's result; the NKI frontend's too.
nlohmann::json GridResultReport(const HardwareConfig& config, const std::vector<Kernel>& kernels,
                                const GridResult& result);
std::string FormatGridReport(const nlohmann::json& report);

}  // namespace nsim

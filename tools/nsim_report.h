#pragma once
// The `nsim run` report: device time and per-engine / per-DMA summaries of
// one execution, as JSON (the machine-readable form) and as text rendered
// from the same JSON so the two always agree.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/hw_config.h"
#include "sim/kernel/kernel.h"
#include "sim/model/execution_result.h"

namespace nsim {

nlohmann::json ExecutionReport(const HardwareConfig& config, const Kernel& kernel, const ExecutionResult& result);
std::string FormatReport(const nlohmann::json& report);
// One line per instruction and DMA piece, in start order.
std::string FormatRecords(const Kernel& kernel, const ExecutionResult& result);

}  // namespace nsim

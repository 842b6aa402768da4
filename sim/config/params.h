#pragma once
// The one table of configuration keys. Every field of HardwareConfig is
// declared here exactly once, with its dotted key ("vector.freq"), its unit
// kind, its limits and a description. The loader, the printer, the key list
// in configs/README.md and the tests all read this table, so adding a field
// to hw_config.h means adding one row in params.cc and nothing else.
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "sim/config/hw_config.h"
#include "sim/config/units.h"

namespace nsim {

// The storage of one key inside a HardwareConfig. Integral kinds (time, size,
// cycles, count) are stored in int64_t fields, the others in double fields.
using FieldRef = std::variant<double*, int64_t*, std::string*>;

// Accepted range, in base units. A value outside it cannot describe real
// hardware (a zero clock, 200 partitions) and is rejected when loading.
struct Limits {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;  // "> min" rather than ">= min"
};

struct ParamSpec {
  std::string key;          // dotted path in the YAML, e.g. "vector.freq"
  UnitKind kind;
  Limits limits;
  std::string description;  // what the value models, e.g. "VectorE clock"
  std::function<FieldRef(HardwareConfig&)> field;
};

// All keys, grouped by their prefix, in the order they are printed.
const std::vector<ParamSpec>& AllParams();

// The spec of `key`, or nullptr if there is no such key.
const ParamSpec* FindParam(const std::string& key);

// True if `key` is the prefix of some keys ("vector" for "vector.freq").
bool IsParamGroup(const std::string& key);

// The keys directly below `group` ("" for the top level), for error messages.
std::vector<std::string> ParamNamesIn(const std::string& group);

// Parses `text` with the unit of `spec`, checks the limits and stores the
// value in `config`. Throws SimError (without file or line, which the caller
// adds) if the unit is wrong or the value is impossible.
void SetParam(const ParamSpec& spec, const std::string& text, HardwareConfig* config);

// The value of `spec` in `config` as text with its unit ("2.8GHz").
std::string FormatParam(const ParamSpec& spec, const HardwareConfig& config);

// "> 0 and <= 100GHz": the limits of `spec` in its unit.
std::string FormatLimits(const ParamSpec& spec);

// Checks the rules that involve more than one key (e.g. the PE array cannot
// have more rows than there are partitions). Throws SimError naming the keys,
// their values and where each was set (config.origin).
void CheckConsistency(const HardwareConfig& config);

// Sets the per-core figures that follow from the chip level: a core's share
// of its HBM stack's bandwidth (dma.hbm_bytes_per_ns) and capacity
// (memory.hbm_bytes), each the stack's figure / cores per stack. Called by
// the loader after CheckConsistency (which ensures the division is exact).
void DeriveChipShares(HardwareConfig* config);

// The identity of a resolved config: a hash of every key's value (not of its
// name, file or origins), so two configs loaded from one file with different
// overrides differ, and one part loaded by name or by path is the same.
// Caches of anything derived from a config (loaded kernels) key on this.
uint64_t ConfigContentHash(const HardwareConfig& config);

// The key table as Markdown (key, unit, limits, description); pasted into
// configs/README.md and printed by //sim/config:describe_params.
std::string DescribeParams();

}  // namespace nsim

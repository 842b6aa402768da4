#pragma once
// Reads hardware configs: YAML files under configs/ (one file per part, see
// configs/README.md) with single inheritance, plus command-line overrides.
// Which keys exist, their units and limits come from params.h.
#include <string>
#include <vector>

#include "sim/config/hw_config.h"

namespace nsim {

// Loads the config `name_or_path`: a name ("trn2" is ConfigDirectory()/trn2.yaml)
// or a path to a .yaml file (anything with a '/' or ending in ".yaml").
// `inherits: <name>` loads that parent first (looked up next to the child,
// then in ConfigDirectory()); the child's keys override the parent's. Then
// `overrides` ("vector.freq=2GHz", the CLI's --set) are applied in order.
// Every key must be set in the end. Throws SimError naming the file, line and
// key for: malformed YAML, unknown key, non-scalar value, wrong unit,
// impossible value, missing key, unknown config, inheritance cycle and
// malformed override.
HardwareConfig LoadHardwareConfig(const std::string& name_or_path,
                                  const std::vector<std::string>& overrides = {});

// The resolved `config` as YAML that LoadHardwareConfig reads back to the
// same values: every key with its unit, commented with its description and
// the file and line that set it. Written next to results so a run records
// exactly what hardware it modelled.
std::string FormatHardwareConfig(const HardwareConfig& config);

// The directory of the shipped configs, the first that exists of:
//   $NSIM_CONFIG_DIR (if set, it must exist),
//   $BUILD_WORKSPACE_DIRECTORY/configs   (bazel run: the source tree),
//   $TEST_SRCDIR/nsim/configs, $RUNFILES_DIR/nsim/configs   (bazel test),
//   <this binary>.runfiles/nsim/configs   (a bazel-built binary run directly),
//   ./configs.
// Targets that load configs by name need data = ["//configs"].
// Throws SimError listing the places looked at if none exists.
std::string ConfigDirectory();

// The config names in ConfigDirectory() ("trn1", "trn2", ...), sorted.
std::vector<std::string> AvailableConfigs();

}  // namespace nsim

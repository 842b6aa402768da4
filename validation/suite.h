#pragma once
// Suites of validation cases. "trn1" is the calibration set of
// hardware-measurements.md: every measured kernel of NeuronCore-v2. A suite
// can also be a user's file of measured kernels (suite_file.h).
#include <string>
#include <vector>

#include "validation/case.h"

namespace nsim {
namespace validation {

// The calibration set (hardware-measurements.md), measured on Trn1.
std::vector<Case> Trn1Suite();

// "validation/trn1" or "trn1" is the built-in suite; anything else is read as
// a suite file (suite_file.h), a relative path taken from UserPath. Throws
// SimError naming the problem.
std::vector<Case> LoadSuite(const std::string& name_or_path);

// `bazel run` starts tools in the runfiles tree: a relative path the user
// typed is relative to the workspace they ran it from
// ($BUILD_WORKSPACE_DIRECTORY); elsewhere it is returned unchanged.
std::string UserPath(const std::string& path);
// A config name ("trn1") unchanged, a config path (with '/' or ending in
// ".yaml") through UserPath.
std::string UserConfig(const std::string& name_or_path);

}  // namespace validation
}  // namespace nsim

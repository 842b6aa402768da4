#pragma once
// rmsnorm --compare CONFIG: the study on two configs, per implementation and
// (with device capture) per engine, old / new / change.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "benchmarks/rmsnorm/study_runner.h"

namespace nsim {
namespace study {

struct StudyComparison {
  std::string text;
  nlohmann::json json;
};

StudyComparison CompareStudies(const std::vector<ImplResult>& old_results, const std::vector<ImplResult>& new_results,
                               const std::string& old_config, const std::string& new_config, const StudyOptions& o);

}  // namespace study
}  // namespace nsim

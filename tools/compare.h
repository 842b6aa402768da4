#pragma once
// What-if comparisons: the same work on two configs, per engine and overall,
// old / new / change. Used by `nsim compare` and `rmsnorm --compare`.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/time.h"

namespace nsim {

struct CompareRow {
  std::string what;  // "device time", "TensorE busy", ...
  Picos old_value = 0;
  Picos new_value = 0;
};

// Change in percent of the old value; 0 -> 0 is 0 %, 0 -> x is reported as "new".
std::string FormatChange(Picos old_value, Picos new_value);
std::string CompareTable(const std::string& old_name, const std::string& new_name, const std::vector<CompareRow>& rows);
nlohmann::json CompareJson(const std::string& old_name, const std::string& new_name,
                           const std::vector<CompareRow>& rows);

}  // namespace nsim

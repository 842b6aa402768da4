#pragma once
// The Parquet tables of a run's output directory (Neuron Explorer's profile
// schema, docs/profile-tables.md) are written by python/nsim/profile_tables.py
// (pyarrow); `nsim run --out` runs it on the directory it wrote.
#include <string>

namespace nsim {

// Runs `python3 profile_tables.py DIR`; "" on success, else what went wrong
// (the script not found, python3 or pyarrow missing, its error text).
std::string WriteProfileTables(const std::string& dir);

}  // namespace nsim

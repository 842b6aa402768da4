#include "tools/profile_tables.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

extern char** environ;

namespace nsim {
namespace {

namespace fs = std::filesystem;

constexpr char kScript[] = "python/nsim/profile_tables.py";

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The source tree under `bazel run`, then the binary's runfiles, then the
// working directory (a checkout's root).
std::string FindScript() {
  std::vector<fs::path> bases;
  if (!Getenv("BUILD_WORKSPACE_DIRECTORY").empty()) bases.push_back(Getenv("BUILD_WORKSPACE_DIRECTORY"));
  for (const char* var : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    if (!Getenv(var).empty()) bases.push_back(fs::path(Getenv(var)) / "nsim");
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) bases.push_back(fs::path(exe.string() + ".runfiles") / "nsim");
  bases.push_back(fs::current_path(ec));
  for (const fs::path& base : bases) {
    if (fs::is_regular_file(base / kScript, ec)) return (base / kScript).string();
  }
  return "";
}

}  // namespace

std::string WriteProfileTables(const std::string& dir) {
  const std::string script = FindScript();
  if (script.empty()) return std::string("cannot find ") + kScript + " (run nsim from its checkout or with bazel run)";
  std::vector<std::string> args = {"python3", script, dir};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), environ) != 0) {
    return "cannot run python3 (bash tools/setup.sh installs it with pyarrow)";
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return "python3 " + script + " failed (its message is above; bash tools/setup.sh installs pyarrow)";
  }
  return "";
}

}  // namespace nsim

#pragma once
// One command-line behaviour for every nsim binary, on CLI11 (Debian's
// libcli11-dev):
//   --help / -h       usage on stdout, exit 0
//   --flag=value and --flag value both work
//   usage errors      "PROG: <what is wrong, and what was expected>" on stderr, exit 2
//   run-time errors   "PROG: <message>" on stderr, exit 1 (simulation errors, bad files)
//   interrupted       exit 130 after the files being written are complete
#include <functional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace nsim {
namespace cli {

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

// A flag combination or value the parser could not check by itself; exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv into `app` (whose options and subcommands the caller declared),
// then runs `body`, mapping everything it throws to the exit codes above.
// Returns the exit code for main().
int Run(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

}  // namespace cli
}  // namespace nsim

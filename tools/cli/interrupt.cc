#include "tools/cli/interrupt.h"

#include <csignal>

namespace nsim {
namespace cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void OnSigint(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

}  // namespace

void InstallInterruptHandler() { std::signal(SIGINT, OnSigint); }
bool Interrupted() { return g_interrupted != 0; }

}  // namespace cli
}  // namespace nsim

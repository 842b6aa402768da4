#include "tools/cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace nsim {
namespace cli {

Progress::Progress() : enabled_(isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() {
  if (shown_) std::fputs("\r\033[K", stderr);
}

void Progress::Update(const std::string& status) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (shown_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  shown_ = true;
  std::fprintf(stderr, "\r\033[K%s", status.c_str());
  std::fflush(stderr);
}

}  // namespace cli
}  // namespace nsim

#pragma once
// Progress of a long run on stderr, only when stderr is a terminal (quiet in
// pipes, files and CI), redrawn in place at most every 200 ms of wall time.
#include <chrono>
#include <string>

namespace nsim {
namespace cli {

class Progress {
 public:
  Progress();
  ~Progress();  // ends the line if anything was shown
  // Shows `status` (e.g. "op_by_op: step 3/8, 12 executions, 1.2 ms simulated").
  void Update(const std::string& status);
  bool enabled() const { return enabled_; }  // stderr is a terminal

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace cli
}  // namespace nsim

#pragma once
// One exception type for every user-facing error of the simulator: malformed
// kernels and configs, bad operands, capacity overflow, deadlock. The message
// always names the problem and where (file, line, key, engine, semaphore).
#include <stdexcept>
#include <string>

namespace nsim {

class SimError : public std::runtime_error {
 public:
  explicit SimError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace nsim

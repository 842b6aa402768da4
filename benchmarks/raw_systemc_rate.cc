#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "benchmarks/raw_systemc_rate.h"

#include <systemc>
#include <time.h>

namespace nsim {
namespace bench {

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double RawSystemCWaitRate(int64_t waits) {
  // A dynamic process: SystemC allows no new modules after elaboration, but
  // sc_spawn works while the simulation is paused between runs.
  sc_core::sc_spawn([waits] {
    const sc_core::sc_time step(1, sc_core::SC_NS);
    for (int64_t i = 0; i < waits; ++i) sc_core::wait(step);
  });
  const double start = ThreadCpuSeconds();
  sc_core::sc_start();  // until the spawned thread ends and no event is left
  const double seconds = ThreadCpuSeconds() - start;
  return static_cast<double>(waits) / seconds;
}

}  // namespace bench
}  // namespace nsim

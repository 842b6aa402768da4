#pragma once
// The reference rate for simulator speed: how many bare SystemC wait() calls
// per CPU second one SC_THREAD makes in this process, right now. A model that
// does one SystemC wait per simulated instruction cannot beat it, so
// sim_speed reports every row's instructions/s as a ratio of it (issue 12).
#include <cstdint>

namespace nsim {
namespace bench {

// Spawns one thread looping `waits` times over sc_core::wait(1 ns) and runs
// the simulation until it ends. Requires the process's SystemC simulation to
// be elaborated already (run any Device::Execute first). Returns waits per
// CPU second of this thread.
double RawSystemCWaitRate(int64_t waits);

// CPU seconds this thread has used (the clock the rates above are taken on).
double ThreadCpuSeconds();

}  // namespace bench
}  // namespace nsim

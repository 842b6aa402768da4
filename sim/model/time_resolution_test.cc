// The model counts time in integer picoseconds (sc_time_ps.h): a process
// whose SystemC time resolution is not 1 ps gets a clear error when it first
// simulates, not times off by the resolution's factor. Its own binary: the
// resolution is process-wide and can only be set before any time exists.
#include <gtest/gtest.h>

#include <systemc>

#include "sim/base/error.h"
#include "sim/model/test_util.h"

namespace nsim {
namespace {

TEST(TimeResolution, AnotherResolutionIsAnError) {
  sc_core::sc_set_time_resolution(1, sc_core::SC_NS);
  try {
    testing::RunText("trn2", "kernel k\ntensor t sbuf f32 [1, 1]\nvector: memset t value=1\n");
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_STREQ(e.what(),
                 "SystemC's time resolution is 1 ns; the model counts in picoseconds and needs the default, 1 ps "
                 "(remove the sc_set_time_resolution call)");
  }
}

}  // namespace
}  // namespace nsim

// Table formatting against literal expected text. The expected tables follow
// PyTorch's _build_table (profiler-conventions 1.4): kWorked is the worked
// example of section 1.7 verbatim; the others were derived by hand from the
// same code for these inputs (unit switching at 1000us / 1e6us, forced units,
// sorting with aliases, row limits, header, top-level filter, NaN shares,
// the Input Shapes and Overload Name columns, name truncation).
#include <gtest/gtest.h>

#include <stdexcept>

#include "profiler/event_list.h"
#include "profiler/table.h"

namespace nsim {
namespace prof {
namespace {

constexpr Picos kUs = 1000000;

EventStats Cpu(const std::string& key, int64_t count, Picos cpu, Picos self_cpu, Picos device = 0,
               Picos self_device = 0, bool has_parent = false) {
  EventStats e;
  e.key = key;
  e.count = count;
  e.cpu_time_total = cpu;
  e.self_cpu_time_total = self_cpu;
  e.device_time_total = device;
  e.self_device_time_total = self_device;
  e.has_cpu_parent = has_parent;
  return e;
}

EventStats Device(const std::string& key, int64_t count, Picos device) {
  EventStats e;
  e.key = key;
  e.device_type = DeviceType::kPrivateUse1;
  e.count = count;
  e.device_time_total = device;
  e.self_device_time_total = device;
  return e;
}

EventStats Annotation(EventStats e) {
  e.is_user_annotation = true;
  return e;
}

EventStats WithShapes(EventStats e, const std::string& shapes) {
  e.input_shapes = shapes;
  return e;
}

EventList Worked() {
  return EventList({Cpu("aten::matmul", 10, 2100 * kUs, 120 * kUs, 850 * kUs, 0),
                    Cpu("aten::mm", 10, 1980 * kUs, 1980 * kUs, 850 * kUs, 850 * kUs, true),
                    Device("nc_exec_running", 10, 850 * kUs)},
                   "neuron");
}

// Times cross every unit threshold: 2.5 s, 1.2345678 s, exactly 1000 us,
// 999.999 us, and zeros.
EventList Study() {
  return EventList(
      {Annotation(Cpu("ProfilerStep*", 1, 2500000 * kUs, 1234567800000, 2355 * kUs, 0)),
       Cpu("aten::mul", 3, 1000 * kUs, 60900000, 1164500000, 1164500000, true),
       Cpu("nrta_execute_schedule", 6, 30 * kUs, 30 * kUs, 0, 0, true),
       Cpu("aten::add", 1, 999999000, 26600000, 434600000, 434600000, true),
       Device("nc_exec_running", 6, 2355 * kUs), Cpu("aten::empty", 2, 0, 0, 0, 0, true)},
      "neuron");
}

const char* const kExpected_worked = R"TXT(-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
               Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls  
-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
       aten::matmul         5.71%     120.000us       100.00%       2.100ms     210.000us       0.000us         0.00%     850.000us      85.000us            10  
           aten::mm        94.29%       1.980ms        94.29%       1.980ms     198.000us     850.000us       100.00%     850.000us      85.000us            10  
    nc_exec_running         0.00%       0.000us         0.00%       0.000us       0.000us     850.000us       100.00%     850.000us      85.000us            10  
-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 2.100ms
Self NEURON time total: 850.000us
)TXT";

const char* const kExpected_study_unsorted = R"TXT(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
            ProfilerStep*        99.99%        1.235s       202.48%        2.500s        2.500s       0.000us         0.00%       2.355ms       2.355ms             1  
                aten::mul         0.00%      60.900us         0.08%       1.000ms     333.333us       1.165ms        49.45%       1.165ms     388.167us             3  
    nrta_execute_schedule         0.00%      30.000us         0.00%      30.000us       5.000us       0.000us         0.00%       0.000us       0.000us             6  
                aten::add         0.00%      26.600us         0.08%     999.999us     999.999us     434.600us        18.45%     434.600us     434.600us             1  
          nc_exec_running         0.00%       0.000us         0.00%       0.000us       0.000us       2.355ms       100.00%       2.355ms     392.500us             6  
              aten::empty         0.00%       0.000us         0.00%       0.000us       0.000us       0.000us         0.00%       0.000us       0.000us             2  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1.235s
Self NEURON time total: 2.355ms
)TXT";

const char* const kExpected_study_self_device = R"TXT(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
          nc_exec_running         0.00%       0.000us         0.00%       0.000us       0.000us       2.355ms       100.00%       2.355ms     392.500us             6  
                aten::mul         0.00%      60.900us         0.08%       1.000ms     333.333us       1.165ms        49.45%       1.165ms     388.167us             3  
                aten::add         0.00%      26.600us         0.08%     999.999us     999.999us     434.600us        18.45%     434.600us     434.600us             1  
            ProfilerStep*        99.99%        1.235s       202.48%        2.500s        2.500s       0.000us         0.00%       2.355ms       2.355ms             1  
    nrta_execute_schedule         0.00%      30.000us         0.00%      30.000us       5.000us       0.000us         0.00%       0.000us       0.000us             6  
              aten::empty         0.00%       0.000us         0.00%       0.000us       0.000us       0.000us         0.00%       0.000us       0.000us             2  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1.235s
Self NEURON time total: 2.355ms
)TXT";

const char* const kExpected_study_cpu_total_limit3 = R"TXT(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
            ProfilerStep*        99.99%        1.235s       202.48%        2.500s        2.500s       0.000us         0.00%       2.355ms       2.355ms             1  
                aten::mul         0.00%      60.900us         0.08%       1.000ms     333.333us       1.165ms        49.45%       1.165ms     388.167us             3  
                aten::add         0.00%      26.600us         0.08%     999.999us     999.999us     434.600us        18.45%     434.600us     434.600us             1  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1.235s
Self NEURON time total: 2.355ms
)TXT";

const char* const kExpected_study_count_unlimited = R"TXT(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
    nrta_execute_schedule         0.00%      30.000us         0.00%      30.000us       5.000us       0.000us         0.00%       0.000us       0.000us             6  
          nc_exec_running         0.00%       0.000us         0.00%       0.000us       0.000us       2.355ms       100.00%       2.355ms     392.500us             6  
                aten::mul         0.00%      60.900us         0.08%       1.000ms     333.333us       1.165ms        49.45%       1.165ms     388.167us             3  
              aten::empty         0.00%       0.000us         0.00%       0.000us       0.000us       0.000us         0.00%       0.000us       0.000us             2  
            ProfilerStep*        99.99%        1.235s       202.48%        2.500s        2.500s       0.000us         0.00%       2.355ms       2.355ms             1  
                aten::add         0.00%      26.600us         0.08%     999.999us     999.999us     434.600us        18.45%     434.600us     434.600us             1  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1.235s
Self NEURON time total: 2.355ms
)TXT";

const char* const kExpected_study_ms = R"TXT(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
            ProfilerStep*        99.99%    1234.568ms       202.48%    2500.000ms    2500.000ms       0.000ms         0.00%       2.355ms       2.355ms             1  
                aten::mul         0.00%       0.061ms         0.08%       1.000ms       0.333ms       1.165ms        49.45%       1.165ms       0.388ms             3  
    nrta_execute_schedule         0.00%       0.030ms         0.00%       0.030ms       0.005ms       0.000ms         0.00%       0.000ms       0.000ms             6  
                aten::add         0.00%       0.027ms         0.08%       1.000ms       1.000ms       0.435ms        18.45%       0.435ms       0.435ms             1  
          nc_exec_running         0.00%       0.000ms         0.00%       0.000ms       0.000ms       2.355ms       100.00%       2.355ms       0.393ms             6  
              aten::empty         0.00%       0.000ms         0.00%       0.000ms       0.000ms       0.000ms         0.00%       0.000ms       0.000ms             2  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1234.685ms
Self NEURON time total: 2.355ms
)TXT";

const char* const kExpected_study_header_top = R"TXT(=====================================================================================================================================================================
RMSNorm op by op
=====================================================================================================================================================================
This report only display top-level ops statistics
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
          nc_exec_running         0.00%       0.000us         0.00%       0.000us       0.000us       2.355ms       100.00%       2.355ms     392.500us             6  
            ProfilerStep*        99.99%        1.235s       202.48%        2.500s        2.500s       0.000us         0.00%       2.355ms       2.355ms             1  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1.235s
Self NEURON time total: 2.355ms
)TXT";

const char* const kExpected_nan = R"TXT(--------------  ------------  ------------  ------------  ------------  ------------  ------------  
          Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  
--------------  ------------  ------------  ------------  ------------  ------------  ------------  
    aten::view           NaN       0.000us           NaN       0.000us       0.000us             1  
--------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 0.000us
)TXT";

const char* const kExpected_shapes = R"TXT(-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------------------  
               Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg   Self NEURON  Self NEURON %  NEURON total  NEURON time avg    # of Calls              Input Shapes  
-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------------------  
      ProfilerStep*        20.00%     100.000us       100.00%     500.000us     500.000us       0.000us         0.00%      10.000us      10.000us             1                        []  
          aten::mul        60.00%     300.000us        60.00%     300.000us     150.000us       6.000us        60.00%       6.000us       3.000us             2      [[4, 512], [4, 512]]  
          aten::mul        20.00%     100.000us        20.00%     100.000us     100.000us       4.000us        40.00%       4.000us       4.000us             1        [[4, 512], [4, 1]]  
    nc_exec_running         0.00%       0.000us         0.00%       0.000us       0.000us      10.000us       100.00%      10.000us       3.333us             3                        []  
-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------------------  
Self CPU time total: 500.000us
Self NEURON time total: 10.000us
)TXT";

const char* const kExpected_overload = R"TXT(-------------------------------------------------------  -------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
                                                   Name                                            Overload Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  
-------------------------------------------------------  -------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
                                              aten::mul                                                   Tensor        41.67%       5.000us        41.67%       5.000us       5.000us             1  
aten::some_extremely_long_operator_name_that_does_no...                                                                 58.33%       7.000us        58.33%       7.000us       7.000us             1  
-------------------------------------------------------  -------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 12.000us
)TXT";

TEST(TableTest, WorkedExampleFromConventions) { EXPECT_EQ(Worked().table(), kExpected_worked); }

TEST(TableTest, UnitSwitchingInFirstOccurrenceOrder) {
  EXPECT_EQ(Study().table(), kExpected_study_unsorted);
}

TEST(TableTest, SortBySelfPrivateUse1TimeIsDeviceTimeDescending) {
  EXPECT_EQ(Study().table("self_privateuse1_time_total"), kExpected_study_self_device);
}

TEST(TableTest, SortByCpuTotalWithRowLimit) {
  EXPECT_EQ(Study().table("cpu_time_total", 3), kExpected_study_cpu_total_limit3);
}

TEST(TableTest, SortByCountIsStableAndMinusOneMeansAllRows) {
  EXPECT_EQ(Study().table("count", -1), kExpected_study_count_unlimited);
}

TEST(TableTest, ForcedTimeUnit) {
  TableOptions options;
  options.time_unit = "ms";
  EXPECT_EQ(Study().table(options), kExpected_study_ms);
}

TEST(TableTest, HeaderAndTopLevelOnlyWithCudaAlias) {
  TableOptions options;
  options.sort_by = "self_cuda_time_total";
  options.header = "RMSNorm op by op";
  options.top_level_events_only = true;
  EXPECT_EQ(Study().table(options), kExpected_study_header_top);
}

TEST(TableTest, ZeroTotalsPrintNaN) {
  EXPECT_EQ(EventList({Cpu("aten::view", 1, 0, 0)}, "neuron").table(), kExpected_nan);
}

TEST(TableTest, InputShapesColumn) {
  EventList list({WithShapes(Annotation(Cpu("ProfilerStep*", 1, 500 * kUs, 100 * kUs, 10 * kUs, 0)), ""),
                  WithShapes(Cpu("aten::mul", 2, 300 * kUs, 300 * kUs, 6 * kUs, 6 * kUs, true),
                             "[[4, 512], [4, 512]]"),
                  WithShapes(Cpu("aten::mul", 1, 100 * kUs, 100 * kUs, 4 * kUs, 4 * kUs, true),
                             "[[4, 512], [4, 1]]"),
                  Device("nc_exec_running", 3, 10 * kUs)},
                 "neuron");
  EXPECT_EQ(list.table(), kExpected_shapes);
}

TEST(TableTest, OverloadColumnAndLongNamesTruncated) {
  EventStats mul = Cpu("aten::mul", 1, 5 * kUs, 5 * kUs);
  mul.overload_name = "Tensor";
  EventList list(
      {mul, Cpu("aten::some_extremely_long_operator_name_that_does_not_fit_in_the_column", 1,
                7 * kUs, 7 * kUs)},
      "neuron");
  EXPECT_EQ(list.table(), kExpected_overload);
}

TEST(TableTest, EmptyListPrintsNothing) { EXPECT_EQ(EventList().table(), ""); }

TEST(TableTest, RenamedBackendIsNotASortKey) {
  // PyTorch maps cuda/xpu/privateuse1 to device, not the renamed backend.
  EXPECT_THROW(Study().table("self_neuron_time_total"), std::invalid_argument);
}

TEST(TableTest, DeviceTimeWithoutDeviceIsAnError) {
  EXPECT_THROW(EventList({Device("nc_exec_running", 1, kUs)}, "").table(), std::runtime_error);
}

TEST(TableTest, FooterTotalsCountDeviceRowsOnly) {
  const EventList list = Study();
  EXPECT_EQ(list.self_cpu_time_total(), 1234567800000 + 60900000 + 30 * kUs + 26600000);
  EXPECT_EQ(list.self_device_time_total(), 2355 * kUs);
}

}  // namespace
}  // namespace prof
}  // namespace nsim

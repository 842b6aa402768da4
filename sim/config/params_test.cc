#include "sim/config/params.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <type_traits>

#include "sim/base/error.h"

namespace nsim {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string SetError(const std::string& key, const std::string& text) {
  HardwareConfig config;
  const ParamSpec* spec = FindParam(key);
  if (spec == nullptr) return "unknown key " + key;
  try {
    SetParam(*spec, text, &config);
  } catch (const SimError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParamsTest, KeysAreUniqueAndGroupsContiguous) {
  std::set<std::string> keys, closed_groups;
  std::string group;
  for (const ParamSpec& p : AllParams()) {
    EXPECT_TRUE(keys.insert(p.key).second) << "duplicate key " << p.key;
    EXPECT_FALSE(p.description.empty()) << p.key;
    const std::string g = p.key.substr(0, p.key.find('.'));
    if (g != group) {
      EXPECT_FALSE(closed_groups.count(g)) << "group " << g << " is split; keep its rows together";
      closed_groups.insert(group);
      group = g;
    }
  }
}

// Integral kinds are stored in int64_t fields, the others in doubles; a
// mismatch would silently round a ratio or widen a size.
TEST(ParamsTest, FieldTypesMatchUnitKinds) {
  HardwareConfig config;
  for (const ParamSpec& p : AllParams()) {
    const FieldRef ref = p.field(config);
    switch (p.kind) {
      case UnitKind::kTime:
      case UnitKind::kSize:
      case UnitKind::kCycles:
      case UnitKind::kCount:
        EXPECT_TRUE(std::holds_alternative<int64_t*>(ref)) << p.key;
        break;
      case UnitKind::kText:
        EXPECT_TRUE(std::holds_alternative<std::string*>(ref)) << p.key;
        break;
      default:
        EXPECT_TRUE(std::holds_alternative<double*>(ref)) << p.key;
    }
  }
}

// Every numeric field of HardwareConfig must be reachable through the table:
// after writing 1 through every row, no 8-byte word of the engine, DMA,
// memory and kernel structs may still be zero. A field added to hw_config.h
// without a row in params.cc fails here.
template <typename T>
void ExpectNoZeroWord(const T& part, const char* name) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) % 8 == 0,
                "param structs hold only 8-byte doubles and int64s");
  for (size_t offset = 0; offset < sizeof(T); offset += 8) {
    uint64_t word;
    std::memcpy(&word, reinterpret_cast<const char*>(&part) + offset, 8);
    EXPECT_NE(word, 0u) << name << " has a field at byte offset " << offset
                        << " that no param sets; add a row to params.cc";
  }
}

TEST(ParamsTest, TableCoversEveryHardwareConfigField) {
  HardwareConfig config;
  for (const ParamSpec& p : AllParams()) {
    std::visit(
        [](auto* field) {
          using Field = std::remove_pointer_t<decltype(field)>;
          if constexpr (std::is_same_v<Field, std::string>) {
            *field = "x";
          } else {
            *field = 1;
          }
        },
        p.field(config));
  }
  DeriveChipShares(&config);  // the per-core HBM share is derived, not a key
  ExpectNoZeroWord(config.tensor, "tensor");
  ExpectNoZeroWord(config.vector, "vector");
  ExpectNoZeroWord(config.scalar, "scalar");
  ExpectNoZeroWord(config.gpsimd, "gpsimd");
  ExpectNoZeroWord(config.sync, "sync");
  ExpectNoZeroWord(config.dma, "dma");
  ExpectNoZeroWord(config.memory, "memory");
  ExpectNoZeroWord(config.kernel, "kernel");
  ExpectNoZeroWord(config.host, "host");
  ExpectNoZeroWord(config.capture, "capture");
  ExpectNoZeroWord(config.chip, "chip");
  EXPECT_EQ(config.generation, "x");
  // A new member of HardwareConfig itself (not of a part) changes its size:
  // give it params, then list it here.
  EXPECT_EQ(sizeof(HardwareConfig),
            3 * sizeof(std::string) + sizeof(config.origin) + sizeof(config.tensor) +
                sizeof(config.vector) + sizeof(config.scalar) + sizeof(config.gpsimd) +
                sizeof(config.sync) + sizeof(config.dma) + sizeof(config.memory) +
                sizeof(config.kernel) + sizeof(config.host) + sizeof(config.capture) +
                sizeof(config.chip));
}

TEST(ParamsTest, SetParamStoresInBaseUnits) {
  HardwareConfig config;
  SetParam(*FindParam("vector.freq"), "0.96GHz", &config);
  SetParam(*FindParam("dma.start_latency"), "1.3us", &config);
  SetParam(*FindParam("memory.sbuf_per_partition"), "224KiB", &config);
  SetParam(*FindParam("dma.bytes_per_ns"), "27.2GB/s", &config);
  SetParam(*FindParam("generation"), "NeuronCore-v3", &config);
  EXPECT_EQ(config.vector.freq_hz, 960e6);
  EXPECT_EQ(config.dma.start_latency_ps, 1300000);
  EXPECT_EQ(config.memory.sbuf_bytes_per_partition, 229376);
  EXPECT_EQ(config.dma.bytes_per_ns, 27.2);
  EXPECT_EQ(config.generation, "NeuronCore-v3");
  EXPECT_EQ(FormatParam(*FindParam("dma.start_latency"), config), "1300ns");
  EXPECT_EQ(FormatParam(*FindParam("generation"), config), "NeuronCore-v3");
}

TEST(ParamsTest, RejectsImpossibleValues) {
  EXPECT_THAT(SetError("vector.freq", "0GHz"),
              AllOf(HasSubstr("impossible value 0GHz"), HasSubstr("must be >= 1MHz and <= 100GHz")));
  EXPECT_THAT(SetError("vector.freq", "-1GHz"), HasSubstr("impossible value -1GHz"));
  EXPECT_THAT(SetError("memory.partitions", "200"), HasSubstr("must be >= 1 and <= 128"));
  EXPECT_THAT(SetError("memory.psum_banks", "0"), HasSubstr("impossible value 0"));
  EXPECT_THAT(SetError("tensor.fp32_factor", "0.5"), HasSubstr("must be >= 1"));
  EXPECT_THAT(SetError("dma.engines", "17"), HasSubstr("<= 16"));
  EXPECT_THAT(SetError("tensor.min_ii", "0"), HasSubstr("must be >= 1cycles"));
  EXPECT_THAT(SetError("dma.start_latency", "-1ns"), HasSubstr("impossible value -1ns"));
  EXPECT_THAT(SetError("generation", " "), HasSubstr("empty value"));
  EXPECT_EQ(SetError("sync.min_ii", "0"), "no error");
  EXPECT_EQ(SetError("sync.pipeline_latency", "0cycles"), "no error");
}

// Issue 14: rates near zero hung the simulator (an instruction lasting longer
// than 64-bit picoseconds can count); the error states the limit.
TEST(ParamsTest, RejectsImplausibleRates) {
  EXPECT_THAT(SetError("vector.freq", "1e-300Hz"),
              AllOf(HasSubstr("impossible value 1e-300Hz"), HasSubstr("must be >= 1MHz and <= 100GHz")));
  EXPECT_THAT(SetError("tensor.freq", "999kHz"), HasSubstr("must be >= 1MHz"));
  EXPECT_EQ(SetError("tensor.freq", "1MHz"), "no error");
  EXPECT_THAT(SetError("dma.bytes_per_ns", "1e-9B/ns"), HasSubstr("must be >= 0.001B/ns"));
  EXPECT_THAT(SetError("chip.hbm_stack_bandwidth", "1B/s"), HasSubstr("must be >= 0.001B/ns"));
  EXPECT_THAT(SetError("chip.host_link_bandwidth", "0B/ns"), HasSubstr("must be >= 0.001B/ns"));
}

TEST(ParamsTest, RejectsWrongUnits) {
  EXPECT_THAT(SetError("dma.start_latency", "1300"), HasSubstr("missing unit"));
  EXPECT_THAT(SetError("vector.freq", "1300ns"), HasSubstr("wrong unit 'ns'"));
}

TEST(ParamsTest, GroupsAndNames) {
  EXPECT_TRUE(IsParamGroup("vector"));
  EXPECT_FALSE(IsParamGroup("vector.freq"));
  EXPECT_FALSE(IsParamGroup("vec"));
  EXPECT_EQ(FindParam("vector.frq"), nullptr);
  const std::vector<std::string> top = ParamNamesIn("");
  EXPECT_EQ(top, (std::vector<std::string>{"generation", "tensor", "vector", "scalar", "gpsimd",
                                           "sync", "dma", "memory", "kernel", "host", "capture", "chip"}));
  EXPECT_EQ(ParamNamesIn("sync"),
            (std::vector<std::string>{"freq", "min_ii", "pipeline_latency", "dispatch"}));
}

TEST(ParamsTest, ConsistencyNamesBothKeysAndOrigins) {
  HardwareConfig config;
  config.name = "odd";
  config.tensor.rows = 256;
  config.memory.partitions = 128;
  config.origin["tensor.rows"] = "odd.yaml:7";
  try {
    CheckConsistency(config);
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("tensor.rows <= memory.partitions"),
                                HasSubstr("tensor.rows = 256 (set at odd.yaml:7)"),
                                HasSubstr("memory.partitions = 128 (unset)")));
  }
  config.tensor.rows = 128;
  config.tensor.moving_free_max = 4096;
  config.memory.psum_banks = 8;
  config.memory.psum_bank_bytes = 1024;  // 16 KiB of fp32 output, 8 KiB of PSUM
  EXPECT_THROW(CheckConsistency(config), SimError);
}

TEST(ParamsTest, ConsistencyAcceptsExactFit) {
  HardwareConfig config;
  config.memory.partitions = 128;
  config.tensor.moving_free_max = 4096;
  config.memory.psum_banks = 8;
  config.memory.psum_bank_bytes = 2048;
  EXPECT_NO_THROW(CheckConsistency(config));
}

// Every Device backs SBUF and PSUM in host memory: 128 partitions of 64 MiB
// each pass every per-key limit but not the host rule.
TEST(ParamsTest, ConsistencyRejectsOnChipMemoryTheHostCannotBack) {
  HardwareConfig config;
  config.memory.partitions = 128;
  config.memory.sbuf_bytes_per_partition = 64 << 20;
  config.memory.psum_banks = 8;
  config.memory.psum_bank_bytes = 2048;
  config.tensor.moving_free_max = 512;
  try {
    CheckConsistency(config);
    FAIL() << "accepted 8 GiB of SBUF";
  } catch (const SimError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("memory.sbuf_per_partition"), HasSubstr("<= 1GiB"),
                                HasSubstr("backs SBUF and PSUM in host memory")));
  }
}

// configs/README.md carries the key list; it must match the table.
TEST(ParamsTest, ReadmeListsTheKeyTable) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  std::ifstream in(std::string(srcdir) + "/nsim/configs/README.md");
  ASSERT_TRUE(in) << "configs/README.md not in runfiles";
  std::stringstream readme;
  readme << in.rdbuf();
  EXPECT_THAT(readme.str(), HasSubstr(DescribeParams()))
      << "configs/README.md is out of date: paste the output of "
         "`bazel run //sim/config:describe_params` into its Keys section";
}

}  // namespace
}  // namespace nsim

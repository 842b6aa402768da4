#include "sim/config/loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/base/error.h"
#include "sim/config/params.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

// A fresh directory per test for hand-written config files.
class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  // The message of the SimError that loading `path` throws.
  static std::string LoadError(const std::string& path,
                               const std::vector<std::string>& overrides = {}) {
    try {
      LoadHardwareConfig(path, overrides);
    } catch (const SimError& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(LoaderTest, Trn1HasTheDocumentedValues) {
  const HardwareConfig c = LoadHardwareConfig("trn1");
  EXPECT_EQ(c.name, "trn1");
  EXPECT_THAT(c.source, EndsWith("configs/trn1.yaml"));
  EXPECT_EQ(c.generation, "NeuronCore-v2");
  EXPECT_EQ(c.tensor.freq_hz, 2.8e9);
  EXPECT_EQ(c.tensor.min_ii_cycles, 64);
  EXPECT_EQ(c.tensor.pipeline_latency_cycles, 320);
  EXPECT_EQ(c.tensor.dispatch_cycles, 4);
  EXPECT_EQ(c.tensor.rows, 128);
  EXPECT_EQ(c.tensor.cols, 128);
  EXPECT_EQ(c.tensor.moving_free_max, 512);
  EXPECT_EQ(c.tensor.mm_init_latency_cycles, 64);
  EXPECT_EQ(c.tensor.load_stationary_speedup, 4);
  EXPECT_EQ(c.tensor.fp32_factor, 4);
  EXPECT_EQ(c.vector.freq_hz, 1.12e9);
  EXPECT_EQ(c.vector.min_ii_cycles, 64);
  EXPECT_EQ(c.vector.pipeline_latency_cycles, 100);
  EXPECT_EQ(c.vector.dispatch_cycles, 4);
  EXPECT_EQ(c.vector.two_input_factor, 2);
  EXPECT_EQ(c.vector.reduce_fast_factor, 0.5);
  EXPECT_EQ(c.vector.reciprocal_factor, 8);
  EXPECT_EQ(c.vector.perf_mode_copy, 1);
  EXPECT_EQ(c.vector.perf_mode_copy_partial, 1);
  EXPECT_EQ(c.vector.perf_mode_tensor_tensor, 1);
  EXPECT_EQ(c.vector.stride_penalty_bytes, 16);
  EXPECT_EQ(c.scalar.freq_hz, 1.4e9);
  EXPECT_EQ(c.scalar.min_ii_cycles, 64);
  EXPECT_EQ(c.scalar.pipeline_latency_cycles, 158);
  EXPECT_EQ(c.scalar.dispatch_cycles, 4);
  EXPECT_EQ(c.scalar.accumulate_cycles, 64);
  EXPECT_EQ(c.scalar.perf_mode_16bit, 1);
  EXPECT_EQ(c.scalar.table_load_ps, 368000);
  EXPECT_EQ(c.scalar.stride_penalty_bytes, 16);
  EXPECT_EQ(c.gpsimd.freq_hz, 1.4e9);
  EXPECT_EQ(c.gpsimd.min_ii_cycles, 64);
  EXPECT_EQ(c.gpsimd.pipeline_latency_cycles, 8);
  EXPECT_EQ(c.gpsimd.dispatch_cycles, 4);
  EXPECT_EQ(c.gpsimd.start_cycles, 150);
  EXPECT_EQ(c.gpsimd.iota_cycles_per_elem, 1);
  EXPECT_EQ(c.gpsimd.partition_reduce_cycles_per_elem, 1);
  EXPECT_EQ(c.sync.freq_hz, 1.4e9);
  EXPECT_EQ(c.sync.min_ii_cycles, 0);
  EXPECT_EQ(c.sync.pipeline_latency_cycles, 0);
  EXPECT_EQ(c.sync.dispatch_cycles, 4);
  EXPECT_EQ(c.dma.engines, 16);
  EXPECT_EQ(c.dma.queues_per_engine, 16);
  EXPECT_EQ(c.dma.partitions_per_engine, 8);
  EXPECT_EQ(c.dma.bytes_per_ns, 17);
  EXPECT_EQ(c.dma.start_latency_ps, 474000);
  EXPECT_EQ(c.dma.descriptor_ps, 1000);
  EXPECT_EQ(c.dma.max_descriptor_bytes, 65536);
  EXPECT_EQ(c.dma.hbm_bytes_per_ns, 410);
  EXPECT_EQ(c.dma.trigger_ps, 10000);
  EXPECT_EQ(c.dma.piece_setup_ps, 6000);
  EXPECT_EQ(c.dma.queue_setup_ps, 185000);
  EXPECT_EQ(c.dma.queue_completion_ps, 70000);
  EXPECT_EQ(c.memory.partitions, 128);
  EXPECT_EQ(c.memory.sbuf_bytes_per_partition, 192 * 1024);
  EXPECT_EQ(c.memory.psum_banks, 8);
  EXPECT_EQ(c.memory.psum_bank_bytes, 2048);
  EXPECT_EQ(c.memory.hbm_bytes, int64_t{16} << 30);
  EXPECT_EQ(c.kernel.launch_ps, 1572000);
  EXPECT_EQ(c.kernel.teardown_ps, 100000);
  EXPECT_EQ(c.kernel.semaphore_latency_ps, 30000);
  EXPECT_EQ(c.kernel.raw_turnaround_ps, 30000);
  EXPECT_EQ(c.kernel.neff_preamble_ps, 14886000);
  EXPECT_EQ(c.kernel.neff_postamble_ps, 0);
  EXPECT_EQ(c.kernel.semaphores, 256);
}

// trn1 is the base: it must set every key itself, each through the table.
TEST_F(LoaderTest, Trn1SetsEveryKeyItself) {
  const HardwareConfig c = LoadHardwareConfig("trn1");
  ASSERT_EQ(c.origin.size(), AllParams().size());
  for (const ParamSpec& p : AllParams()) {
    ASSERT_TRUE(c.origin.count(p.key)) << p.key;
    EXPECT_THAT(c.origin.at(p.key), HasSubstr("trn1.yaml:")) << p.key;
  }
}

TEST_F(LoaderTest, Trn2OverridesTrn1) {
  const HardwareConfig c = LoadHardwareConfig("trn2");
  EXPECT_EQ(c.name, "trn2");
  EXPECT_EQ(c.generation, "NeuronCore-v3");
  EXPECT_EQ(c.tensor.freq_hz, 2.4e9);
  EXPECT_EQ(c.tensor.fp32_factor, 4);  // inherited: S1 4x, over two FP32_LO_HI passes
  EXPECT_EQ(c.tensor.fp32_passes, 2);
  EXPECT_EQ(c.vector.freq_hz, 0.96e9);
  EXPECT_EQ(c.vector.perf_mode_copy, 4);
  EXPECT_EQ(c.vector.perf_mode_copy_partial, 2);
  EXPECT_EQ(c.vector.perf_mode_tensor_tensor, 2);
  EXPECT_EQ(c.scalar.freq_hz, 1.2e9);
  EXPECT_EQ(c.gpsimd.freq_hz, 1.2e9);
  EXPECT_EQ(c.sync.freq_hz, 1.2e9);
  EXPECT_EQ(c.dma.bytes_per_ns, 23);
  EXPECT_EQ(c.dma.hbm_bytes_per_ns, 375);
  EXPECT_EQ(c.memory.sbuf_bytes_per_partition, 224 * 1024);
  EXPECT_EQ(c.memory.hbm_bytes, int64_t{12} << 30);
  // Inherited unchanged from trn1.
  EXPECT_EQ(c.tensor.rows, 128);
  EXPECT_EQ(c.dma.start_latency_ps, 474000);
  EXPECT_EQ(c.scalar.pipeline_latency_cycles, 158);
  EXPECT_THAT(c.origin.at("tensor.freq"), HasSubstr("trn2.yaml:"));
  EXPECT_THAT(c.origin.at("tensor.rows"), HasSubstr("trn1.yaml:"));
}

TEST_F(LoaderTest, Trn3InheritsThroughTrn2) {
  const HardwareConfig c = LoadHardwareConfig("trn3");
  EXPECT_EQ(c.generation, "NeuronCore-v4");
  EXPECT_EQ(c.vector.freq_hz, 1.2e9);
  EXPECT_EQ(c.scalar.perf_mode_16bit, 2);
  EXPECT_EQ(c.tensor.moving_free_max, 4096);
  EXPECT_EQ(c.dma.bytes_per_ns, 33);
  EXPECT_EQ(c.dma.hbm_bytes_per_ns, 587.5);
  EXPECT_EQ(c.memory.sbuf_bytes_per_partition, 256 * 1024);
  EXPECT_EQ(c.memory.hbm_bytes, int64_t{18} << 30);
  EXPECT_EQ(c.tensor.freq_hz, 2.4e9);           // from trn2
  EXPECT_EQ(c.vector.perf_mode_copy, 4);        // from trn2
  EXPECT_EQ(c.tensor.mm_init_latency_cycles, 64);  // from trn1
  EXPECT_THAT(c.origin.at("vector.freq"), HasSubstr("trn3.yaml:"));
  EXPECT_THAT(c.origin.at("tensor.freq"), HasSubstr("trn2.yaml:"));
  EXPECT_THAT(c.origin.at("memory.partitions"), HasSubstr("trn1.yaml:"));
}

// The chip level: stacks shared by adjacent cores, and the per-core HBM
// share derived from it (the values every single-core golden was made with).
TEST_F(LoaderTest, ChipLevelAndDerivedCoreShares) {
  const HardwareConfig t1 = LoadHardwareConfig("trn1");
  EXPECT_EQ(t1.chip.cores, 2);
  EXPECT_EQ(t1.chip.hbm_stacks, 2);
  EXPECT_EQ(t1.chip.cores_per_stack(), 1);
  EXPECT_EQ(t1.chip.default_lnc, 1);
  EXPECT_EQ(t1.chip.host_link_bytes_per_ns, 16);
  EXPECT_EQ(t1.chip.host_link_latency_ps, 2000000);
  const HardwareConfig t2 = LoadHardwareConfig("trn2");
  EXPECT_EQ(t2.chip.cores, 8);
  EXPECT_EQ(t2.chip.hbm_stacks, 4);
  EXPECT_EQ(t2.chip.StackOf(0), 0);
  EXPECT_EQ(t2.chip.StackOf(1), 0);  // S16: each stack shared by two cores
  EXPECT_EQ(t2.chip.StackOf(7), 3);
  EXPECT_EQ(t2.chip.default_lnc, 2);
  EXPECT_EQ(t2.chip.hbm_stack_bytes_per_ns, 750);
  EXPECT_EQ(t2.dma.hbm_bytes_per_ns, 750.0 / 2);
  EXPECT_EQ(t2.memory.hbm_bytes, (int64_t{24} << 30) / 2);
  const HardwareConfig t3 = LoadHardwareConfig("trn3", {"chip.hbm_stack_bandwidth=2000B/ns"});
  EXPECT_EQ(t3.dma.hbm_bytes_per_ns, 1000);
}

TEST_F(LoaderTest, ChipRulesAndMovedKeysAreExplained) {
  const std::string uneven = Write("uneven.yaml", "inherits: trn2\nchip:\n  hbm_stacks: 3\n");
  EXPECT_THAT(LoadError(uneven), AllOf(HasSubstr("chip.cores is a multiple of chip.hbm_stacks"),
                                       HasSubstr("uneven.yaml:3")));
  const std::string old = Write("old.yaml", "inherits: trn2\ndma:\n  hbm_bytes_per_ns: 23B/ns\n");
  EXPECT_THAT(LoadError(old), AllOf(HasSubstr("old.yaml:3"), HasSubstr("chip.hbm_stack_bandwidth")));
}

TEST_F(LoaderTest, LoadsByPath) {
  const HardwareConfig c = LoadHardwareConfig(ConfigDirectory() + "/trn2.yaml");
  EXPECT_EQ(c.name, "trn2");
  EXPECT_EQ(c.tensor.freq_hz, 2.4e9);
}

// A part outside the repository: a new file, no code.
TEST_F(LoaderTest, CustomPartInheritsShippedConfig) {
  const std::string path = Write("trn1-fastvec.yaml",
                                 "inherits: trn1\n"
                                 "vector.freq: 2.24GHz   # what-if\n");
  const HardwareConfig c = LoadHardwareConfig(path);
  EXPECT_EQ(c.name, "trn1-fastvec");
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.vector.freq_hz, 2.24e9);
  EXPECT_EQ(c.tensor.freq_hz, 2.8e9);
  EXPECT_EQ(c.origin.at("vector.freq"), path + ":2");
}

TEST_F(LoaderTest, ChainOfCustomFiles) {
  Write("base.yaml", "inherits: trn2\nvector:\n  freq: 2GHz\n  min_ii: 32cycles\n");
  const std::string leaf = Write("leaf.yaml", "inherits: base\nvector:\n  freq: 3GHz\n");
  const HardwareConfig c = LoadHardwareConfig(leaf);
  EXPECT_EQ(c.vector.freq_hz, 3e9);       // leaf
  EXPECT_EQ(c.vector.min_ii_cycles, 32);  // base
  EXPECT_EQ(c.tensor.freq_hz, 2.4e9);     // trn2
  EXPECT_EQ(c.tensor.rows, 128);          // trn1
}

TEST_F(LoaderTest, ParentNextToChildComesFirst) {
  // This local trn1 shadows the shipped one; it inherits the shipped trn2,
  // whose own `inherits: trn1` resolves next to trn2, i.e. the shipped trn1.
  Write("trn1.yaml", "inherits: trn2\ngeneration: local\n");
  const HardwareConfig c = LoadHardwareConfig(Write("child.yaml", "inherits: trn1\n"));
  EXPECT_EQ(c.generation, "local");
  EXPECT_EQ(c.tensor.freq_hz, 2.4e9);
}

TEST_F(LoaderTest, InheritsByRelativePath) {
  fs::create_directories(dir_ / "sub");
  Write("sub/parent.yaml", "inherits: trn1\nvector.freq: 1GHz\n");
  const HardwareConfig c = LoadHardwareConfig(Write("child.yaml", "inherits: sub/parent.yaml\n"));
  EXPECT_EQ(c.vector.freq_hz, 1e9);
}

TEST_F(LoaderTest, OverridesApplyLastWithOrigin) {
  const HardwareConfig c =
      LoadHardwareConfig("trn2", {"vector.freq=2GHz", "dma.engines=8", "generation=what-if",
                                  "vector.freq=2.5GHz"});
  EXPECT_EQ(c.vector.freq_hz, 2.5e9);
  EXPECT_EQ(c.dma.engines, 8);
  EXPECT_EQ(c.generation, "what-if");
  EXPECT_EQ(c.origin.at("vector.freq"), "override 'vector.freq=2.5GHz'");
}

TEST_F(LoaderTest, UnknownKeyNamesFileLineAndKey) {
  const std::string path = Write("bad.yaml", "inherits: trn1\ntensor:\n  frq: 1GHz\n");
  EXPECT_THAT(LoadError(path), AllOf(HasSubstr(path + ":3"), HasSubstr("key 'tensor.frq'"),
                                     HasSubstr("unknown key"), HasSubstr("freq, min_ii")));
}

TEST_F(LoaderTest, UnknownGroupListsTopLevelKeys) {
  const std::string path = Write("bad.yaml", "inherits: trn1\nvectr:\n  freq: 1GHz\n");
  EXPECT_THAT(LoadError(path), AllOf(HasSubstr(path + ":2"), HasSubstr("key 'vectr'"),
                                     HasSubstr("inherits, generation, tensor, vector")));
  const std::string dotted = Write("dotted.yaml", "inherits: trn1\nvectr.freq: 1GHz\n");
  EXPECT_THAT(LoadError(dotted), AllOf(HasSubstr(dotted + ":2"), HasSubstr("key 'vectr.freq'"),
                                       HasSubstr("the top-level keys are")));
}

TEST_F(LoaderTest, WrongUnitNamesFileLineAndKey) {
  const std::string path = Write("bad.yaml", "inherits: trn1\nvector:\n  freq: 1300ns\n");
  EXPECT_THAT(LoadError(path), AllOf(HasSubstr(path + ":3"), HasSubstr("key 'vector.freq'"),
                                     HasSubstr("wrong unit 'ns'"), HasSubstr("GHz")));
  const std::string bare = Write("bare.yaml", "inherits: trn1\ndma:\n  start_latency: 1300\n");
  EXPECT_THAT(LoadError(bare), AllOf(HasSubstr(bare + ":3"), HasSubstr("key 'dma.start_latency'"),
                                     HasSubstr("missing unit")));
}

TEST_F(LoaderTest, ImpossibleValueNamesFileLineAndKey) {
  const std::string path = Write("bad.yaml", "inherits: trn1\nmemory:\n  partitions: 200\n");
  EXPECT_THAT(LoadError(path),
              AllOf(HasSubstr(path + ":3"), HasSubstr("key 'memory.partitions'"),
                    HasSubstr("impossible value 200"), HasSubstr("must be >= 1 and <= 128")));
  const std::string zero = Write("zero.yaml", "inherits: trn1\nscalar.freq: 0GHz\n");
  EXPECT_THAT(LoadError(zero), AllOf(HasSubstr(zero + ":2"), HasSubstr("key 'scalar.freq'"),
                                     HasSubstr("must be >= 1MHz")));
}

TEST_F(LoaderTest, ImpossibleCombinationNamesKeysAndOrigins) {
  const std::string path = Write("bad.yaml", "inherits: trn1\ntensor:\n  rows: 256\n");
  EXPECT_THAT(LoadError(path), AllOf(HasSubstr(path + ": config 'bad': impossible combination"),
                                     HasSubstr("tensor.rows <= memory.partitions"),
                                     HasSubstr("tensor.rows = 256 (set at " + path + ":3)"),
                                     HasSubstr("memory.partitions = 128 (set at "),
                                     HasSubstr("trn1.yaml:")));
}

TEST_F(LoaderTest, MissingKeyNamesFileAndKeys) {
  const std::string path = Write("partial.yaml", "generation: X\nvector.freq: 1GHz\n");
  EXPECT_THAT(LoadError(path),
              AllOf(HasSubstr(path), HasSubstr("'partial' is incomplete"),
                    HasSubstr("key 'tensor.freq' (frequency: TensorE clock)"),
                    HasSubstr("key 'kernel.semaphores'"), ::testing::Not(HasSubstr("vector.freq'"))));
  EXPECT_THAT(LoadError(Write("empty.yaml", "")), HasSubstr("key 'generation'"));
}

TEST_F(LoaderTest, NonScalarValues) {
  const std::string list = Write("list.yaml", "inherits: trn1\nvector:\n  freq: [1GHz, 2GHz]\n");
  EXPECT_THAT(LoadError(list), AllOf(HasSubstr(list + ":3"), HasSubstr("key 'vector.freq'"),
                                     HasSubstr("expected a single value, found a list")));
  const std::string map = Write("map.yaml", "inherits: trn1\nvector:\n  freq:\n    a: 1\n");
  EXPECT_THAT(LoadError(map), AllOf(HasSubstr(map + ":3"), HasSubstr("found a map")));
  const std::string null = Write("null.yaml", "inherits: trn1\nvector:\n  freq:\n");
  EXPECT_THAT(LoadError(null), AllOf(HasSubstr(null + ":3"), HasSubstr("found no value")));
  const std::string group = Write("group.yaml", "inherits: trn1\nvector: 1GHz\n");
  EXPECT_THAT(LoadError(group), AllOf(HasSubstr(group + ":2"), HasSubstr("key 'vector'"),
                                      HasSubstr("is a group of keys (freq, min_ii")));
  const std::string inherits = Write("inh.yaml", "inherits: [trn1]\n");
  EXPECT_THAT(LoadError(inherits), AllOf(HasSubstr(inherits + ":1"), HasSubstr("key 'inherits'"),
                                         HasSubstr("found a list")));
}

TEST_F(LoaderTest, KeySetTwiceInOneFile) {
  const std::string path =
      Write("dup.yaml", "inherits: trn1\nvector.freq: 1GHz\nvector:\n  freq: 2GHz\n");
  EXPECT_THAT(LoadError(path), AllOf(HasSubstr(path + ":4"), HasSubstr("key 'vector.freq'"),
                                     HasSubstr("set twice in this file (first at line 2)")));
}

TEST_F(LoaderTest, MalformedYaml) {
  const std::string path = Write("bad.yaml", "inherits: trn1\nvector:\n  freq: [1GHz\n");
  EXPECT_THAT(LoadError(path), AllOf(HasSubstr(path + ":"), HasSubstr("malformed YAML")));
  const std::string list = Write("list.yaml", "- trn1\n- trn2\n");
  EXPECT_THAT(LoadError(list), AllOf(HasSubstr(list + ":1"), HasSubstr("expected a map")));
}

TEST_F(LoaderTest, UnknownConfigListsAvailable) {
  EXPECT_THAT(LoadError("trn9"),
              AllOf(HasSubstr("unknown config 'trn9'"), HasSubstr("available: trn1, trn1-fastvec, trn2, trn3")));
  const std::string path = Write("child.yaml", "generation: X\ninherits: trn9\n");
  EXPECT_THAT(LoadError(path), AllOf(HasSubstr(path + ":2"), HasSubstr("key 'inherits'"),
                                     HasSubstr("unknown config 'trn9'"), HasSubstr("trn2")));
  EXPECT_THAT(LoadError((dir_ / "nowhere.yaml").string()), HasSubstr("does not exist"));
}

TEST_F(LoaderTest, InheritanceCycle) {
  const std::string a = Write("a.yaml", "inherits: b\n");
  const std::string b = Write("b.yaml", "generation: X\ninherits: a\n");
  EXPECT_THAT(LoadError(a), AllOf(HasSubstr(b + ":2"), HasSubstr("key 'inherits'"),
                                  HasSubstr("inheritance cycle: " + a + " -> " + b + " -> " + a)));
  const std::string self = Write("self.yaml", "inherits: self\n");
  EXPECT_THAT(LoadError(self), AllOf(HasSubstr(self + ":1"), HasSubstr("inheritance cycle")));
}

TEST_F(LoaderTest, MalformedOverrides) {
  for (const char* o : {"vector.freq", "=2GHz", "vector.freq="}) {
    EXPECT_THAT(LoadError("trn1", {o}),
                AllOf(HasSubstr(std::string("malformed override '") + o + "'"),
                      HasSubstr("expected key=value")))
        << o;
  }
}

TEST_F(LoaderTest, InvalidOverrides) {
  EXPECT_THAT(LoadError("trn1", {"vector.frq=2GHz"}),
              AllOf(HasSubstr("override 'vector.frq=2GHz'"), HasSubstr("key 'vector.frq'"),
                    HasSubstr("unknown key")));
  EXPECT_THAT(LoadError("trn1", {"vector.freq=2"}),
              AllOf(HasSubstr("override 'vector.freq=2'"), HasSubstr("missing unit")));
  EXPECT_THAT(LoadError("trn1", {"vector.freq=-1GHz"}), HasSubstr("impossible value -1GHz"));
  EXPECT_THAT(LoadError("trn1", {"tensor.min_ii=0"}), HasSubstr("key 'tensor.min_ii'"));
  EXPECT_THAT(LoadError("trn1", {"vector=1"}), HasSubstr("is a group of keys"));
  EXPECT_THAT(LoadError("trn1", {"inherits=trn2"}), HasSubstr("cannot be overridden"));
}

void ExpectSameValues(const HardwareConfig& a, const HardwareConfig& b) {
  for (const ParamSpec& p : AllParams()) {
    HardwareConfig& ma = const_cast<HardwareConfig&>(a);
    HardwareConfig& mb = const_cast<HardwareConfig&>(b);
    std::visit([&](auto* x) { EXPECT_EQ(*x, *std::get<decltype(x)>(p.field(mb))) << p.key; },
               p.field(ma));
  }
}

TEST_F(LoaderTest, FormattedConfigLoadsBackToTheSameValues) {
  for (const std::string& name : AvailableConfigs()) {
    const HardwareConfig original = LoadHardwareConfig(name);
    const std::string text = FormatHardwareConfig(original);
    const HardwareConfig reloaded = LoadHardwareConfig(Write(name + "_resolved.yaml", text));
    ExpectSameValues(original, reloaded);
  }
}

TEST_F(LoaderTest, FormattedConfigRoundTripsOddValues) {
  const HardwareConfig original = LoadHardwareConfig(
      "trn3", {"vector.freq=1.23456789012GHz", "dma.bytes_per_ns=820GiB/s",
               "chip.hbm_stack_capacity=1000B", "kernel.launch=1.5ps", "generation=a: b # c"});
  const std::string text = FormatHardwareConfig(original);
  ExpectSameValues(original, LoadHardwareConfig(Write("odd.yaml", text)));
}

// A quoted `generation:` may span lines (YAML folds them, keeping a blank
// line as a line break); the printed header comment must stay one line
// (found by //fuzz:config_loader_fuzzer).
TEST_F(LoaderTest, FormattedConfigRoundTripsAMultiLineGeneration) {
  const std::string path = Write("multi.yaml", "inherits: trn3\ngeneration: 'first\n\nsecond\x01'\n");
  const HardwareConfig original = LoadHardwareConfig(path);
  ASSERT_EQ(original.generation, "first\nsecond\x01");
  const std::string text = FormatHardwareConfig(original);
  EXPECT_THAT(text, HasSubstr("(first\\nsecond\\x01)"));
  ExpectSameValues(original, LoadHardwareConfig(Write("multi_resolved.yaml", text)));
}

TEST_F(LoaderTest, FormattedConfigShowsUnitsDescriptionsAndOrigins) {
  const std::string text = FormatHardwareConfig(LoadHardwareConfig("trn3"));
  EXPECT_THAT(text, HasSubstr("Hardware config 'trn3' (NeuronCore-v4)"));
  EXPECT_THAT(text, HasSubstr("tensor:\n  freq: 2.4GHz"));
  EXPECT_THAT(text, HasSubstr("freq: 2.4GHz  # TensorE clock; set at "));
  EXPECT_THAT(text, HasSubstr("trn2.yaml:"));
  EXPECT_THAT(text, HasSubstr("sbuf_per_partition: 256KiB"));
  EXPECT_THAT(text, HasSubstr("start_latency: 474ns"));
  EXPECT_THAT(text, HasSubstr("hbm_stack_bandwidth: 1175B/ns"));
  EXPECT_THAT(text, HasSubstr("min_ii: 64cycles"));
}

TEST_F(LoaderTest, ConfigDirectoryUnderBazelTest) {
  EXPECT_TRUE(fs::is_regular_file(fs::path(ConfigDirectory()) / "trn1.yaml"));
  EXPECT_THAT(AvailableConfigs(), IsSupersetOf({"trn1", "trn2", "trn3"}));
}

TEST_F(LoaderTest, ConfigDirectoryFromEnvironment) {
  Write("part.yaml", "inherits: trn1\n");  // no trn1 here, and the shipped dir is hidden
  setenv("NSIM_CONFIG_DIR", dir_.c_str(), 1);
  EXPECT_EQ(ConfigDirectory(), dir_.string());
  EXPECT_THAT(AvailableConfigs(), ElementsAre("part"));
  EXPECT_THAT(LoadError("part"), HasSubstr("unknown config 'trn1'; available: part"));
  setenv("NSIM_CONFIG_DIR", (dir_ / "missing").c_str(), 1);
  EXPECT_THROW(ConfigDirectory(), SimError);
  unsetenv("NSIM_CONFIG_DIR");
  EXPECT_NE(ConfigDirectory(), dir_.string());
}

// Every value in a shipped config names its source in an end-of-line
// comment (configs/README.md); only group headers like "tensor:" need none.
TEST_F(LoaderTest, ShippedValuesHaveSourceComments) {
  for (const std::string& name : AvailableConfigs()) {
    std::ifstream in(fs::path(ConfigDirectory()) / (name + ".yaml"));
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos || line[start] == '#' || line.back() == ':') continue;
      EXPECT_THAT(line, HasSubstr(" # ")) << name << ".yaml:" << number << " has no source";
    }
  }
}

// `bazel run` sets BUILD_WORKSPACE_DIRECTORY; its configs/ (the source tree)
// wins over the runfiles so an edited file is used without a rebuild.
TEST_F(LoaderTest, ConfigDirectoryUnderBazelRun) {
  fs::create_directories(dir_ / "configs");
  Write("configs/edited.yaml", "inherits: trn1\n");
  setenv("BUILD_WORKSPACE_DIRECTORY", dir_.c_str(), 1);
  EXPECT_EQ(ConfigDirectory(), (dir_ / "configs").string());
  EXPECT_THAT(AvailableConfigs(), ElementsAre("edited"));
  unsetenv("BUILD_WORKSPACE_DIRECTORY");
}

}  // namespace
}  // namespace nsim

#include "sim/config/params.h"

#include <limits>

#include "sim/base/error.h"

namespace nsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Upper limits. They only catch typos (an extra "000", ps for ns); any
// plausible hardware, including what-if parts, is well inside them.
constexpr double kMaxFreqHz = 100e9;
// Lower limits of rates: a clock or a bandwidth near zero makes one
// instruction or transfer last longer than simulated time can count (INT64_MAX
// ps, 106 days); "1e-300Hz" is a typo, not a part. 1 MHz and 1 MB/s are three
// orders of magnitude below any NeuronCore clock or DMA rate.
constexpr double kMinFreqHz = 1e6;
constexpr double kMinBytesPerNs = 1e-3;       // 1 MB/s
constexpr double kMaxCycles = 1e6;
constexpr double kMaxTimePs = 1e12;           // 1 s
constexpr double kMaxBytesPerNs = 1e5;        // 100 TB/s
constexpr double kMaxChipCores = 16;        // the model elaborates at most this many cores
// SBUF + PSUM of all partitions, allocated in host memory by every Device.
constexpr int64_t kOnChipHostBytes = int64_t{1} << 30;
constexpr double kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;

Limits Positive(double max) { return {0, max, true}; }
Limits Between(double min, double max) { return {min, max, false}; }

#define NSIM_FIELD(member) [](HardwareConfig& c) -> FieldRef { return &c.member; }

using EngineOf = EngineParams& (*)(HardwareConfig&);

// The keys every engine sequencer has. The compute engines occupy their data
// path for at least one cycle per instruction (min_ii >= 1); the Sync engine
// has no data path, so 0 is allowed there.
void AddEngineKeys(const std::string& engine, const std::string& who, double min_ii_floor,
                   EngineOf get, std::vector<ParamSpec>* table) {
  auto field = [get](int64_t EngineParams::*m) {
    return [get, m](HardwareConfig& c) -> FieldRef { return &(get(c).*m); };
  };
  table->push_back({engine + ".freq", UnitKind::kFrequency, Between(kMinFreqHz, kMaxFreqHz), who + " clock",
                    [get](HardwareConfig& c) -> FieldRef { return &get(c).freq_hz; }});
  table->push_back({engine + ".min_ii", UnitKind::kCycles, Between(min_ii_floor, kMaxCycles),
                    "MIN_II: shortest initiation interval of a data-path instruction, in " + who +
                        " cycles",
                    field(&EngineParams::min_ii_cycles)});
  table->push_back({engine + ".pipeline_latency", UnitKind::kCycles, Between(0, kMaxCycles),
                    "issue-to-commit latency beyond the II (L_pipe), in " + who + " cycles",
                    field(&EngineParams::pipeline_latency_cycles)});
  table->push_back({engine + ".dispatch", UnitKind::kCycles, Between(0, kMaxCycles),
                    "sequencer cost of a control instruction (DMA trigger, wait), in " + who +
                        " cycles",
                    field(&EngineParams::dispatch_cycles)});
}

std::vector<ParamSpec> BuildTable() {
  std::vector<ParamSpec> t;
  auto add = [&t](ParamSpec p) { t.push_back(std::move(p)); };
  add({"generation", UnitKind::kText, {}, "NeuronCore generation, e.g. NeuronCore-v2",
       NSIM_FIELD(generation)});

  AddEngineKeys("tensor", "TensorE", 1, [](HardwareConfig& c) -> EngineParams& { return c.tensor; },
                &t);
  add({"tensor.rows", UnitKind::kCount, Between(1, 1024),
       "PE array rows (contraction size K of the stationary tile)", NSIM_FIELD(tensor.rows)});
  add({"tensor.cols", UnitKind::kCount, Between(1, 1024),
       "PE array columns (free size M of the stationary tile)", NSIM_FIELD(tensor.cols)});
  add({"tensor.moving_free_max", UnitKind::kCount, Between(1, 65536),
       "largest moving free size of one matmul, in elements", NSIM_FIELD(tensor.moving_free_max)});
  add({"tensor.mm_init_latency", UnitKind::kCycles, Between(0, kMaxCycles),
       "MM_INIT_LATENCY: floor of the matmul II, in TensorE cycles",
       NSIM_FIELD(tensor.mm_init_latency_cycles)});
  add({"tensor.load_stationary_speedup", UnitKind::kRatio, Between(1, 128),
       "LoadStationary runs this many times faster than a matmul of the same free size",
       NSIM_FIELD(tensor.load_stationary_speedup)});
  add({"tensor.fp32_factor", UnitKind::kRatio, Between(1, 64),
       "total matmul cost multiplier for fp32 operands (throughput)", NSIM_FIELD(tensor.fp32_factor)});
  add({"tensor.fp32_passes", UnitKind::kCount, Between(1, 16),
       "an fp32 matmul runs as this many pipelined passes (FP32_LO_HI), sharing fp32_factor",
       NSIM_FIELD(tensor.fp32_passes)});

  AddEngineKeys("vector", "VectorE", 1, [](HardwareConfig& c) -> EngineParams& { return c.vector; },
                &t);
  add({"vector.two_input_factor", UnitKind::kRatio, Positive(64),
       "tensor_tensor cycles per element off the fast path (2N)",
       NSIM_FIELD(vector.two_input_factor)});
  add({"vector.reduce_fast_factor", UnitKind::kRatio, Positive(64),
       "tensor_reduce cycles per element for bf16 add/max (N/2)",
       NSIM_FIELD(vector.reduce_fast_factor)});
  add({"vector.reciprocal_factor", UnitKind::kRatio, Positive(1024),
       "divide / reciprocal cycles per element (8N)", NSIM_FIELD(vector.reciprocal_factor)});
  add({"vector.bn_stats_fmax", UnitKind::kCount, Between(1, 65536),
       "bn_stats: most free elements per partition", NSIM_FIELD(vector.bn_stats_fmax)});
  add({"vector.bn_aggr_factor", UnitKind::kRatio, Positive(64),
       "bn_aggr cycles per input element (13N/3)", NSIM_FIELD(vector.bn_aggr_factor)});
  add({"vector.perf_mode_copy", UnitKind::kRatio, Between(1, 64),
       "speed-up of tensor_copy/tensor_scalar/memset, SBUF only, 16-bit, contiguous (1 = none)",
       NSIM_FIELD(vector.perf_mode_copy)});
  add({"vector.perf_mode_copy_partial", UnitKind::kRatio, Between(1, 64),
       "the same speed-up when non-contiguous or one side in PSUM (1 = none)",
       NSIM_FIELD(vector.perf_mode_copy_partial)});
  add({"vector.perf_mode_tensor_tensor", UnitKind::kRatio, Between(1, 64),
       "speed-up of tensor_tensor with both inputs in SBUF and 16-bit (1 = none)",
       NSIM_FIELD(vector.perf_mode_tensor_tensor)});
  add({"vector.stride_penalty", UnitKind::kSize, Between(1, 64 * kKiB),
       "an innermost stride above this halves the VectorE access bandwidth",
       NSIM_FIELD(vector.stride_penalty_bytes)});

  AddEngineKeys("scalar", "ScalarE", 1, [](HardwareConfig& c) -> EngineParams& { return c.scalar; },
                &t);
  add({"scalar.accumulate", UnitKind::kCycles, Between(0, kMaxCycles),
       "extra cost of an activation with accumulate (ActReadAccumulator), in ScalarE cycles",
       NSIM_FIELD(scalar.accumulate_cycles)});
  add({"scalar.perf_mode_16bit", UnitKind::kRatio, Between(1, 64),
       "speed-up of 16-bit identity/copy-type activations (1 = none)",
       NSIM_FIELD(scalar.perf_mode_16bit)});
  add({"scalar.table_load", UnitKind::kTime, Between(0, kMaxTimePs),
       "activation-table switch when a function needs another table set",
       NSIM_FIELD(scalar.table_load_ps)});
  add({"scalar.stride_penalty", UnitKind::kSize, Between(1, 64 * kKiB),
       "an innermost stride above this halves the ScalarE access bandwidth",
       NSIM_FIELD(scalar.stride_penalty_bytes)});

  AddEngineKeys("gpsimd", "GpSimdE", 1, [](HardwareConfig& c) -> EngineParams& { return c.gpsimd; },
                &t);
  add({"gpsimd.start", UnitKind::kCycles, Between(0, kMaxCycles),
       "GPSIMD_START: start-up overhead of an instruction, in GpSimdE cycles",
       NSIM_FIELD(gpsimd.start_cycles)});
  add({"gpsimd.iota_per_elem", UnitKind::kRatio, Positive(1024),
       "iota / affine_select GpSimdE cycles per free element",
       NSIM_FIELD(gpsimd.iota_cycles_per_elem)});
  add({"gpsimd.partition_reduce_per_elem", UnitKind::kRatio, Positive(1024),
       "cross-partition reduce GpSimdE cycles per free element",
       NSIM_FIELD(gpsimd.partition_reduce_cycles_per_elem)});
  add({"gpsimd.nonzero_per_elem", UnitKind::kRatio, Positive(1024),
       "nonzero_with_count GpSimdE cycles per source element (of a read partition)",
       NSIM_FIELD(gpsimd.nonzero_cycles_per_elem)});
  add({"gpsimd.gather_per_elem", UnitKind::kRatio, Positive(1024),
       "nc_n_gather GpSimdE cycles per gathered (dst) element",
       NSIM_FIELD(gpsimd.gather_cycles_per_elem)});

  AddEngineKeys("sync", "Sync engine", 0, [](HardwareConfig& c) -> EngineParams& { return c.sync; },
                &t);

  // 16 is the per-core count of every generation and the semaphore increment
  // a transfer waits for (S8); more engines would need a new completion rule.
  add({"dma.engines", UnitKind::kCount, Between(1, 16), "DMA engines per core",
       NSIM_FIELD(dma.engines)});
  add({"dma.queues_per_engine", UnitKind::kCount, Between(1, 64), "DMA queues per engine",
       NSIM_FIELD(dma.queues_per_engine)});
  add({"dma.partitions_per_engine", UnitKind::kCount, Between(1, 128),
       "default split of a transfer: one engine per this many SBUF partitions",
       NSIM_FIELD(dma.partitions_per_engine)});
  add({"dma.bytes_per_ns", UnitKind::kBandwidth, Between(kMinBytesPerNs, kMaxBytesPerNs),
       "achievable bandwidth of one DMA engine", NSIM_FIELD(dma.bytes_per_ns)});
  add({"dma.start_latency", UnitKind::kTime, Between(0, kMaxTimePs),
       "DMA trigger to first byte", NSIM_FIELD(dma.start_latency_ps)});
  add({"dma.descriptor", UnitKind::kTime, Between(0, kMaxTimePs),
       "processing time per descriptor (contiguous run)", NSIM_FIELD(dma.descriptor_ps)});
  add({"dma.max_descriptor", UnitKind::kSize, Between(1, 4 * kGiB),
       "longest contiguous run of one descriptor; longer runs are split",
       NSIM_FIELD(dma.max_descriptor_bytes)});
  add({"dma.transpose_from_hbm", UnitKind::kRatio, Positive(1),
       "dma_transpose from HBM: fraction of a copy's throughput", NSIM_FIELD(dma.transpose_from_hbm)});
  add({"dma.transpose_from_sbuf", UnitKind::kRatio, Positive(1),
       "dma_transpose from SBUF: fraction of a copy's throughput", NSIM_FIELD(dma.transpose_from_sbuf)});
  add({"dma.dge", UnitKind::kTime, Between(0, kMaxTimePs),
       "dma_indirect: busy time of the issuing sequencer generating the descriptors at run time (DGE)",
       NSIM_FIELD(dma.dge_ps)});
  add({"dma.trigger", UnitKind::kTime, Between(0, kMaxTimePs),
       "busy time of the issuing sequencer per DMA trigger", NSIM_FIELD(dma.trigger_ps)});
  add({"dma.piece_setup", UnitKind::kTime, Between(0, kMaxTimePs),
       "per DMA engine share of a transfer: fixed time before its first descriptor",
       NSIM_FIELD(dma.piece_setup_ps)});
  add({"dma.queue_setup", UnitKind::kTime, Between(0, kMaxTimePs),
       "per transfer, serialised on its queue: descriptor-ring processing (occupancy)",
       NSIM_FIELD(dma.queue_setup_ps)});
  add({"dma.queue_completion", UnitKind::kTime, Between(0, kMaxTimePs),
       "per transfer, serialised on its queue: in-order completion and semaphore writes (occupancy)",
       NSIM_FIELD(dma.queue_completion_ps)});

  add({"memory.partitions", UnitKind::kCount, Between(1, 128), "SBUF and PSUM partitions",
       NSIM_FIELD(memory.partitions)});
  add({"memory.sbuf_per_partition", UnitKind::kSize, Between(1, 64 * kMiB),
       "SBUF capacity of one partition", NSIM_FIELD(memory.sbuf_bytes_per_partition)});
  add({"memory.psum_banks", UnitKind::kCount, Between(1, 64), "PSUM banks per partition",
       NSIM_FIELD(memory.psum_banks)});
  add({"memory.psum_bank_bytes", UnitKind::kSize, Between(4, 1 * kMiB),
       "PSUM bank capacity per partition", NSIM_FIELD(memory.psum_bank_bytes)});

  add({"kernel.launch", UnitKind::kTime, Between(0, kMaxTimePs),
       "NEFF start-up before the first instruction", NSIM_FIELD(kernel.launch_ps)});
  add({"kernel.teardown", UnitKind::kTime, Between(0, kMaxTimePs),
       "NEFF tear-down after the last completion", NSIM_FIELD(kernel.teardown_ps)});
  add({"kernel.semaphore_latency", UnitKind::kTime, Between(0, kMaxTimePs),
       "semaphore signal on one engine to wake-up of another",
       NSIM_FIELD(kernel.semaphore_latency_ps)});
  add({"kernel.raw_turnaround", UnitKind::kTime, Between(0, kMaxTimePs),
       "same-engine RAW dependency: output committed to the dependent instruction's read",
       NSIM_FIELD(kernel.raw_turnaround_ps)});
  add({"kernel.neff_preamble", UnitKind::kTime, Between(0, kMaxTimePs),
       "NEFF pre-amble before the kernel (semaphore/queue setup, descriptor rings); in NCL, not in nrtpy device time",
       NSIM_FIELD(kernel.neff_preamble_ps)});
  add({"kernel.neff_postamble", UnitKind::kTime, Between(0, kMaxTimePs),
       "NEFF post-amble after the kernel (completion, notification); in NCL, not in nrtpy device time",
       NSIM_FIELD(kernel.neff_postamble_ps)});
  add({"kernel.semaphores", UnitKind::kCount, Between(1, 65536), "hardware semaphores per core",
       NSIM_FIELD(kernel.semaphores)});

  add({"host.framework_dispatch", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of the framework dispatching one ATen op to the device",
       NSIM_FIELD(host.framework_dispatch_ps)});
  add({"host.runtime_submit", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of one nrta_execute_schedule call (queueing a kernel execution)",
       NSIM_FIELD(host.runtime_submit_ps)});
  add({"host.kernel_load", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of the first load of a kernel into the runtime's cache",
       NSIM_FIELD(host.kernel_load_ps)});
  add({"host.copy_setup", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of setting up one host<->device copy", NSIM_FIELD(host.copy_setup_ps)});
  add({"host.alloc", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of one device-memory allocation", NSIM_FIELD(host.alloc_ps)});
  add({"host.graph_lookup", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of one compiled-region call besides guards: cache lookup and graph launch",
       NSIM_FIELD(host.graph_lookup_ps)});
  add({"host.guard_eval", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of evaluating one guard of a compiled region (one per input)",
       NSIM_FIELD(host.guard_eval_ps)});
  add({"host.trace_op", UnitKind::kTime, Between(0, kMaxTimePs),
       "host cost of capturing one ATen op while tracing a function for compile()",
       NSIM_FIELD(host.trace_op_ps)});
  // Real graph compilations take seconds to minutes, hence a larger bound.
  add({"host.graph_compile", UnitKind::kTime, Between(0, 3600 * kMaxTimePs),
       "host cost of compiling one captured region into a kernel (once per cache miss)",
       NSIM_FIELD(host.graph_compile_ps)});

  add({"capture.per_execution", UnitKind::kTime, Between(0, kMaxTimePs),
       "device time added to each execution while the profiler captures its core (DEVICE mode)",
       NSIM_FIELD(capture.per_execution_ps)});
  add({"capture.per_record", UnitKind::kTime, Between(0, kMaxTimePs),
       "device time added per instruction or DMA piece recorded while capturing",
       NSIM_FIELD(capture.per_record_ps)});

  add({"chip.cores", UnitKind::kCount, Between(1, kMaxChipCores), "physical NeuronCores per chip",
       NSIM_FIELD(chip.cores)});
  add({"chip.hbm_stacks", UnitKind::kCount, Between(1, kMaxChipCores),
       "HBM stacks per chip; core c uses stack c / (chip.cores / chip.hbm_stacks)",
       NSIM_FIELD(chip.hbm_stacks)});
  add({"chip.hbm_stack_bandwidth", UnitKind::kBandwidth, Between(kMinBytesPerNs, kMaxBytesPerNs),
       "bandwidth of one HBM stack, shared by the cores on it",
       NSIM_FIELD(chip.hbm_stack_bytes_per_ns)});
  add({"chip.hbm_stack_capacity", UnitKind::kSize, Between(1, 16 * kTiB),
       "capacity of one HBM stack, split evenly between the cores on it",
       NSIM_FIELD(chip.hbm_stack_bytes)});
  add({"chip.host_link_bandwidth", UnitKind::kBandwidth, Between(kMinBytesPerNs, kMaxBytesPerNs),
       "host<->device (PCIe) copy bandwidth", NSIM_FIELD(chip.host_link_bytes_per_ns)});
  add({"chip.host_link_latency", UnitKind::kTime, Between(0, kMaxTimePs),
       "device-side fixed latency of one host<->device copy",
       NSIM_FIELD(chip.host_link_latency_ps)});
  add({"chip.remote_semaphore_latency", UnitKind::kTime, Between(0, kMaxTimePs),
       "a core's semaphore write into its LNC pair peer (core_barrier, sendrecv)",
       NSIM_FIELD(chip.remote_semaphore_latency_ps)});
  add({"chip.default_lnc", UnitKind::kCount, Between(1, 2),
       "physical cores per logical NeuronCore by default (LNC, S16: 1 or 2)",
       NSIM_FIELD(chip.default_lnc)});
  return t;
}

#undef NSIM_FIELD

void CheckLimits(const ParamSpec& spec, double value, const std::string& text) {
  const Limits& l = spec.limits;
  const bool above_min = l.min_exclusive ? value > l.min : value >= l.min;
  if (above_min && value <= l.max) return;
  // The value as written: a formatted 1e-300 would print hundreds of digits.
  throw SimError("impossible value " + text + ": must be " +
                 FormatLimits(spec));
}

// A rule between keys: `holds` must be true for the resolved config. (A zero
// divisor is left to the per-key limits, which reject it.)
struct Rule {
  std::vector<std::string> keys;  // the keys involved, printed with their values and origins
  const char* statement;
  const char* why;
  bool (*holds)(const HardwareConfig&);
};

const std::vector<Rule>& Rules() {
  static const std::vector<Rule> rules = {
      {{"tensor.rows", "memory.partitions"}, "tensor.rows <= memory.partitions",
       "the contraction dimension of the stationary tile lies along the partitions",
       [](const HardwareConfig& c) { return c.tensor.rows <= c.memory.partitions; }},
      {{"tensor.cols", "memory.partitions"}, "tensor.cols <= memory.partitions",
       "each PE column writes one PSUM partition",
       [](const HardwareConfig& c) { return c.tensor.cols <= c.memory.partitions; }},
      {{"dma.partitions_per_engine", "memory.partitions"},
       "dma.partitions_per_engine <= memory.partitions", "an engine cannot own more partitions",
       [](const HardwareConfig& c) { return c.dma.partitions_per_engine <= c.memory.partitions; }},
      {{"tensor.moving_free_max", "memory.psum_banks", "memory.psum_bank_bytes"},
       "4 B * tensor.moving_free_max <= memory.psum_banks * memory.psum_bank_bytes",
       "the fp32 output of the largest matmul must fit in PSUM",
       [](const HardwareConfig& c) {
         return 4 * c.tensor.moving_free_max <= c.memory.psum_banks * c.memory.psum_bank_bytes;
       }},
      {{"chip.cores", "chip.hbm_stacks"}, "chip.cores is a multiple of chip.hbm_stacks",
       "every stack is shared by the same number of cores",
       [](const HardwareConfig& c) { return c.chip.hbm_stacks == 0 || c.chip.cores % c.chip.hbm_stacks == 0; }},
      {{"chip.cores", "chip.default_lnc"}, "chip.cores is a multiple of chip.default_lnc",
       "a logical core groups that many physical cores",
       [](const HardwareConfig& c) { return c.chip.default_lnc == 0 || c.chip.cores % c.chip.default_lnc == 0; }},
      {{"memory.partitions", "memory.sbuf_per_partition", "memory.psum_banks", "memory.psum_bank_bytes"},
       "memory.partitions * (memory.sbuf_per_partition + memory.psum_banks * memory.psum_bank_bytes) <= 1GiB",
       "the simulator backs SBUF and PSUM in host memory; the shipped parts need 26-34 MiB",
       [](const HardwareConfig& c) {
         return c.memory.partitions * (c.memory.sbuf_bytes_per_partition +
                                       c.memory.psum_banks * c.memory.psum_bank_bytes) <= kOnChipHostBytes;
       }},
  };
  return rules;
}

std::string OriginOf(const HardwareConfig& config, const std::string& key) {
  auto it = config.origin.find(key);
  return it == config.origin.end() ? "unset" : "set at " + it->second;
}

}  // namespace

const std::vector<ParamSpec>& AllParams() {
  static const std::vector<ParamSpec> table = BuildTable();
  return table;
}

const ParamSpec* FindParam(const std::string& key) {
  for (const ParamSpec& p : AllParams()) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

bool IsParamGroup(const std::string& key) {
  for (const ParamSpec& p : AllParams()) {
    if (p.key.compare(0, key.size() + 1, key + ".") == 0) return true;
  }
  return false;
}

std::vector<std::string> ParamNamesIn(const std::string& group) {
  const std::string prefix = group.empty() ? "" : group + ".";
  std::vector<std::string> names;
  for (const ParamSpec& p : AllParams()) {
    if (p.key.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = p.key.substr(prefix.size());
    const std::string name = rest.substr(0, rest.find('.'));
    if (names.empty() || names.back() != name) names.push_back(name);
  }
  return names;
}

void SetParam(const ParamSpec& spec, const std::string& text, HardwareConfig* config) {
  const FieldRef ref = spec.field(*config);
  if (auto* s = std::get_if<std::string*>(&ref)) {
    if (text.find_first_not_of(" \t") == std::string::npos) {
      throw SimError("empty value; expected " + UnitHint(spec.kind));
    }
    **s = text;
    return;
  }
  const double value = ParseQuantity(spec.kind, text);
  CheckLimits(spec, value, text);
  if (auto* d = std::get_if<double*>(&ref)) {
    **d = value;
  } else {
    *std::get<int64_t*>(ref) = static_cast<int64_t>(value);
  }
}

std::string FormatParam(const ParamSpec& spec, const HardwareConfig& config) {
  // The accessor needs a mutable config only to hand out a field address;
  // nothing is written here.
  const FieldRef ref = spec.field(const_cast<HardwareConfig&>(config));
  if (auto* s = std::get_if<std::string*>(&ref)) return **s;
  if (auto* d = std::get_if<double*>(&ref)) return FormatQuantity(spec.kind, **d);
  return FormatQuantity(spec.kind, static_cast<double>(*std::get<int64_t*>(ref)));
}

std::string FormatLimits(const ParamSpec& spec) {
  if (spec.kind == UnitKind::kText) return "not empty";
  const Limits& l = spec.limits;
  std::string out = (l.min_exclusive ? "> " : ">= ") + FormatQuantity(spec.kind, l.min);
  if (l.max != kInf) out += " and <= " + FormatQuantity(spec.kind, l.max);
  return out;
}

void CheckConsistency(const HardwareConfig& config) {
  for (const Rule& rule : Rules()) {
    if (rule.holds(config)) continue;
    std::string values;
    for (const std::string& key : rule.keys) {
      values += "\n  " + key + " = " + FormatParam(*FindParam(key), config) + " (" +
                OriginOf(config, key) + ")";
    }
    throw SimError(config.source + ": config '" + config.name + "': impossible combination, " +
                   rule.statement + " does not hold (" + rule.why + "):" + values);
  }
}

void DeriveChipShares(HardwareConfig* config) {
  const ChipParams& chip = config->chip;
  const int64_t sharing = chip.cores_per_stack();
  config->dma.hbm_bytes_per_ns = chip.hbm_stack_bytes_per_ns / static_cast<double>(sharing);
  config->memory.hbm_bytes = chip.hbm_stack_bytes / sharing;
}

uint64_t ConfigContentHash(const HardwareConfig& config) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (const ParamSpec& p : AllParams()) {
    for (char c : p.key + "=" + FormatParam(p, config) + "\n") {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
  return h;
}

std::string DescribeParams() {
  std::string out = "| key | unit | limits | description |\n|---|---|---|---|\n";
  for (const ParamSpec& p : AllParams()) {
    out += "| `" + p.key + "` | " + UnitKindName(p.kind) + " | " + FormatLimits(p) + " | " +
           p.description + " |\n";
  }
  return out;
}

}  // namespace nsim

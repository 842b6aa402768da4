#pragma once
// The resolved hardware configuration of one NeuronCore. Every timing
// constant of the model lives here and comes from a file under configs/
// (see config/params.cc for the one table that declares each key, its unit,
// its description and its limits). Values are stored in base units: Hz,
// bytes, picoseconds, bytes per nanosecond, cycles of the engine named.
#include <cstdint>
#include <map>
#include <string>

#include "sim/base/time.h"

namespace nsim {

// Fields shared by the four compute engines and the Sync sequencer.
struct EngineParams {
  double freq_hz = 0;               // clock of this engine
  int64_t min_ii_cycles = 0;        // MIN_II: shortest initiation interval of a data-path instruction
  int64_t pipeline_latency_cycles = 0;  // issue-to-commit latency beyond the II (L_pipe)
  int64_t dispatch_cycles = 0;      // sequencer cost of a control instruction (DMA trigger, wait)
};

struct TensorEngineParams : EngineParams {
  int64_t rows = 0, cols = 0;              // PE array (stationary K x M limit)
  int64_t moving_free_max = 0;             // largest moving free size per matmul
  int64_t mm_init_latency_cycles = 0;      // MM_INIT_LATENCY: floor of the matmul II
  double load_stationary_speedup = 0;      // LS runs this many times faster than MM of the same free size
  double fp32_factor = 0;                  // total cost multiplier for fp32 operands (throughput)
  int64_t fp32_passes = 1;                 // fp32 matmul runs as this many pipelined passes (FP32_LO_HI)
};

struct VectorEngineParams : EngineParams {
  double two_input_factor = 0;       // tensor_tensor cost per element when not on the fast path (2N)
  double reduce_fast_factor = 0;     // tensor_reduce per element for bf16 add/max (N/2)
  double reciprocal_factor = 0;      // divide / reciprocal cost per element (8N)
  int64_t bn_stats_fmax = 0;         // bn_stats: most elements per partition
  double bn_aggr_factor = 0;         // bn_aggr cost per input element (13 per triple: 13N/3)
  double perf_mode_copy = 0;         // speed-up of tensor_copy/tensor_scalar/memset, SBUF, 16-bit, contiguous
  double perf_mode_copy_partial = 0; // same, when non-contiguous or one side in PSUM
  double perf_mode_tensor_tensor = 0;// speed-up of tensor_tensor with both inputs in SBUF and 16-bit
  int64_t stride_penalty_bytes = 0;  // innermost stride above this halves the access bandwidth
};

struct ScalarEngineParams : EngineParams {
  int64_t accumulate_cycles = 0;     // extra cost of activation with accumulate (ActReadAccumulator)
  double perf_mode_16bit = 0;        // speed-up for 16-bit identity/copy-type activations (v4: 2)
  Picos table_load_ps = 0;           // activation-table switch when a function needs another table set
  int64_t stride_penalty_bytes = 0;
};

struct GpSimdEngineParams : EngineParams {
  int64_t start_cycles = 0;              // GPSIMD_START
  double iota_cycles_per_elem = 0;       // per free element
  double nonzero_cycles_per_elem = 0;    // nonzero_with_count, per source element
  double gather_cycles_per_elem = 0;     // nc_n_gather, per gathered element
  double partition_reduce_cycles_per_elem = 0;  // per free element of a cross-partition reduce
};

struct DmaParams {
  int64_t engines = 0;                 // DMA engines per core
  int64_t queues_per_engine = 0;
  int64_t partitions_per_engine = 0;   // default split: one engine per this many SBUF partitions
  double bytes_per_ns = 0;             // achievable bandwidth of one engine
  Picos start_latency_ps = 0;          // trigger to first byte
  Picos descriptor_ps = 0;             // per descriptor (contiguous run) processed
  int64_t max_descriptor_bytes = 0;    // a longer contiguous run is split
  double transpose_from_hbm = 1;       // dma_transpose HBM -> SBUF: fraction of a copy's throughput
  double transpose_from_sbuf = 1;      // dma_transpose SBUF -> SBUF: fraction of a copy's throughput
  Picos dge_ps = 0;                    // dma_indirect: the issuing sequencer's busy time generating its descriptors
  // Derived, not a key: chip.hbm_stack_bandwidth / cores per stack (DeriveChipShares).
  double hbm_bytes_per_ns = 0;         // this core's share of its HBM stack, shared by all its engines
  Picos trigger_ps = 0;                // busy time of the issuing sequencer per DMA trigger
  // Fixed costs as occupancy, not only latency (issue 9): a queue processes
  // one transfer's descriptor ring at a time and completes transfers in order.
  Picos piece_setup_ps = 0;            // per engine share of a transfer, before its first descriptor
  Picos queue_setup_ps = 0;            // per transfer, serialised on its queue (descriptor ring processing)
  Picos queue_completion_ps = 0;       // per transfer, serialised on its queue (in-order completion + semaphore writes)
};

struct MemoryParams {
  int64_t partitions = 0;
  int64_t sbuf_bytes_per_partition = 0;
  int64_t psum_banks = 0;
  int64_t psum_bank_bytes = 0;         // per partition
  // Derived, not a key: chip.hbm_stack_capacity / cores per stack (DeriveChipShares).
  int64_t hbm_bytes = 0;               // device memory of this core (its share of its HBM stack)
};

struct KernelParams {
  Picos launch_ps = 0;                 // NEFF start-up before the first instruction
  Picos teardown_ps = 0;               // after the last completion
  Picos semaphore_latency_ps = 0;      // signal on one engine to wake-up of another
  Picos raw_turnaround_ps = 0;         // same-engine RAW: output committed to the dependent read starting
  // What one NEFF execution costs around the kernel's own instructions
  // (semaphore and queue setup, descriptor rings, completion): inside the NCL
  // and profile windows, outside nrtpy's device-side execution (model/timing_window.h).
  Picos neff_preamble_ps = 0;
  Picos neff_postamble_ps = 0;
  int64_t semaphores = 0;
};

// Host-side costs around the device: the framework and the runtime place
// device work on the simulated clock the host and the device share
// (sim/base/sim_clock.h). They are not part of the NeuronCore model; they live here
// so that every modelled time has one home, a unit and a source.
struct HostParams {
  Picos framework_dispatch_ps = 0;    // per ATen op the framework dispatches to the device
  Picos runtime_submit_ps = 0;        // host cost of one nrta_execute_schedule call
  Picos kernel_load_ps = 0;           // first load of a kernel into the runtime's cache
  Picos copy_setup_ps = 0;            // host-side set-up of a host<->device copy
  Picos alloc_ps = 0;                 // host cost of one device-memory allocation
  // compile() (backend/compile): what a call of a compiled function costs on
  // the host besides its runtime submission, and what its first call costs.
  Picos graph_lookup_ps = 0;          // per compiled-region call: cache lookup and graph launch
  Picos guard_eval_ps = 0;            // per guard evaluated (one per tensor or scalar input)
  Picos trace_op_ps = 0;              // per ATen op captured when a region is traced
  Picos graph_compile_ps = 0;         // per region compiled (lowering, scheduling, NEFF build)
};

// What profiling with device capture (ProfileMode DEVICE) costs on the device:
// the runtime arms the trace and the hardware writes a notification record
// for every instruction and DMA piece into HBM (S14: ~5 GB reserved for
// notifications on Trn2/Trn3), then the runtime drains it. Charged to an
// execution's device time only while a profile captures that core.
struct CaptureParams {
  Picos per_execution_ps = 0;   // arming and draining the trace, per execution
  Picos per_record_ps = 0;      // per instruction or DMA-piece notification written
};

// The chip around the cores: how many NeuronCores share which HBM stacks, and
// the host link. Cores are grouped onto stacks in order: core c uses stack
// c / cores_per_stack() (S16: "Each bank is shared by two physical
// NeuronCore-v3", adjacent cores). The per-core HBM figures (dma.hbm_bytes_per_ns,
// memory.hbm_bytes) are derived from these.
struct ChipParams {
  int64_t cores = 0;                   // physical NeuronCores per chip
  int64_t hbm_stacks = 0;              // HBM stacks per chip
  double hbm_stack_bytes_per_ns = 0;   // bandwidth of one stack, shared by the cores on it
  int64_t hbm_stack_bytes = 0;         // capacity of one stack
  double host_link_bytes_per_ns = 0;   // host<->device (PCIe) bandwidth
  Picos host_link_latency_ps = 0;      // device-side fixed latency of one host<->device DMA
  int64_t default_lnc = 0;             // physical cores per logical core unless the user says otherwise
  // One core's semaphore write into its LNC pair peer (core_barrier, sendrecv; model/core_link.h).
  Picos remote_semaphore_latency_ps = 0;

  int64_t cores_per_stack() const { return cores / hbm_stacks; }
  int64_t StackOf(int64_t core) const { return core / cores_per_stack(); }
};

struct HardwareConfig {
  std::string name;        // e.g. "trn2"
  std::string source;      // file it was read from
  std::string generation;  // e.g. "NeuronCore-v3"
  TensorEngineParams tensor;
  VectorEngineParams vector;
  ScalarEngineParams scalar;
  GpSimdEngineParams gpsimd;
  EngineParams sync;
  DmaParams dma;
  MemoryParams memory;
  KernelParams kernel;
  HostParams host;
  CaptureParams capture;
  ChipParams chip;
  // Where each key got its value: dotted key -> "file:line", or
  // "override 'key=value'". Added so that a resolved config can
  // be printed with the provenance of every number (FormatHardwareConfig).
  std::map<std::string, std::string> origin;
};

}  // namespace nsim

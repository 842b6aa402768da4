// _nsim_core: the Python binding of the simulator for the `nsim` package
// (python/nsim). Deliberately small: the frontend builds kernel text, this
// module runs it on a Device and returns plain Python values.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <variant>

#include "python/core/kernel_run.h"
#include "sim/base/error.h"
#include "sim/config/params.h"
#include "sim/kernel/hash.h"
#include "sim/kernel/kernel.h"
#include "sim/kernel/parser.h"
#include "sim/kernel/printer.h"
#include "sim/memory/onchip_layout.h"
#include "tools/grid_run.h"
#include "tools/run_output.h"

namespace py = pybind11;

namespace nsim {
namespace py_binding {

double Ns(Picos p) { return PicosToNanos(p); }

py::dict ConfigInfo(const std::string& config, const std::vector<std::string>& overrides) {
  const HardwareConfig& c = pyfront::ConfigFor(config, overrides);
  py::dict d;
  d["name"] = c.name;
  d["generation"] = c.generation;
  d["partitions"] = c.memory.partitions;
  d["sbuf_bytes_per_partition"] = c.memory.sbuf_bytes_per_partition;
  d["psum_banks"] = c.memory.psum_banks;
  d["psum_bank_bytes"] = c.memory.psum_bank_bytes;
  d["tensor_rows"] = c.tensor.rows;
  d["tensor_cols"] = c.tensor.cols;
  d["moving_free_max"] = c.tensor.moving_free_max;
  d["bn_stats_fmax"] = c.vector.bn_stats_fmax;
  d["dma_queues"] = c.dma.queues_per_engine;
  d["semaphores"] = c.kernel.semaphores;
  d["chip_cores"] = c.chip.cores;
  return d;
}

// The identity of a resolved config (ConfigContentHash: every key's value,
// not where it was set), as a decimal string like kernel hashes.
std::string ConfigHash(const std::string& config, const std::vector<std::string>& overrides) {
  return std::to_string(ConfigContentHash(pyfront::ConfigFor(config, overrides)));
}

// Every key of the resolved config as its number in base units (the unit of
// docs: Hz, bytes, ps, ...) or its text: what a sweep's swept columns hold.
py::dict ResolvedValues(const std::string& config, const std::vector<std::string>& overrides) {
  HardwareConfig c = pyfront::ConfigFor(config, overrides);
  py::dict d;
  for (const ParamSpec& p : AllParams()) {
    std::visit([&](auto* field) { d[p.key.c_str()] = *field; }, p.field(c));
  }
  return d;
}

py::list InstructionRecords(const ExecutionResult& r) {
  py::list out;
  for (const InstructionRecord& rec : r.instructions) {
    out.append(py::make_tuple(EngineName(rec.engine), rec.index, Ns(rec.start), Ns(rec.end), Ns(rec.wait)));
  }
  return out;
}

py::list DmaRecords(const ExecutionResult& r) {
  py::list out;
  for (const DmaRecord& d : r.dma) {
    out.append(py::make_tuple(EngineName(d.trigger_engine), d.index, d.queue, d.dma_engine, Ns(d.start), Ns(d.end),
                              d.bytes));
  }
  return out;
}

pyfront::RunRequest Request(const std::string& kernel_text, const std::string& source_name, const std::string& config,
                            const std::vector<std::string>& overrides, const std::map<std::string, py::bytes>& inputs,
                            const std::vector<std::string>& outputs) {
  pyfront::RunRequest req;
  req.kernel_text = kernel_text;
  req.source_name = source_name;
  req.config = config;
  req.overrides = overrides;
  for (const auto& [name, bytes] : inputs) req.inputs[name] = std::string(bytes);
  req.outputs = outputs;
  return req;
}

py::dict Run(const std::string& kernel_text, const std::string& source_name, const std::string& config,
             const std::vector<std::string>& overrides, const std::map<std::string, py::bytes>& inputs,
             const std::vector<std::string>& outputs, const std::string& profile_dir, bool timing_only) {
  pyfront::RunRequest req = Request(kernel_text, source_name, config, overrides, inputs, outputs);
  req.profile_dir = profile_dir;
  req.timing_only = timing_only;
  pyfront::RunResponse resp;
  {
    py::gil_scoped_release release;  // simulation does not touch Python objects
    resp = pyfront::RunKernel(req);
  }
  py::dict d;
  d["device_time_ns"] = Ns(resp.result.device_time);
  d["kernel_hash"] = std::to_string(resp.result.kernel_hash);
  RunDescriptionInput description;
  description.tool = "nki.benchmark";
  description.kernel_file = source_name;
  d["report"] = RunSummaryJson(resp.config, resp.kernel, resp.result, description, false).dump();
  py::dict outs;
  for (const auto& [name, bytes] : resp.outputs) outs[name.c_str()] = py::bytes(bytes);
  d["outputs"] = outs;
  d["instructions"] = InstructionRecords(resp.result);
  d["dma"] = DmaRecords(resp.result);
  d["profile_files"] = resp.profile_files;
  return d;
}

// An SPMD launch of the kernel on `programs` cores of one chip (Chip::Launch):
// the chip device time, outputs, and the per-core report of `nsim run --grid`.
py::dict RunGrid(const std::string& kernel_text, const std::string& source_name, const std::string& config,
                 const std::vector<std::string>& overrides, const std::map<std::string, py::bytes>& inputs,
                 const std::vector<std::string>& outputs, int programs,
                 const std::vector<std::string>& program_texts) {
  const pyfront::RunRequest req = Request(kernel_text, source_name, config, overrides, inputs, outputs);
  pyfront::GridRunResponse resp;
  {
    py::gil_scoped_release release;
    resp = pyfront::RunGrid(req, programs, program_texts);
  }
  py::dict d;
  d["device_time_ns"] = Ns(resp.result.device_time);
  d["report"] = GridResultReport(resp.config, resp.kernels, resp.result).dump();
  py::dict outs;
  for (const auto& [name, bytes] : resp.outputs) outs[name.c_str()] = py::bytes(bytes);
  d["outputs"] = outs;
  return d;
}

// sim/kernel/opcode_table.h, row by row: the frontend checks engines and
// spells opcodes from this, never from its own list.
py::list OpcodeTable() {
  py::list out;
  for (int i = 0; i < kNumOpcodes; ++i) {
    const Opcode op = static_cast<Opcode>(i);
    py::list engines;
    for (int e = 0; e < kNumEngines; ++e) {
      if (OpcodeAllowedOn(op, static_cast<EngineId>(e))) engines.append(EngineName(static_cast<EngineId>(e)));
    }
    py::dict d;
    d["name"] = OpcodeName(op);
    d["hw_name"] = OpcodeHwName(op);
    d["engines"] = engines;
    d["operands"] = NumApOperands(op);
    out.append(d);
  }
  return out;
}

// sim/kernel/alu_act_tables.h, row by row: the frontend's nl.* op names
// and which ops commute come from here, never from its own list.
py::list AluOps() {
  py::list out;
#define NSIM_ALU_ROW(e, name, nl_name, commutative, reciprocal_rate, value) \
  {                                                                        \
    py::dict d;                                                            \
    d["name"] = name;                                                      \
    d["nl_name"] = nl_name;                                                \
    d["commutative"] = commutative;                                        \
    out.append(d);                                                         \
  }
  NSIM_ALU_OP_TABLE(NSIM_ALU_ROW)
#undef NSIM_ALU_ROW
  return out;
}

py::list ActivationFuncs() {
  py::list out;
#define NSIM_ACT_ROW(e, name, nl_name, table_set, value) \
  {                                                     \
    py::dict d;                                         \
    d["name"] = name;                                   \
    d["nl_name"] = nl_name;                             \
    d["table_set"] = table_set;                         \
    out.append(d);                                      \
  }
  NSIM_ACT_FUNC_TABLE(NSIM_ACT_ROW)
#undef NSIM_ACT_ROW
  return out;
}

py::list Engines() {
  py::list out;
  for (int e = 0; e < kNumEngines; ++e) out.append(EngineName(static_cast<EngineId>(e)));
  return out;
}

// Partition offsets of on-chip tensors (("sbuf"|"psum", bytes per
// partition), in declaration order) as the loader places them, and the bytes
// per partition each space then uses.
py::dict OnChipLayoutOf(int64_t psum_bank_bytes, const std::vector<std::pair<std::string, int64_t>>& tensors) {
  if (psum_bank_bytes <= 0) throw SimError("onchip_layout: psum_bank_bytes must be positive");
  OnChipLayout layout(psum_bank_bytes);
  std::vector<int64_t> offsets;
  for (const auto& [space_name, bytes] : tensors) {
    MemSpace space;
    if (!ParseMemSpace(space_name, &space) || space == MemSpace::kHbm) {
      throw SimError("onchip_layout: space '" + space_name + "' is not sbuf or psum");
    }
    if (bytes < 0) throw SimError("onchip_layout: negative size " + std::to_string(bytes));
    offsets.push_back(layout.Place(space, bytes));
  }
  py::dict out;
  out["offsets"] = offsets;
  out["sbuf_used"] = layout.sbuf_used();
  out["psum_used"] = layout.psum_used();
  return out;
}

}  // namespace py_binding
}  // namespace nsim

PYBIND11_MODULE(_nsim_core, m) {
  m.doc() = "nsim simulator core for the nsim Python package";
  py::register_exception<nsim::SimError>(m, "SimError", PyExc_RuntimeError);
  m.def("config_info", &nsim::py_binding::ConfigInfo, py::arg("config"), py::arg("overrides") = std::vector<std::string>{},
        "Limits of a hardware config the frontend allocates against.");
  m.def("run", &nsim::py_binding::Run, py::arg("kernel_text"), py::arg("source_name"), py::arg("config"),
        py::arg("overrides"), py::arg("inputs"), py::arg("outputs"), py::arg("profile_dir") = std::string(),
        py::arg("timing_only") = false,
        "Parse, load and run a kernel; returns device time, the report JSON, outputs and records.");
  m.def("run_grid", &nsim::py_binding::RunGrid, py::arg("kernel_text"), py::arg("source_name"), py::arg("config"),
        py::arg("overrides"), py::arg("inputs"), py::arg("outputs"), py::arg("programs"),
        py::arg("program_texts") = std::vector<std::string>{},
        "Run a kernel as an SPMD grid of `programs` programs on one chip (one text for all, or program_texts: "
        "one per program); returns chip device time, report, outputs.");
  m.def("config_hash", &nsim::py_binding::ConfigHash, py::arg("config"),
        py::arg("overrides") = std::vector<std::string>{}, "The resolved config's content hash (decimal string).");
  m.def("resolved_values", &nsim::py_binding::ResolvedValues, py::arg("config"),
        py::arg("overrides") = std::vector<std::string>{}, "Every key of the resolved config, in base units.");
  m.def("kernel_hash", [](const std::string& text, const std::string& source_name) {
    return std::to_string(nsim::KernelHash(nsim::ParseKernel(text, source_name)));
  }, py::arg("kernel_text"), py::arg("source_name"), "KernelHash of a kernel text (decimal string), as runs report it.");
  m.def("opcode_table", &nsim::py_binding::OpcodeTable,
        "Every opcode: name, hw_name (profiler), engines allowed, positional operands (sim/kernel/opcode_table.h).");
  m.def("alu_ops", &nsim::py_binding::AluOps,
        "Every ALU op: name (kernel text), nl_name (nki.language), commutative (sim/kernel/alu_act_tables.h).");
  m.def("activation_funcs", &nsim::py_binding::ActivationFuncs,
        "Every activation function: name (kernel text), nl_name, table_set (sim/kernel/alu_act_tables.h).");
  m.def("onchip_layout", &nsim::py_binding::OnChipLayoutOf, py::arg("psum_bank_bytes"), py::arg("tensors"),
        "Partition offsets of (space, bytes) on-chip tensors as the loader places them (sim/memory/onchip_layout.h).");
  m.def("engines", &nsim::py_binding::Engines, "The engine names of the kernel format, in EngineId order.");
  m.def("format_kernel", [](const std::string& text, const std::string& source_name) {
    return nsim::FormatKernel(nsim::ParseKernel(text, source_name));
  }, "The canonical text of a kernel (what its hash is computed over).");
}

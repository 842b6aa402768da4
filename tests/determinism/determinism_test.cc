// Determinism: the same program and config give bit-identical simulated
// numbers and trace bytes, run after run, in one process and in two.
//  - every example kernel on every shipped part, twice on one device with
//    another kernel in between and once on a fresh device: every record,
//    summary and output byte;
//  - the RMSNorm study's three implementations, twice in this process and
//    once in a child process: every figure, table and output value, and
//    every byte of every file written (trace.json, the .neff/.ntff pairs,
//    device_summary.*). The study writes no wall-clock field into its files
//    or ImplResult (the report's "simulator wall time" is printed by the
//    program only), so nothing is excluded; only the process-wide correlation
//    ids are renumbered when comparing two runs inside one process.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "backend/compile/compile.h"
#include "benchmarks/rmsnorm/implementations.h"
#include "benchmarks/rmsnorm/study_runner.h"
#include "runtime/runtime.h"
#include "sim/config/loader.h"
#include "sim/kernel/parser.h"
#include "sim/model/device.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every simulated number of an execution, as text (doubles in full precision).
std::string Digest(const ExecutionResult& r, const Kernel& k, Device& device) {
  std::ostringstream os;
  os << "hash " << r.kernel_hash << " time " << r.device_time << " launch " << r.launch << " teardown "
     << r.teardown << " hbm " << r.hbm_bytes_read << "/" << r.hbm_bytes_written << "\n";
  for (const InstructionRecord& i : r.instructions) {
    os << "I " << static_cast<int>(i.engine) << " " << i.index << " " << i.start << " " << i.end << " " << i.wait
       << "\n";
  }
  for (const DmaRecord& d : r.dma) {
    os << "D " << d.dma_engine << " " << d.queue << " " << static_cast<int>(d.trigger_engine) << " " << d.index << " "
       << d.bytes << " " << d.descriptors << " " << d.start << " " << d.end << " " << d.touches_hbm << "\n";
  }
  for (const EngineSummary& e : r.engines) {
    os << "E " << e.busy << " " << e.instructions;
    for (int64_t n : e.by_opcode) os << " " << n;
    os << "\n";
  }
  for (const DmaEngineSummary& e : r.dma_engines) os << "DE " << e.bytes << " " << e.transfers << " " << e.descriptors << " " << e.busy << "\n";
  for (const auto& [q, s] : r.dma_queues) os << "Q " << q << " " << s.bytes << " " << s.transfers << " " << s.busy << "\n";
  for (const std::string& w : r.warnings) os << "W " << w << "\n";
  // The values the kernel left in its HBM tensors.
  for (const auto& [name, addr] : r.scratch_addresses) {
    const TensorDecl& t = k.tensors[k.FindTensor(name)];
    std::string bytes(static_cast<size_t>(t.NumElements() * DTypeSize(t.dtype)), '\0');
    device.hbm().Read(addr, bytes.data(), bytes.size());
    os << "T " << name << " " << std::hash<std::string>()(bytes) << "\n";
  }
  return os.str();
}

std::vector<fs::path> Examples() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(std::string(std::getenv("TEST_SRCDIR")) + "/nsim/sim/kernel/examples")) {
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Determinism, ExampleKernelsRepeatExactly) {
  const std::vector<fs::path> examples = Examples();
  ASSERT_GE(examples.size(), 3u);
  for (const char* config : {"trn1", "trn2", "trn3"}) {
    Device device(LoadHardwareConfig(config));
    for (size_t i = 0; i < examples.size(); ++i) {
      const Kernel k = LoadKernelFile(examples[i].string());
      const Kernel other = LoadKernelFile(examples[(i + 1) % examples.size()].string());
      const std::string first = Digest(device.Execute(k), k, device);
      device.Execute(other);  // another kernel in between: SystemC time moves on, state must not leak
      const std::string again = Digest(device.Execute(k), k, device);
      Device fresh(LoadHardwareConfig(config));
      const std::string elsewhere = Digest(fresh.Execute(k), k, fresh);
      EXPECT_EQ(first, again) << examples[i] << " on " << config;
      EXPECT_EQ(first, elsewhere) << examples[i] << " on " << config;
    }
  }
}

// Everything the study produces: its figures, tables and outputs, then every
// file it wrote, by path relative to its output directory. Without
// `with_protobuf_traces`, trace.perfetto-trace files are listed but not read:
// each is a pure function of the trace.json beside it, and holds the
// correlation ids in binary, where RenumberCorrelationIds cannot reach them.
std::string StudyDigest(const std::string& out_dir, bool with_protobuf_traces = true) {
  rt::Runtime::Get().Reset();
  compiler::ResetFrameIds();
  study::StudyOptions o;
  o.out_dir = out_dir;
  fs::remove_all(out_dir);
  std::ostringstream os;
  os.precision(17);
  for (const study::Implementation& impl : study::StudyImplementations(o)) {
    const study::ImplResult r = study::RunImplementation(impl.name, impl.fn, o);
    os << "impl " << r.name << " " << r.dispatches << " " << r.device_us << " " << r.self_cpu_us << " "
       << r.hbm_bytes << "\n"
       << r.table << "\n"
       << r.device_summary << "\n";
    for (const study::OpRow& row : r.ops) os << row.name << " " << row.calls << " " << row.self_cpu_us << " " << row.self_neuron_us << "\n";
    for (const std::string& w : r.warnings) os << "W " << w << "\n";
    const at::Tensor out = r.output.contiguous();
    const float* v = out.data_ptr<float>();
    for (int64_t i = 0; i < out.numel(); ++i) os << v[i] << (i + 1 == out.numel() ? "\n" : " ");
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(out_dir)) {
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), out_dir));
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    const bool skip = !with_protobuf_traces && f.filename() == "trace.perfetto-trace";
    os << "== " << f.string() << "\n" << (skip ? "" : ReadFile(fs::path(out_dir) / f)) << "\n";
  }
  return os.str();
}

// Where the two digests differ first, for a readable failure.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const size_t from = i > 200 ? i - 200 : 0;
  return "first difference at byte " + std::to_string(i) + ":\n---\n" + a.substr(from, 400) + "\n---\n" +
         b.substr(from, 400);
}

// Correlation ids (the trace's "External id") come from one process-wide
// counter, as in PyTorch, so a second profile in the same process numbers its
// ops on from the first ("External id", "correlation"). Within one process the ids are compared by order of
// first appearance; across processes they must match exactly.
std::string RenumberCorrelationIds(const std::string& text) {
  static const std::regex kId("\"(?:External id|correlation)\": ([0-9]+)");
  std::map<std::string, int> rank;
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), kId);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::string id = (*it)[1];
    const int r = rank.emplace(id, static_cast<int>(rank.size())).first->second;
    out += text.substr(last, it->position(1) - last) + "#" + std::to_string(r);
    last = it->position(1) + it->length(1);
  }
  return out + text.substr(last);
}

TEST(Determinism, StudyRepeatsExactlyInOneProcess) {
  // The same output directory: the trace names its own path ("traceName").
  const std::string first = RenumberCorrelationIds(StudyDigest(::testing::TempDir() + "/study", false));
  const std::string again = RenumberCorrelationIds(StudyDigest(::testing::TempDir() + "/study", false));
  EXPECT_GT(first.size(), 10000u);  // tables, summaries and traces were all there
  EXPECT_TRUE(first == again) << FirstDifference(first, again);
}

// Each child (NSIM_DETERMINISM_DIGEST set) runs the study in a fresh process
// and writes its digest to that file; the two children's digests must be
// identical byte for byte, correlation ids included.
TEST(Determinism, StudyRepeatsExactlyInTwoProcesses) {
  if (const char* out = std::getenv("NSIM_DETERMINISM_DIGEST")) {
    std::ofstream(out, std::ios::binary) << StudyDigest(::testing::TempDir() + "/study");
    return;
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();  // this binary, not the shell's
  std::string digests[2];
  for (int i = 0; i < 2; ++i) {
    const std::string file = ::testing::TempDir() + "/child_digest_" + std::to_string(i) + ".txt";
    const std::string cmd = "NSIM_DETERMINISM_DIGEST='" + file + "' '" + self +
                            "' --gtest_filter=Determinism.StudyRepeatsExactlyInTwoProcesses >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    digests[i] = ReadFile(file);
  }
  EXPECT_GT(digests[0].size(), 10000u);
  EXPECT_TRUE(digests[0] == digests[1]) << FirstDifference(digests[0], digests[1]);
}

}  // namespace
}  // namespace nsim

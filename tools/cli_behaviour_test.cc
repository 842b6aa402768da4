// The binaries as a user runs them (issue 14, "CLIs that behave"): each case
// checks the exit code and the words that must appear. Runs the built
// binaries as subprocesses under `timeout`, so a hang fails instead of
// blocking the suite.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out, err;
};

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path TmpDir() { return fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp"); }

Outcome RunTool(const std::string& binary, const std::string& args) {
  const fs::path err = TmpDir() / "stderr.txt";
  const std::string cmd = "timeout 120 " + binary + " " + args + " 2>" + err.string();
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) o.out.append(buf, n);
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.err = Slurp(err);
  return o;
}

const char* kNsim = "tools/nsim";
const char* kStudy = "benchmarks/rmsnorm";
const char* kGate = "tools/device_time/gate";
const char* kUpdate = "tools/device_time/update_goldens";
const std::string kMatmul = "sim/kernel/examples/matmul.nk";
const std::string kRmsNorm = "sim/kernel/examples/rmsnorm.nk";

#define EXPECT_RUN(outcome, want_code, stream, words)                                     \
  do {                                                                                    \
    const Outcome& o_ = (outcome);                                                        \
    EXPECT_EQ(o_.code, want_code) << "stdout:\n" << o_.out << "\nstderr:\n" << o_.err;    \
    EXPECT_NE(o_.stream.find(words), std::string::npos) << #stream << ":\n" << o_.stream; \
  } while (0)

TEST(CliTest, HelpGoesToStdoutWithExitZero) {
  EXPECT_RUN(RunTool(kNsim, "--help"), 0, out, "Subcommands:");
  EXPECT_RUN(RunTool(kNsim, "run --help"), 0, out, "--save-tensors");
  EXPECT_RUN(RunTool(kNsim, "compare --help"), 0, out, "--config");
  EXPECT_RUN(RunTool(kStudy, "--help"), 0, out, "--steps");
  EXPECT_RUN(RunTool(kGate, "--help"), 0, out, "--goldens");
  EXPECT_RUN(RunTool(kUpdate, "--help"), 0, out, "--check");
}

TEST(CliTest, UsageErrorsExitTwoNamingTheFlag) {
  EXPECT_RUN(RunTool(kNsim, ""), 2, err, "subcommand is required");
  EXPECT_RUN(RunTool(kNsim, "run " + kMatmul + " --bogus"), 2, err, "--bogus");
  EXPECT_RUN(RunTool(kNsim, "run " + kMatmul + " --config"), 2, err, "--config");
  EXPECT_RUN(RunTool(kNsim, "run " + kMatmul + " --save-tensors"), 2, err, "--save-tensors needs --out");
  EXPECT_RUN(RunTool(kNsim, "compare " + kMatmul + " --config trn1"), 2, err, "exactly two --config");
  EXPECT_RUN(RunTool(kGate, ""), 2, err, "--goldens");
  EXPECT_RUN(RunTool(kUpdate, "--bogus"), 2, err, "--bogus");
}

TEST(CliTest, StudyFlagValuesAreChecked) {
  EXPECT_RUN(RunTool(kStudy, "--steps abc"), 2, err, "--steps 'abc': expected an integer from 4 to 4000");
  EXPECT_RUN(RunTool(kStudy, "--steps 4.5"), 2, err, "expected an integer");
  EXPECT_RUN(RunTool(kStudy, "--steps 3000000000"), 2, err, "expected an integer from 4 to 4000");
  EXPECT_RUN(RunTool(kStudy, "--steps 99999999"), 2, err, "from 4 to 4000");
  // Steps 6 and 7 end outside the recorded window: nothing would be measured.
  EXPECT_RUN(RunTool(kStudy, "--steps 6"), 2, err, "multiple of 4");
  EXPECT_RUN(RunTool(kStudy, "--steps=7"), 2, err, "multiple of 4");
  EXPECT_RUN(RunTool(kStudy, "--shape abc"), 2, err, "'abc' is not a positive integer");
  EXPECT_RUN(RunTool(kStudy, "--shape 1,1,1,1,1,1,1,1,1,1,1"), 2, err, "more than 8 dimensions");
  EXPECT_RUN(RunTool(kStudy, "--shape 4,,512"), 2, err, "item 2 is empty");
  EXPECT_RUN(RunTool(kStudy, "--shape 4,0"), 2, err, "item 2 is 0");
  EXPECT_RUN(RunTool(kStudy, "--shape 65536,65536"), 2, err, "elements");
  EXPECT_RUN(RunTool(kStudy, "--dtype f64"), 2, err, "expected bf16, f32 or f16");
  EXPECT_RUN(RunTool(kStudy, "--device-capture --no-device-capture --compare trn1"), 2, err, "conflict");
}

TEST(CliTest, BadFilesExitOneNamingTheFile) {
  EXPECT_RUN(RunTool(kNsim, "run sim/kernel/examples"), 1, err, "is a directory, expected a file");
  EXPECT_RUN(RunTool(kNsim, "run no_such.nk"), 1, err, "no such file");
  EXPECT_RUN(RunTool(kGate, "--goldens g.tsv --kernel sim/kernel/examples"), 1, err, "is a directory");
  const fs::path zero = TmpDir() / "zero_golden.tsv";
  std::ofstream(zero) << kMatmul << "\ttrn2\t0\n";
  EXPECT_RUN(RunTool(kGate, "--goldens " + zero.string() + " --kernel " + kMatmul), 1, err,
             "expected a positive integer of picoseconds");
  EXPECT_RUN(RunTool(kUpdate, "--check --goldens " + (TmpDir() / "missing.tsv").string()), 1, err, "cannot read");
}

TEST(CliTest, EqualsAndSpaceFormsAgree) {
  const Outcome a = RunTool(kNsim, "run " + kMatmul + " --config=trn1 --json");
  const Outcome b = RunTool(kNsim, "run " + kMatmul + " --config trn1 --json");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(CliTest, JsonAndRecordsCombine) {
  const Outcome o = RunTool(kNsim, "run " + kMatmul + " --json --records");
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_GT(j["total_time_ns"].get<double>(), 0);
  // 8 instructions plus the DMA pieces, with numeric operands as numbers.
  ASSERT_GT(j["records"].size(), 8u);
  EXPECT_TRUE(j["records"][0]["index"].is_number());
}

TEST(CliTest, RunOutWritesEveryArtefact) {
  const fs::path dir = TmpDir() / "run_out";
  const Outcome o = RunTool(kNsim, "run " + kMatmul + " --out " + dir.string() + " --save-tensors");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* f : {"trace.json", "summary.json", "report.html", "instructions.csv", "tensors/c.npy"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_NE(e.path().extension(), ".partial") << e.path();
  // c is [64, 256] bf16, widened to f32: header + 64*256*4 bytes.
  EXPECT_GT(fs::file_size(dir / "tensors/c.npy"), 64u * 256 * 4);
}

// A kernel written with loops names each instruction's iteration: the load of
// iteration i=2, j=4 and the DMA pieces it issued carry "i=2,j=4" in
// instructions.csv's last column (loop), and the trace shows the same.
TEST(CliTest, LoopKernelRowsNameTheirIteration) {
  const fs::path dir = TmpDir() / "loop_out";
  const Outcome o = RunTool(kNsim, "run sim/kernel/examples/double_buffer_loop.nk --out " + dir.string());
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string csv = Slurp(dir / "instructions.csv");
  ASSERT_EQ(csv.substr(0, csv.find('\n')).substr(csv.find('\n') - 5), ",loop");
  int loads = 0, pieces = 0;
  std::istringstream rows(csv);
  for (std::string row; std::getline(rows, row);) {
    if (row.size() < 8 || row.substr(row.size() - 8) != ",i=2,j=4" && row.substr(row.size() - 10) != ",\"i=2,j=4\"") continue;
    (row.find(",dma_copy,") != std::string::npos ? loads : pieces) += 1;
  }
  EXPECT_EQ(loads, 1) << csv;
  EXPECT_GE(pieces, 1) << csv;
  EXPECT_NE(Slurp(dir / "trace.json").find("\"loop\": \"i=2,j=4\""), std::string::npos);
}

TEST(CliTest, CompareShowsTheWhatIf) {
  // trn1-fastvec doubles VectorE's clock: VectorE busy time halves exactly
  // (rmsnorm.nk's VectorE work is cycle-bound), the rest of the engines stay.
  const Outcome o = RunTool(kNsim, "compare " + kRmsNorm + " --config trn1 --config trn1-fastvec");
  EXPECT_RUN(o, 0, out, "VectorE busy");
  EXPECT_NE(o.out.find("-50.00%"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ScalarE busy"), std::string::npos) << o.out;
}

}  // namespace

namespace {

TEST(CliTest, QuietOnAPipe) {
  // Progress goes to stderr only on a terminal; a successful run says nothing there.
  const Outcome o = RunTool(kStudy, "--out " + (TmpDir() / "quiet").string());
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "");
}

TEST(CliTest, CtrlCStopsAtAStepAndLeavesCompleteFiles) {
  // 4000 steps would take minutes. SIGINT once the first step's summary.json
  // exists (not after a fixed time: on a loaded machine the first step can
  // take longer than any fixed delay), and the study stops at the next step.
  const fs::path dir = TmpDir() / "interrupted";
  const std::string script =
      std::string(kStudy) + " --steps 4000 --out " + dir.string() + " & pid=$!; " +
      "while [ -z \"$(find " + dir.string() + " -name summary.json 2>/dev/null)\" ]; do " +
      "kill -0 $pid 2>/dev/null || break; sleep 0.1; done; kill -INT $pid; wait $pid";
  const Outcome o = RunTool("sh -c", "'" + script + "'");
  EXPECT_RUN(o, 130, err, "interrupted");
  int complete = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    EXPECT_NE(e.path().extension(), ".partial") << e.path();
    if (e.path().filename() == "summary.json") {
      EXPECT_NO_THROW(nlohmann::json::parse(Slurp(e.path()))) << e.path();
      ++complete;
    }
  }
  EXPECT_GT(complete, 0);
}

}  // namespace

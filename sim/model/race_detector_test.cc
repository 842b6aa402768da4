// The race detector: each kind of hazard between agents (engine vs DMA, DMA
// vs DMA, engine vs engine; read-after-write, write-after-read,
// write-after-write; SBUF and HBM, including aliased HBM bindings) is an
// error naming both instructions, their lines, the tensor, the overlapping
// bytes and times; allowed, it is a warning and the run completes; correctly
// synchronised kernels report nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/error.h"
#include "sim/model/race_detector.h"
#include "sim/model/test_util.h"

namespace nsim {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string RaceError(const std::string& text, const std::string& config = "trn2") {
  try {
    testing::RunText(config, text);
  } catch (const SimError& e) {
    return e.what();
  }
  return "no error";
}

// The issue's case: VectorE reads a tile while the DMA filling it is still in
// flight (the trigger at 200 ns + start latency; the add issues at launch).
TEST(RaceDetector, EngineReadsWhatADmaIsStillWriting) {
  const std::string msg = RaceError(R"(kernel k
tensor a  hbm  f32 [128, 512] init=ones
tensor ta sbuf f32 [128, 512]
tensor tc sbuf f32 [128, 512]
sync:   dma_copy ta, a
vector: tensor_copy tc, ta
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("race in kernel 'k'"), HasSubstr("the DMA transfer of sync dma_copy (line 5"),
                         HasSubstr("VectorE tensor_copy (line 6, vector instruction 0)"),
                         HasSubstr("reads sbuf tensor 'ta' partitions [0, 128) bytes [0, 2048)"),
                         HasSubstr("while the DMA transfer of sync dma_copy (line 5, sync instruction 0, queue 0) "
                                   "still writes sbuf tensor 'ta'"),
                         HasSubstr("overlap: 2048 bytes per partition"),
                         HasSubstr("--allow-races")))
      << msg;
}

// In a kernel written with loops the message names the iteration: the load
// of iteration i=1 writes the one buffer while iteration 0's load still does
// (no semaphore orders them).
TEST(RaceDetector, ALoopKernelsRaceNamesTheIteration) {
  const std::string msg = RaceError(R"(kernel k
tensor a  hbm  f32 [2, 128, 512] init=ones
tensor t  sbuf f32 [128, 512]
tensor o  sbuf f32 [128, 512]
semaphore loaded
loop i in 0:2 {
  sync:   dma_copy t, a[i] signal=loaded
  vector: tensor_copy o, t wait=loaded>=i+1
}
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("race in kernel 'k'"), HasSubstr("iteration i=1, sync instruction 1"),
                         HasSubstr("(line 7, iteration i=0, sync instruction 0")))
      << msg;
}

// Two SBUF tensors placed on the same bytes (at=, a compiler's reuse of a
// dead tile's memory) are one memory to the detector: writing the second
// while the first is still being read is a race, under either name.
TEST(RaceDetector, TensorsSharingBytesByAtAreOneMemory) {
  const std::string msg = RaceError(R"(kernel k
tensor a  hbm  f32 [128, 8192] init=ones
tensor x  sbuf f32 [128, 8192] at=0
tensor y  sbuf f32 [128, 8192] at=0
tensor z  sbuf f32 [128, 8192] at=32768
vector: tensor_copy z, x
sync:   dma_copy y, a
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("race in kernel 'k'"), HasSubstr("VectorE tensor_copy (line 6"),
                         HasSubstr("sync dma_copy (line 7")))
      << msg;
}

// Write-after-read: a DMA overwrites a tile VectorE has not finished reading.
TEST(RaceDetector, DmaOverwritesWhatAnEngineIsStillReading) {
  // The f32 tensor_tensor [128, 8192] costs 2 x 8192 cycles (about 17 us on
  // trn2) from launch; Sync triggers an unrelated load first, so the
  // overwriting transfer is triggered after VectorE began reading.
  const std::string msg = RaceError(R"(kernel k
tensor a  hbm  f32 [128, 8192]
tensor b  hbm  f32 [1, 4]
tensor x  sbuf f32 [128, 8192]
tensor y  sbuf f32 [128, 8192]
tensor z  sbuf f32 [1, 4]
vector: tensor_tensor y, x, x op=add
sync:   dma_copy z, b
sync:   dma_copy x, a
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("the DMA transfer of sync dma_copy (line 9, sync instruction 1, queue 0) writes "
                                   "sbuf tensor 'x'"),
                         HasSubstr("while VectorE tensor_tensor (line 7, vector instruction 0) still reads sbuf "
                                   "tensor 'x'")))
      << msg;
}

// Write-after-write between two engines.
TEST(RaceDetector, TwoEnginesWriteTheSameBytes) {
  const std::string msg = RaceError(R"(kernel k
tensor x sbuf f32 [128, 4096]
vector: memset x value=1
gpsimd: memset x[:, 1024:2048] value=2
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("GpSimd memset (line 4"), HasSubstr("VectorE memset (line 3"),
                         HasSubstr("writes sbuf tensor 'x' partitions [0, 128) bytes [4096, 8192)"),
                         HasSubstr("overlap: 4096 bytes per partition in partitions [0, 128), within bytes [4096, 8192) of 'x'")))
      << msg;
}

// Read-after-write between two engines, in PSUM: VectorE evacuates a matmul
// result TensorE has not committed yet.
TEST(RaceDetector, EngineReadsPsumAnotherEngineIsStillWriting) {
  const std::string msg = RaceError(R"(kernel k
tensor w sbuf bf16 [128, 128]
tensor x sbuf bf16 [128, 512]
tensor p psum f32  [128, 512]
tensor y sbuf f32  [128, 512]
tensor: matmul p, w, x
vector: tensor_copy y, p
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("VectorE tensor_copy (line 7, vector instruction 0) reads psum tensor 'p'"),
                         HasSubstr("while TensorE matmul (line 6, tensor instruction 0) still writes psum tensor 'p'"),
                         HasSubstr("overlap: 2048 bytes per partition in partitions [0, 128)")))
      << msg;
}

// Disjoint parts of one tensor are not a race (double buffering).
TEST(RaceDetector, DisjointHalvesOfOneTensorAreFine) {
  EXPECT_EQ(RaceError(R"(kernel k
tensor a  hbm  f32 [64, 512] init=ones
tensor x  sbuf f32 [128, 512]
tensor y  sbuf f32 [64, 512]
sync:   dma_copy x[0:64], a
vector: tensor_copy y, x[64:128]
)"),
            "no error");
}

// Interleaved writes (even and odd columns) share a bounding box, not a byte.
TEST(RaceDetector, InterleavedAccessesAreFine) {
  EXPECT_EQ(RaceError(R"(kernel k
tensor x sbuf f32 [128, 4096]
vector: memset x[:, 0::2] value=1
gpsimd: memset x[:, 1::2] value=2
)"),
            "no error");
}

// Two DMA transfers on different queues: a store of `out` and a load of it.
TEST(RaceDetector, TwoDmaTransfersOnHbm) {
  const std::string msg = RaceError(R"(kernel k
tensor t   sbuf f32 [128, 512]
tensor u   sbuf f32 [128, 512]
tensor out hbm  f32 [128, 512]
sync:   dma_copy out, t queue=0
scalar: dma_copy u, out queue=1
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("hbm tensor 'out' bytes [0, 262144)"), HasSubstr("sync dma_copy (line 5"),
                         HasSubstr("scalar dma_copy (line 6"), HasSubstr("at HBM addresses [0x")))
      << msg;
}

// dma_indirect reads its index when the transfer runs: an engine that
// rewrites the index tile while the transfer is in flight races with it.
TEST(RaceDetector, EngineOverwritesTheIndexOfAnIndirectDma) {
  const std::string msg = RaceError(R"(kernel k
tensor a  hbm  f32 [64, 512] init=ones
tensor ix sbuf i32 [16, 1]
tensor t  sbuf f32 [16, 512]
sync:   dma_indirect t, a.ap(0, [[0, 16], [1, 512]]), ix stride=512
gpsimd: iota ix
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("GpSimd iota (line 6"), HasSubstr("sync dma_indirect (line 5"),
                         HasSubstr("sbuf tensor 'ix'")))
      << msg;
}

// A scatter's rows land where its index says: the race detector takes the
// whole tensor, so a load of rows its static pattern does not name still
// races with it.
TEST(RaceDetector, AScatterMayWriteAnyRowOfItsTensor) {
  const std::string msg = RaceError(R"(kernel k
tensor t   sbuf f32 [4, 512]
tensor u   sbuf f32 [4, 512]
tensor ix  sbuf i32 [4, 1]
tensor out hbm  f32 [64, 512]
sync:   dma_indirect out.ap(0, [[0, 4], [1, 512]]), t, ix stride=512 scatter=true queue=0
scalar: dma_copy u, out[60:64] queue=1
)");
  EXPECT_THAT(msg, AllOf(HasSubstr("sync dma_indirect (line 6"), HasSubstr("scalar dma_copy (line 7"),
                         HasSubstr("hbm tensor 'out'")))
      << msg;
}

// Two HBM tensors bound to the same device memory conflict by address.
TEST(RaceDetector, AliasedHbmBindings) {
  Device device(LoadHardwareConfig("trn2"));
  const Kernel k = ParseKernel(R"(kernel k
tensor t   sbuf f32 [128, 64]
tensor u   sbuf f32 [128, 64]
tensor src hbm  f32 [128, 64]
tensor dst hbm  f32 [128, 64]
sync:   dma_copy dst, t queue=0
scalar: dma_copy u, src queue=1
)");
  EXPECT_NO_THROW(device.Execute(k, {{"src", 0}, {"dst", 1 << 20}}));
  try {
    device.Execute(k, {{"src", 4096}, {"dst", 4096}});
    FAIL() << "aliased bindings raced silently";
  } catch (const SimError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("hbm tensor 'src'"), HasSubstr("hbm tensor 'dst'"),
                                HasSubstr("overlap: 32768 bytes at HBM addresses [0x1000, 0x9000)")));
  }
}

// Allowed, races are warnings: the run completes and reports each one.
TEST(RaceDetector, AllowedRacesAreWarnings) {
  Device device(LoadHardwareConfig("trn2"));
  device.set_allow_races(true);
  const Kernel k = ParseKernel(R"(kernel k
tensor a  hbm  f32 [128, 512] init=ones
tensor ta sbuf f32 [128, 512]
tensor tc sbuf f32 [128, 512]
sync:   dma_copy ta, a
vector: tensor_copy tc, ta
)");
  const ExecutionResult r = device.Execute(k);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], AllOf(HasSubstr("warning: race in kernel 'k'"), HasSubstr("tensor 'ta'")));
  EXPECT_GT(r.device_time, 0);
}

// The same kernel synchronised with a semaphore is clean, and so is every
// shipped example on every shipped part.
// The load and the copy of EngineReadsWhatADmaIsStillWriting, ordered by a semaphore.
constexpr const char* kSynchronised = R"(kernel k
tensor a  hbm  f32 [128, 512] init=ones
tensor ta sbuf f32 [128, 512]
tensor tc sbuf f32 [128, 512]
semaphore loaded
sync:   dma_copy ta, a signal=loaded
vector: tensor_copy tc, ta wait=loaded>=1
)";

TEST(RaceDetector, SynchronisedKernelsReportNothing) {
  EXPECT_EQ(RaceError(kSynchronised), "no error");
  const std::string dir = std::string(std::getenv("TEST_SRCDIR")) + "/nsim/sim/kernel/examples";
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    for (const char* config : {"trn1", "trn2", "trn3"}) {
      EXPECT_EQ(RaceError(text.str(), config), "no error") << entry.path() << " on " << config;
    }
    ++examples;
  }
  EXPECT_GE(examples, 3);
}

// The sweep needs the records in order of start (record_order.h): records
// out of order are an error, not races missed.
TEST(RaceDetector, RecordsOutOfOrderAreAnError) {
  testing::Run run = testing::RunText("trn2", kSynchronised);
  const auto loaded = run.device->Load(run.kernel);
  std::vector<uint64_t> addresses(run.kernel.tensors.size(), 0);
  addresses[run.kernel.FindTensor("a")] = run.result.scratch_addresses.at("a");
  EXPECT_TRUE(FindRaces(*loaded, addresses, run.result).empty());
  ASSERT_EQ(run.result.instructions.size(), 2u);
  ASSERT_LT(run.result.instructions[0].start, run.result.instructions[1].start);
  std::swap(run.result.instructions[0], run.result.instructions[1]);
  EXPECT_THROW(FindRaces(*loaded, addresses, run.result), SimError);
}

}  // namespace
}  // namespace nsim

// A DMA engine picks a piece when it is queued, ahead of its start, when the
// engine is idle with nothing else queued (DmaModule::ServeAhead); a piece
// queued later that is ready earlier undoes that pick. The engines run ahead
// of SystemC time, so the later-ready piece can be queued first: whichever
// engine's stream SystemC runs first, one of the two kernels below queues the
// piece that is ready later first, and every piece must still start at its
// own ready time (trigger end + dma.start_latency; the DMA engine is free
// then), as when the engine picked at that time.
#include <gtest/gtest.h>

#include <string>

#include "sim/model/test_util.h"

namespace nsim {
namespace {

using RunResult = testing::Run;
using testing::RunText;

// `late` first runs a long instruction, then a one-piece dma_copy; `early`
// issues its one-piece dma_copy at once. Both pieces go to DMA engine 0
// (partition 0), from or to HBM when `hbm`.
std::string Kernel(const std::string& late, const std::string& late_op, const std::string& early, bool hbm) {
  const std::string space = hbm ? "hbm" : "sbuf";
  return "kernel k\n"
         "tensor big sbuf f32 [128, 2048]\n"
         "tensor big2 sbuf f32 [128, 2048]\n"
         "tensor x0 " + space + " f32 [1, 16]\n"
         "tensor x1 " + space + " f32 [1, 16]\n"
         "tensor s0 sbuf f32 [1, 16]\n"
         "tensor s1 sbuf f32 [1, 16]\n" +
         late + ": " + late_op + "\n" +
         late + ": dma_copy s0, x0\n" +
         early + ": dma_copy s1, x1\n";
}

void ExpectStartsAtReady(const RunResult& r, EngineId late, EngineId early) {
  const Picos latency = r.device->config().dma.start_latency_ps;
  ASSERT_EQ(r.result.dma.size(), 2u);
  for (const DmaRecord& d : r.result.dma) {
    EXPECT_EQ(d.dma_engine, 0);
    const bool is_late = d.trigger_engine == late;
    ASSERT_TRUE(is_late || d.trigger_engine == early);
    const Picos ready = r.Record(d.trigger_engine, is_late ? 1 : 0).end + latency;
    EXPECT_EQ(d.start, ready) << (is_late ? "the later" : "the earlier") << " piece";
  }
}

TEST(DmaAhead, AnEarlierPieceQueuedLaterIsServedFirst) {
  for (bool hbm : {false, true}) {
    SCOPED_TRACE(hbm ? "through HBM" : "on chip");
    const RunResult a = RunText("trn2", Kernel("gpsimd", "iota big base=0 free_step=1", "scalar", hbm));
    ExpectStartsAtReady(a, EngineId::kGpSimd, EngineId::kScalar);
    const RunResult b = RunText("trn2", Kernel("scalar", "activation big2, big func=exp", "gpsimd", hbm));
    ExpectStartsAtReady(b, EngineId::kScalar, EngineId::kGpSimd);
  }
}

}  // namespace
}  // namespace nsim

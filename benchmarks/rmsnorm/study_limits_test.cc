// The study's shape limit is the core's HBM: the bound it checks must cover
// what the three implementations really allocate, and the study's input is
// generated once and is the seeded randn.
#include "benchmarks/rmsnorm/study_limits.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "backend/factories.h"
#include "benchmarks/rmsnorm/implementations.h"
#include "runtime/runtime.h"

namespace nsim {
namespace study {
namespace {

TEST(StudyLimits, DeviceBytesCoverThePeakOfEveryImplementation) {
  StudyOptions o;
  o.shape = {128, 2048};
  o.out_dir = std::string(std::getenv("TEST_TMPDIR")) + "/study";
  rt::Runtime::Get().Reset();
  rt::Runtime::Get().Configure(o.config);
  const int64_t tensor_bytes = 128 * 2048 * 2;
  EXPECT_EQ(StudyDeviceBytes(o), kStudyLiveTensors * tensor_bytes);
  for (const Implementation& impl : StudyImplementations(o)) RunImplementation(impl.name, impl.fn, o);
  const int64_t peak = static_cast<int64_t>(rt::Runtime::Get().core(0).memory_stats().peak_bytes_in_use);
  EXPECT_LE(peak, StudyDeviceBytes(o));
  EXPECT_GT(peak, 5 * tensor_bytes);  // five live tensors: the bound is one tensor above
  rt::Runtime::Get().Reset();
}

TEST(StudyLimits, ProblemNamesShapeBytesAndCapacity) {
  rt::Runtime::Get().Reset();
  const HardwareConfig& trn2 = rt::Runtime::Get().core(0).config();
  StudyOptions o;
  o.shape = {8192, 8192};
  EXPECT_EQ(StudyShapeProblem(o, trn2), "");
  o.shape = {32768, 32768};  // 6 x 2 GiB of bf16 against 12 GiB per trn2 core: fits exactly
  EXPECT_EQ(StudyShapeProblem(o, trn2), "");
  o.shape = {65536, 65536};  // 6 x 8 GiB
  EXPECT_EQ(StudyShapeProblem(o, trn2),
            "--shape 65536,65536: 4294967296 elements; the study keeps up to 6 tensors of this shape on the device "
            "(48.00 GiB), more than the 12.00 GiB of HBM of one trn2 NeuronCore (chip.hbm_stack_capacity / cores "
            "per stack)");
  rt::Runtime::Get().Reset();
}

TEST(StudyInput, IsTheSeededRandnGeneratedOnce) {
  StudyOptions o;
  o.shape = {4, 512};
  const at::Tensor x = StudyInput(o);
  EXPECT_EQ(x.data_ptr(), StudyInput(o).data_ptr());  // the same tensor, not generated again
  const at::Tensor want = at::randn({4, 512}, /*seed=*/0, at::TensorOptions().dtype(o.dtype));
  EXPECT_EQ(std::memcmp(x.data_ptr(), want.data_ptr(), 4 * 512 * 2), 0);
  const at::Tensor w = at::randn({512}, /*seed=*/1, at::TensorOptions().dtype(o.dtype));
  EXPECT_EQ(std::memcmp(StudyWeight(o).data_ptr(), w.data_ptr(), 512 * 2), 0);
  o.shape = {8, 512};  // another shape: generated for it
  EXPECT_EQ(StudyInput(o).sizes(), (std::vector<int64_t>{8, 512}));
}

}  // namespace
}  // namespace study
}  // namespace nsim

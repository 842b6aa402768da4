// Bad kernels get errors that name the problem and where, never a crash.
#include <gtest/gtest.h>

#include "sim/base/checked.h"
#include "sim/base/error.h"
#include "sim/kernel/builder.h"
#include "sim/model/test_util.h"

namespace nsim {
namespace {

std::string ErrorOf(const std::string& text, const std::string& config = "trn2") {
  try {
    testing::RunText(config, text);
  } catch (const SimError& e) {
    return e.what();
  }
  return "";
}

void ExpectError(const std::string& text, const std::string& fragment) {
  const std::string msg = ErrorOf(text);
  EXPECT_NE(msg.find(fragment), std::string::npos) << "message was: " << msg;
}

TEST(Errors, ShapeMismatchBetweenOperands) {
  ExpectError(R"(kernel k
tensor a sbuf f32 [128, 8]
tensor b sbuf f32 [64, 8]
vector: tensor_tensor a, a, b op=add
)", "kernel 'k' line 4 (vector tensor_tensor): src1 'b' spans 64 partitions but dst 'a' spans 128");
  ExpectError(R"(kernel k
tensor a sbuf f32 [4, 8]
tensor b sbuf f32 [4, 6]
vector: tensor_copy a, b
)", "src 'b' has 6 elements per partition but dst 'a' has 8");
}

TEST(Errors, ComputeEnginesCannotReadHbm) {
  ExpectError(R"(kernel k
tensor a sbuf f32 [4, 8]
tensor h hbm f32 [4, 8]
vector: tensor_copy a, h
)", "src 'h' is in HBM; vector engines only access SBUF and PSUM");
}

TEST(Errors, MatmulShapesAndPsum) {
  ExpectError(R"(kernel k
tensor w sbuf bf16 [128, 128]
tensor x sbuf bf16 [64, 512]
tensor p psum f32 [128, 512]
tensor: matmul p, w, x
)", "stationary and moving must share the contraction (partition) dim");
  ExpectError(R"(kernel k
tensor w sbuf bf16 [128, 128]
tensor x sbuf bf16 [128, 512]
tensor p sbuf f32 [128, 512]
tensor: matmul p, w, x
)", "TensorE writes only to PSUM");
  ExpectError(R"(kernel k
tensor w sbuf bf16 [128, 128]
tensor x sbuf bf16 [128, 1024]
tensor p psum f32 [128, 1024]
tensor: matmul p[:, 0:512], w, x
)", "moving free size exceeds 512");
  ExpectError(R"(kernel k
tensor pad psum f32 [128, 100]
tensor w sbuf bf16 [128, 128]
tensor x sbuf bf16 [128, 512]
tensor p psum f32 [128, 1024]
tensor: matmul p[:, 256:768], w, x
)", "crosses a PSUM bank boundary");
}

TEST(Errors, SbufAndPsumCapacity) {
  ExpectError(R"(kernel big
tensor a sbuf f32 [128, 40000]
tensor b sbuf f32 [128, 40000]
)", "SBUF over capacity: tensors need 320000 bytes per partition, trn2 has 229376. Largest: 'a' 160000 B 'b' 160000 B");
  ExpectError(R"(kernel big
tensor a psum f32 [128, 4096]
tensor b psum f32 [128, 1]
)", "PSUM over capacity");
}

TEST(Errors, OpcodeOnWrongEngineFromCode) {
  // The text loader rejects this too; kernels built in code are checked again.
  Kernel k;
  k.name = "coded";
  TensorDecl t;
  t.name = "a";
  t.space = MemSpace::kSbuf;
  t.shape = {4, 4};
  k.tensors.push_back(t);
  Instruction in;
  in.engine = EngineId::kScalar;
  in.opcode = Opcode::kMatmul;
  k.Append(in);
  Device d(LoadHardwareConfig("trn2"));
  try {
    d.Load(k);
    FAIL();
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("matmul cannot run on the scalar engine"), std::string::npos) << e.what();
  }
}

// Loading walks the instructions once; its errors still come in the order
// of the steps it fuses: CheckKernel (every instruction), the semaphore
// range, the layout, the semaphore count, then the first instruction that
// fails validation.
std::string LoadError(const Kernel& k) {
  try {
    Device(LoadHardwareConfig("trn2")).Load(k);
  } catch (const SimError& e) {
    return e.what();
  }
  return "";
}

// [4, 8] f32 SBUF tensors a, b and a semaphore s; vector copies b <- a.
Kernel TwoTensorKernel() {
  Kernel k;
  k.name = "order";
  AddTensor(k, "a", MemSpace::kSbuf, DType::kF32, {4, 8});
  AddTensor(k, "b", MemSpace::kSbuf, DType::kF32, {4, 8});
  AddSemaphore(k, "s");
  return k;
}
// A copy b <- a, changed by `edit` before it is appended.
template <class Edit>
void Copy(Kernel& k, Edit&& edit) {
  Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
  in.dst = Full(k, 1);
  in.src0 = Full(k, 0);
  edit(in);
  k.Append(in);
}

TEST(Errors, LoadErrorsComeInTheOrderOfTheLoadSteps) {
  // A bad access pattern late in the stream wins over a semaphore overflow
  // and a validation error earlier in it.
  Kernel k = TwoTensorKernel();
  Copy(k, [&](Instruction& in) { in.src0 = Slice(k, 0, {SliceSpec::Range(0, 2)}); });  // shape mismatch: fails validation
  Copy(k, [](Instruction& in) { in.signals = {{0, kMaxInt64}}; });
  Copy(k, [](Instruction& in) { in.signals = {{0, 1}}; });  // takes s past 2^63 - 1
  Copy(k, [&](Instruction& in) {
    in.src1 = Full(k, 0);
    in.src1.dims = in.src1.dims.With(0, {in.src1.dims[0].stride, 0});  // CheckKernel: size 0
  });
  EXPECT_NE(LoadError(k).find("size 0 of dim 0"), std::string::npos) << LoadError(k);
  // Without it, the overflow wins over a validation error before it.
  Kernel v = TwoTensorKernel();
  Copy(v, [&](Instruction& in) { in.src0 = Slice(v, 0, {SliceSpec::Range(0, 2)}); });  // shape mismatch: fails validation
  Copy(v, [](Instruction& in) { in.signals = {{0, kMaxInt64}}; });
  Copy(v, [](Instruction& in) { in.signals = {{0, 1}}; });
  EXPECT_NE(LoadError(v).find("past the largest value a semaphore holds"), std::string::npos) << LoadError(v);
  v.PopBack(static_cast<int>(EngineId::kVector));
  // Then the layout's error wins over the validation error.
  v.tensors[1].shape = {4, 1 << 20};
  EXPECT_NE(LoadError(v).find("SBUF over capacity"), std::string::npos) << LoadError(v);
  v.tensors[1].shape = {4, 8};
  // Then the semaphore count.
  for (int i = 0; i < 4096; ++i) AddSemaphore(v, "extra" + std::to_string(i));
  EXPECT_NE(LoadError(v).find("semaphores; trn2 has"), std::string::npos) << LoadError(v);
  v.semaphores.resize(1);
  // And alone, the first validation error, naming its line.
  Copy(v, [&](Instruction& in) { in.src0 = Slice(v, 0, {SliceSpec::Range(0, 1)}); });
  EXPECT_NE(LoadError(v).find("spans 2 partitions"), std::string::npos) << LoadError(v);
}

TEST(Errors, BindingsAreChecked) {
  Device d(LoadHardwareConfig("trn2"));
  const Kernel k = ParseKernel("kernel k\ntensor x hbm f32 [4, 4]\ntensor a sbuf f32 [4,4]\nsync: dma_copy a, x\n");
  try {
    d.Execute(k, {{"nope", 0}});
    FAIL();
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("binding for 'nope', which is not an HBM tensor"), std::string::npos);
  }
  try {
    d.Execute(k, {{"x", d.hbm().capacity() - 8}});
    FAIL();
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("runs past the end of device memory"), std::string::npos);
  }
}

}  // namespace
}  // namespace nsim

#include "sim/kernel/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"
#include "sim/kernel/hash.h"
#include "sim/kernel/kernel_testing.h"
#include "sim/kernel/parser.h"

namespace nsim {
namespace {

// Uses every feature of the format: all spaces, dtypes and inits, every
// opcode with every attribute, slices of every form, explicit access
// patterns with broadcast strides, scalar immediates and columns, repeated
// waits and signals with increments, and comments.
const char kEverything[] = R"(
# leading comment
kernel everything
tensor h0  hbm  f32  [128, 64]  init=zeros
tensor h1  hbm  bf16 [2, 64, 8] init=ones
tensor h2  hbm  f16  [7]        init=const(-0.1)
tensor h3  hbm  i32  [3, 3]     init=iota
tensor h4  hbm  fp32 [16]       init=randn(seed=18446744073709551615)
tensor h5  hbm  f32  [16]       init=rand(seed=0)
tensor h6  hbm  f32  [4, 4]
tensor s   sbuf bf16 [128, 64]
tensor s3  sbuf f32  [128, 4, 16]
tensor col sbuf f32  [128, 1]
tensor one sbuf f32  [1]
tensor ps  psum f32  [64, 128]
tensor sat sbuf f32  [128, 4] at=1024
tensor pat psum f32  [64, 8]  at=2048
tensor ix  sbuf i32  [4, 1]
semaphore a
semaphore b
semaphore c

sync:   dma_copy s, h0 queue=2 signal=a          # trailing comment
sync:   dma_copy s3[:, 1:3], h1[1, 3:35:2] signal=a+3
gpsimd: dma_copy one, h2[6] wait=a>=4
scalar: dma_copy h6, h0.ap(5, [[0, 4], [16, 4]])
tensor: matmul ps, s[:, :64], s wait=a>=1 wait=b>=0
tensor: matmul ps[:, 0:64:2], s[:, 1:64:2], s[:, ::2] accumulate=true signal=b signal=c+2
tensor: transpose ps[:, :64], s[0:64]
vector: tensor_tensor s3[:, 0], s3[:, 1], s3[:, 2] op=divide
vector: tensor_scalar s, s op0=pow scalar0=0.5
vector: tensor_scalar s, s op0=subtract scalar0=col op1=bypass scalar1=col[0:128, 0]
vector: tensor_scalar s, s op0=add scalar0=1 op1=min scalar1=0
vector: tensor_reduce col, s3[:, 3] op=max
vector: tensor_copy s3[5, 2, 7:9], s3[6, 3, :2]
vector: memset s value=1e-30
gpsimd: memset col value=col
gpsimd: tensor_copy s3.ap(100, [[64, 3], [0, 2], [1, 2]]), s3[2:5, 0, :4]
gpsimd: tensor_scalar s, s op0=max scalar0=-inf
scalar: tensor_copy s[:1], s[127]
scalar: activation s, s func=identity
scalar: activation s, s func=exp scale=-1 bias=col acc=col
scalar: activation s, s func=log scale=col bias=0.25
gpsimd: iota s
gpsimd: iota s3[:, 1] base=-3 partition_step=16 free_step=0.125
gpsimd: partition_reduce col[0], col op=sum
gpsimd: partition_reduce col, col op=min broadcast=true
vector: wait wait=c>=3 wait=a>=1
scalar: activation s, s func=rsqrt
scalar: activation s, s func=sqrt
scalar: activation s, s func=reciprocal
scalar: activation s, s func=silu
scalar: activation s, s func=gelu
scalar: activation s, s func=tanh
scalar: activation s, s func=sigmoid
scalar: activation s, s func=square
scalar: activation s, s func=relu
vector: tensor_tensor s, s, s op=multiply
vector: tensor_tensor s, s, s op=max
vector: tensor_tensor s, s, s op=min
vector: tensor_reduce col, s op=mean
vector: tensor_reduce col, s op=sum
vector: tensor_reduce col, s op=min
sync:   dma_indirect s3[0:4, 0], h0.ap(0, [[0, 4], [1, 16]]), ix stride=64 queue=1 skip=true
gpsimd: dma_indirect h6.ap(0, [[4, 1], [1, 4]]), col[0:4], ix[0:1] stride=4 scatter=true
)";

TEST(Printer, RoundTripEverything) {
  const Kernel k = ParseKernel(kEverything, "everything.nk");
  const std::string text = FormatKernel(k);
  const Kernel back = ParseKernel(text, "printed.nk");
  EXPECT_TRUE(KernelsEqual(k, back)) << text;
  EXPECT_EQ(FormatKernel(back), text);  // canonical: a fixed point
}

TEST(Printer, CanonicalLayout) {
  const Kernel k = ParseKernel(R"(kernel trivial_add
semaphore added
tensor a hbm bf16 [4, 3] init=randn(seed=1)
tensor acc psum f32 [128,512]
vector: tensor_tensor acc[:4, :3], a.ap(0, [[3, 4], [1, 3]]), a op=add signal=added
sync: dma_copy a, acc[0:4, 0:3] queue=0 wait=added>=1
)");
  EXPECT_EQ(FormatKernel(k), R"(kernel trivial_add

tensor a   hbm  bf16 [4, 3] init=randn(seed=1)
tensor acc psum f32  [128, 512]

semaphore added

vector: tensor_tensor acc[:4, :3], a, a op=add signal=added

sync:   dma_copy a, acc[:4, :3] wait=added>=1
)");
}

TEST(Printer, Instruction) {
  const Kernel k = ParseKernel(kEverything);
  const auto& sync = k.stream(EngineId::kSync);
  EXPECT_EQ(FormatInstruction(k, sync[0]), "sync: dma_copy s, h0 queue=2 signal=a");
  EXPECT_EQ(FormatInstruction(k, sync[1]), "sync: dma_copy s3[:, 1:3], h1[1, 3:35:2] signal=a+3");
  const auto& vec = k.stream(EngineId::kVector);
  EXPECT_EQ(FormatOperands(k, vec[2]), "s, s op0=subtract scalar0=col op1=bypass scalar1=col[:, 0]");
  // op1/scalar1 print together even when scalar1 is at its default.
  EXPECT_EQ(FormatOperands(k, vec[3]), "s, s op0=add scalar0=1 op1=min scalar1=0");
  const auto& act = k.stream(EngineId::kScalar);
  EXPECT_EQ(FormatInstruction(k, act[2]), "scalar: activation s, s func=identity");
  EXPECT_EQ(FormatInstruction(k, act[3]), "scalar: activation s, s func=exp scale=-1 bias=col acc=col");
  const auto& te = k.stream(EngineId::kTensor);
  EXPECT_EQ(FormatInstruction(k, te[0]), "tensor: matmul ps, s, s wait=a>=1 wait=b>=0");
  EXPECT_EQ(FormatOperands(k, k.instruction(1, 7)), "");  // wait has neither operands nor attributes
  EXPECT_EQ(FormatInstruction(k, k.instruction(1, 7)), "vector: wait wait=c>=3 wait=a>=1");
}

class ShortestAccess : public ::testing::Test {
 protected:
  std::string Roundtrip(const std::string& access) {
    k = ParseKernel(
        "kernel t\n"
        "tensor h hbm f32 [4, 6, 5]\n"
        "tensor v hbm f32 [8]\n"
        "tensor s sbuf f32 [16, 6, 5]\n"
        "tensor p psum f32 [1, 1]\n"
        "vector: memset " +
        access + " value=0\n");
    return FormatAccessPattern(k, k.instruction(1, 0).dst);
  }
  Kernel k;
};

TEST_F(ShortestAccess, Forms) {
  EXPECT_EQ(Roundtrip("h[:, :]"), "h");
  EXPECT_EQ(Roundtrip("h[0:4, 0:6, 0:5]"), "h");
  EXPECT_EQ(Roundtrip("h[0:4, 2:6]"), "h[:, 2:]");
  EXPECT_EQ(Roundtrip("h[1:2]"), "h[1:2]");
  EXPECT_EQ(Roundtrip("h[1]"), "h[1]");
  EXPECT_EQ(Roundtrip("h[0:4:2, 5:6:3]"), "h[::2, 5::3]");  // the step shows in the stride
  EXPECT_EQ(Roundtrip("h[0:3:2]"), "h[::2]");
  EXPECT_EQ(Roundtrip("h[3, 5, 4]"), "h[3, 5, 4]");
  EXPECT_EQ(Roundtrip("h.ap(119, [[1, 1]])"), "h[3, 5, 4]");
  EXPECT_EQ(Roundtrip("h.ap(0, [[30, 4], [1, 30]])"), "h.ap(0, [[30, 4], [1, 30]])");  // merged dims
  EXPECT_EQ(Roundtrip("h.ap(0, [[5, 24], [1, 5]])"), "h.ap(0, [[5, 24], [1, 5]])");
  EXPECT_EQ(Roundtrip("h.ap(30, [[5, 6], [1, 5]])"), "h[1]");
  EXPECT_EQ(Roundtrip("v.ap(2, [[0, 3]])"), "v.ap(2, [[0, 3]])");
  EXPECT_EQ(Roundtrip("v.ap(2, [[2, 3]])"), "v[2::2]");
  EXPECT_EQ(Roundtrip("v.ap(1, [[1, 1], [1, 1]])"), "v.ap(1, [[1, 1], [1, 1]])");
  EXPECT_EQ(Roundtrip("s[0:16]"), "s");
  EXPECT_EQ(Roundtrip("s[3:4]"), "s[3]");
  EXPECT_EQ(Roundtrip("s[3, 0:1, 0:5]"), "s[3, :1]");
  EXPECT_EQ(Roundtrip("s[:, 1, 1:5:2]"), "s[:, 1, 1::2]");
  EXPECT_EQ(Roundtrip("s.ap(35, [[30, 2], [1, 25]])"), "s.ap(35, [[30, 2], [1, 25]])");
  EXPECT_EQ(Roundtrip("s.ap(35, [[30, 2], [5, 5], [1, 5]])"), "s[1:3, 1:]");
  EXPECT_EQ(Roundtrip("p[0]"), "p");
  EXPECT_EQ(Roundtrip("p[:, 0]"), "p[:, 0]");
}

// Any slice the builder accepts prints as text that reads back to the same
// access pattern, and so does any in-bounds explicit pattern.
TEST(PrinterProperty, RandomAccessesRoundTrip) {
  std::mt19937 rng(12345);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Kernel k;
  k.name = "r";
  const std::vector<int> tensors = {
      AddTensor(k, "h", MemSpace::kHbm, DType::kF32, {3, 1, 4, 2}),
      AddTensor(k, "s", MemSpace::kSbuf, DType::kF32, {5, 3, 1, 4}),
      AddTensor(k, "q", MemSpace::kPsum, DType::kF32, {2, 6}),
  };
  int checked = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const int t = tensors[uniform(0, 2)];
    const TensorDecl& decl = k.tensors[t];
    AccessPattern ap;
    if (iter % 2 == 0) {
      std::vector<SliceSpec> idx;
      for (size_t d = 0; d < decl.shape.size() && uniform(0, 4) > 0; ++d) {
        const int64_t n = decl.shape[d];
        const int64_t start = uniform(0, n - 1);
        if (uniform(0, 2) == 0) {
          idx.push_back(SliceSpec::At(start));
        } else {
          idx.push_back(SliceSpec::Range(start, uniform(start + 1, n),
                                         d == 0 && decl.space != MemSpace::kHbm ? 1 : uniform(1, 3)));
        }
      }
      ap = Slice(k, t, idx);
    } else {
      std::vector<ApDim> dims;
      const int64_t free = decl.FreeElements();
      if (decl.space != MemSpace::kHbm) dims.push_back({free, uniform(1, 2)});
      for (int64_t d = uniform(decl.space == MemSpace::kHbm ? 1 : 0, 3); d > 0; --d)
        dims.push_back({uniform(0, 6), uniform(1, 3)});
      try {
        ap = Ap(k, t, uniform(0, decl.NumElements() - 1), dims);
      } catch (const SimError&) {
        continue;  // out of bounds: not a valid access to print
      }
    }
    Instruction inst = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
    inst.dst = ap;
    inst.src0 = ap;
    k.Append(inst);
    ++checked;
    const std::string text = FormatAccessPattern(k, ap);
    const Kernel back = ParseKernel(
        "kernel r\ntensor h hbm f32 [3, 1, 4, 2]\ntensor s sbuf f32 [5, 3, 1, 4]\n"
        "tensor q psum f32 [2, 6]\nvector: memset " +
        text + " value=0\n");
    ASSERT_EQ(back.instruction(1, 0).dst, ap) << text;
  }
  EXPECT_GT(checked, 2500);
  const Kernel back = ParseKernel(FormatKernel(k));
  EXPECT_TRUE(KernelsEqual(k, back));
}

TEST(Printer, Numbers) {
  EXPECT_EQ(FormatNumber(1), "1");
  EXPECT_EQ(FormatNumber(-0.5), "-0.5");
  EXPECT_EQ(FormatNumber(0.1), "0.1");
  EXPECT_EQ(FormatNumber(1e-6), "1e-06");
  EXPECT_EQ(FormatNumber(512), "512");
  EXPECT_EQ(FormatNumber(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(FormatNumber(-INFINITY), "-inf");
  EXPECT_EQ(FormatNumber(INFINITY), "inf");
  EXPECT_EQ(FormatNumber(NAN), "nan");
  for (double v : {3.14159, 1e300, -2.5e-310, 123456789.0, 0.0}) {
    EXPECT_EQ(std::strtod(FormatNumber(v).c_str(), nullptr), v);
  }
}

TEST(Printer, AbsentAccess) {
  Kernel k;
  EXPECT_EQ(FormatAccessPattern(k, AccessPattern{}), "<none>");
}

TEST(Hash, EqualKernelsHashEqual) {
  const Kernel a = ParseKernel(kEverything);
  // Same content, different comments, spacing and line numbers.
  std::string other = "# a different comment\n\n";
  other += FormatKernel(a);
  const Kernel b = ParseKernel(other);
  EXPECT_EQ(KernelHash(a), KernelHash(b));
  EXPECT_EQ(KernelHash(a), Fnv1a64(FormatKernel(a)));
}

TEST(Hash, HasherFedLineByLineEqualsTheWholeText) {
  Kernel k = ParseKernel(kEverything);
  // A line longer than the printer's line buffer, and tiles printed again
  // and again (its access pattern cache), in a kernel that also has empty streams.
  const int big = AddTensor(k, std::string(700, 'n'), MemSpace::kSbuf, DType::kF32, {4, 8});
  for (int i = 0; i < 3; ++i) {
    Instruction in = MakeInstruction(EngineId::kVector, Opcode::kTensorCopy);
    in.dst = Full(k, big);
    in.src0 = Slice(k, big, {SliceSpec::All(), SliceSpec::Range(0, 8)});
    k.Append(in);
  }
  KernelHasher hasher(k);
  for (int e = 0; e < kNumEngines; ++e) {
    for (const InstructionView& in : k.stream(e)) hasher.Add(e, in);
  }
  EXPECT_EQ(hasher.hash(), Fnv1a64(FormatKernel(k)));
  EXPECT_EQ(hasher.hash(), KernelHash(k));
  std::string pieces;
  FormatKernelPieces(k, [&pieces](std::string_view p) { pieces.append(p.data(), p.size()); });
  EXPECT_EQ(pieces, FormatKernel(k));
  // The buffered line is the line FormatInstruction prints as one string.
  const std::string line = FormatInstruction(k, k.stream(EngineId::kVector).back()) + "\n";
  EXPECT_GT(line.size(), 1400u);
  EXPECT_NE(pieces.find(line), std::string::npos);
}

TEST(Hash, AnyChangeChangesTheHash) {
  const Kernel base = ParseKernel(kEverything);
  const uint64_t h = KernelHash(base);
  std::vector<Kernel> variants(6, base);
  variants[0].name = "other";
  variants[1].tensors[0].shape[1] = 63;
  variants[2].EditInstruction(0, 0, [](Instruction& in) { in.accumulate = true; });
  variants[3].EditInstruction(4, 0, [](Instruction& in) { in.queue = 1; });
  variants[4].EditInstruction(4, 0, [](Instruction& in) { in.signals[0].delta = 2; });
  variants[5].tensors[4].init.seed = 5;
  for (const Kernel& v : variants) EXPECT_NE(KernelHash(v), h);
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);  // published FNV-1a 64 test vector
}

}  // namespace
}  // namespace nsim

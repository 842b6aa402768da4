// Meta tensors: shapes and dtypes of every op without data, and the same
// errors as on the CPU (the shape functions are shared).
#include "backend/dispatcher.h"
#include "backend/test_util.h"

namespace nsim {
namespace at {
namespace {

Tensor M(const IntList& sizes, ScalarType t = kFloat) {
  return empty(sizes, TensorOptions(t).device(Device(kMeta)));
}

void ExpectMeta(const Tensor& t, const IntList& sizes, ScalarType dtype) {
  EXPECT_TRUE(t.is_meta());
  EXPECT_EQ(t.sizes(), sizes);
  EXPECT_EQ(t.dtype(), dtype);
  EXPECT_EQ(t.data_ptr(), nullptr);
}

TEST(Meta, EveryOpHasCpuAndMetaKernels) {
  Dispatcher& d = Dispatcher::Singleton();
  for (const std::string& name : d.ListOps()) {
    if (name.rfind("aten::", 0) != 0) continue;
    const OperatorEntry& e = d.findSchemaOrThrow(name).entry();
    EXPECT_NE(e.lookup(DispatchKey::CPU), nullptr) << name;
    EXPECT_NE(e.lookup(DispatchKey::Meta), nullptr) << name;
  }
}

TEST(Meta, PointwiseShapesAndPromotion) {
  const Tensor x = M({4, 512}, kBFloat16), w = M({512}, kBFloat16);
  ExpectMeta(x * w, {4, 512}, kBFloat16);
  ExpectMeta(x + 1e-6, {4, 512}, kBFloat16);
  ExpectMeta(x.add(Scalar(1)), {4, 512}, kBFloat16);
  ExpectMeta(1 - x, {4, 512}, kBFloat16);
  ExpectMeta(x * M({4, 1}, kHalf), {4, 512}, kFloat);
  ExpectMeta(M({3}, kInt) / M({3}, kInt), {3}, kFloat);
  ExpectMeta(maximum(M({2, 1}), M({3})), {2, 3}, kFloat);
  ExpectMeta(x.pow(2), {4, 512}, kBFloat16);
  ExpectMeta(rsqrt(M({2}, kInt)), {2}, kFloat);
  ExpectMeta(-x, {4, 512}, kBFloat16);
  ExpectMeta(silu(x), {4, 512}, kBFloat16);
  ExpectMeta(gelu(x, "tanh"), {4, 512}, kBFloat16);
  EXPECT_THROW_MSG(M({2, 4}) * M({2, 3}),
                   "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1");
  EXPECT_THROW_MSG(silu(M({2}, kInt)), "aten::silu does not support dtype Int");
}

TEST(Meta, ReductionsLinalgAndNorms) {
  const Tensor x = M({4, 512}, kBFloat16);
  ExpectMeta(x.mean({-1}, true), {4, 1}, kBFloat16);
  ExpectMeta(x.sum({0}), {512}, kBFloat16);
  ExpectMeta(x.sum(), {}, kBFloat16);
  ExpectMeta(M({3}, kBool).sum(), {}, kInt);
  ExpectMeta(x.amax({1}), {4}, kBFloat16);
  ExpectMeta(std::get<1>(x.max(0, true)), {1, 512}, kLong);
  ExpectMeta(x.var({1}), {4}, kBFloat16);
  ExpectMeta(mm(M({4, 3}), M({3, 5})), {4, 5}, kFloat);
  ExpectMeta(matmul(M({2, 1, 3, 4}), M({3, 4, 6})), {2, 3, 3, 6}, kFloat);
  ExpectMeta(matmul(M({8, 4}), M({4})), {8}, kFloat);
  ExpectMeta(softmax(x, -1), {4, 512}, kBFloat16);
  ExpectMeta(rms_norm(x, {512}, M({512}, kBFloat16), 1e-6), {4, 512}, kBFloat16);
  ExpectMeta(std::get<1>(_fused_rms_norm(x, {512}, std::nullopt, std::nullopt)), {4, 1}, kFloat);
  ExpectMeta(layer_norm(x, {512}), {4, 512}, kBFloat16);
  ExpectMeta(std::get<2>(native_layer_norm(M({2, 3, 4}), {3, 4}, std::nullopt, std::nullopt, 1e-5)),
             {2, 1, 1}, kFloat);
  EXPECT_THROW_MSG(mm(M({4, 3}), M({4, 5})), "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)");
  EXPECT_THROW_MSG(x.mean({2}), "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(Meta, ViewsAndConversions) {
  const Tensor x = M({2, 3, 4});
  ExpectMeta(x.transpose(0, 2), {4, 3, 2}, kFloat);
  EXPECT_EQ(x.transpose(0, 2).strides(), (IntList{1, 4, 12}));
  ExpectMeta(x.view({6, 4}), {6, 4}, kFloat);
  ExpectMeta(x.reshape({-1}), {24}, kFloat);
  ExpectMeta(x.transpose(0, 1).contiguous(), {3, 2, 4}, kFloat);
  ExpectMeta(x.to(kBFloat16), {2, 3, 4}, kBFloat16);
  ExpectMeta(x.slice(2, 0, 4, 2), {2, 3, 2}, kFloat);
  ExpectMeta(ones({2}).to(Device(kMeta)), {2}, kFloat);
}

}  // namespace
}  // namespace at
}  // namespace nsim

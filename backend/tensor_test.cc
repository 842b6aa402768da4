// Factories, element access, conversion and views, against results worked
// out by hand from PyTorch's semantics.
#include "backend/test_util.h"

namespace nsim {
namespace at {
namespace {

using testing::Values;

Tensor Arange24() { return arange(24).view({2, 3, 4}); }

TEST(Factories, DtypesAndValues) {
  EXPECT_EQ(zeros({2, 3}).dtype(), kFloat);
  EXPECT_EQ(Values(zeros({2})), (std::vector<float>{0, 0}));
  EXPECT_EQ(Values(ones({2}, kBFloat16)), (std::vector<float>{1, 1}));
  EXPECT_EQ(ones({2}, kBFloat16).dtype(), kBFloat16);
  EXPECT_EQ(full({2}, 1.5).dtype(), kFloat);
  EXPECT_EQ(full({2}, 2).dtype(), kInt);
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(full({2}, 2, kHalf).dtype(), kHalf);
  EXPECT_EQ(arange(5).dtype(), kInt);
  EXPECT_EQ(Values(arange(5)), (std::vector<float>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Values(arange(0, 1, 0.25)), (std::vector<float>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(arange(0, 1, 0.25).dtype(), kFloat);
  EXPECT_EQ(Values(arange(5, 0, -2)), (std::vector<float>{5, 3, 1}));
  EXPECT_EQ(Values(tensor({1, 2, 3, 4}, {2, 2})), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_THROW_MSG(tensor({1, 2, 3}, {2, 2}), "tensor(): 3 values cannot fill shape [2, 2]");
}

TEST(Factories, RandomIsDeterministic) {
  EXPECT_EQ(Values(rand({64}, 42)), Values(rand({64}, 42)));
  EXPECT_NE(Values(rand({64}, 42)), Values(rand({64}, 43)));
  manual_seed(5);
  const std::vector<float> a = Values(randn({10}));
  manual_seed(5);
  EXPECT_EQ(a, Values(randn({10})));
  Generator g(7);
  const std::vector<float> b = Values(randn({10}, g));
  EXPECT_NE(b, Values(randn({10}, g)));  // the stream advances
  EXPECT_EQ(b, Values(randn({10}, 7)));
}

// randn draws its normals in chunks (Generator::NextNormals): the values and
// the generator's state after are those of one NextNormal() per element,
// whatever the length (odd ones leave a spare) and across chunk boundaries.
TEST(Factories, RandnIsOneNextNormalPerElement) {
  for (int64_t n : {1, 7, 4096, 4097, 10001}) {
    Generator a(11), b(11);
    a.NextNormal();  // start with a spare pending
    b.NextNormal();
    const std::vector<float> got = Values(randn({n}, a));
    std::vector<float> want;
    for (int64_t i = 0; i < n; ++i) want.push_back(b.NextNormal());
    ASSERT_EQ(got, want) << n;
    EXPECT_EQ(a.NextNormal(), b.NextNormal()) << n;
  }
}

TEST(Factories, RandomDistributions) {
  const std::vector<float> u = Values(rand({10000}, 1));
  const std::vector<float> n = Values(randn({10000}, 1));
  double su = 0, sn = 0, sn2 = 0;
  for (float v : u) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
    su += v;
  }
  for (float v : n) {
    sn += v;
    sn2 += v * v;
  }
  EXPECT_NEAR(su / 1e4, 0.5, 0.02);
  EXPECT_NEAR(sn / 1e4, 0.0, 0.05);
  EXPECT_NEAR(sn2 / 1e4, 1.0, 0.05);
  for (float v : Values(randn({100}, 3, kBFloat16))) EXPECT_EQ(testing::BF16(v), v);
}

TEST(Factories, FromBlobAliases) {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(buf, {2, 3});
  EXPECT_EQ(t.at<float>({1, 2}), 5);
  buf[5] = 9;
  EXPECT_EQ(t.at<float>({1, 2}), 9);
  t.set({0, 0}, -1);
  EXPECT_EQ(buf[0], -1);
  EXPECT_EQ(t.data_ptr<float>(), buf);
  EXPECT_THROW_MSG(t.data_ptr<int32_t>(), "expected scalar type Int but found Float");
}

TEST(Tensor, ElementAccess) {
  Tensor x = Arange24();
  EXPECT_EQ(x.at<int>({1, 2, 3}), 23);
  EXPECT_EQ(x.at<int>({-1, -1, -1}), 23);
  EXPECT_EQ(x.select(0, 1).select(0, 0).select(0, 2).item<int>(), 14);
  EXPECT_EQ(full({}, 2.5).item<float>(), 2.5f);
  EXPECT_TRUE(full({}, 2.5).item().isFloatingPoint());
  EXPECT_THROW_MSG(x.item(), "a Tensor with 24 elements cannot be converted to Scalar");
  EXPECT_THROW_MSG(x.at({2, 0, 0}), "index 2 is out of bounds for dimension 0 with size 2");
  EXPECT_EQ(x.size(-1), 4);
  EXPECT_EQ(x.numel(), 24);
  EXPECT_EQ(x.dim(), 3);
}

TEST(Tensor, Conversion) {
  Tensor f = tensor({1.00390625f, 2.7f, -2.7f});
  EXPECT_EQ(Values(f.to(kBFloat16)), (std::vector<float>{1.0f, 2.703125f, -2.703125f}));
  EXPECT_EQ(Values(f.to(kInt)), (std::vector<float>{1, 2, -2}));  // truncation, as torch
  EXPECT_EQ(Values(f.to(kBool)), (std::vector<float>{1, 1, 1}));
  EXPECT_TRUE(f.to(kFloat).is_same(f));  // no-op conversions return self
  EXPECT_FALSE(f.to(kFloat, false, /*copy=*/true).is_same(f));
  EXPECT_TRUE(f.cpu().is_same(f));
  Tensor m = f.to(Device("meta"));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes(), (IntList{3}));
  EXPECT_THROW_MSG(m.cpu(), "Cannot copy out of meta tensor; no data!");
  Tensor e = empty({2, 3}, Device(kMeta));
  EXPECT_EQ(e.data_ptr(), nullptr);
}

TEST(Tensor, Int64ItemIsExact) {
  const int64_t big = (int64_t{1} << 62) + 1;  // a double would round it
  EXPECT_EQ(full({}, Scalar(big), TensorOptions().dtype(kLong)).item().toLong(), big);
}

TEST(Views, TransposePermuteStrides) {
  Tensor x = Arange24();
  EXPECT_EQ(x.strides(), (IntList{12, 4, 1}));
  Tensor t = x.transpose(0, 2);
  EXPECT_EQ(t.sizes(), (IntList{4, 3, 2}));
  EXPECT_EQ(t.strides(), (IntList{1, 4, 12}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(t.storage().is_alias_of(x.storage()));
  EXPECT_EQ(t.at<int>({3, 1, 1}), 19);  // x[1][1][3]
  Tensor p = x.permute({1, 0, 2});
  EXPECT_EQ(p.sizes(), (IntList{3, 2, 4}));
  EXPECT_EQ(p.strides(), (IntList{4, 12, 1}));
  EXPECT_EQ(x.select(0, 0).t().strides(), (IntList{1, 4}));
  EXPECT_THROW_MSG(x.permute({0, 0, 1}), "dim 0 appears multiple times in the list of dims");
}

TEST(Views, UnsqueezeSqueeze) {
  Tensor x = Arange24();
  EXPECT_EQ(x.unsqueeze(1).sizes(), (IntList{2, 1, 3, 4}));
  EXPECT_EQ(x.unsqueeze(1).strides(), (IntList{12, 12, 4, 1}));
  EXPECT_EQ(x.unsqueeze(-1).strides(), (IntList{12, 4, 1, 1}));
  Tensor z = zeros({1, 3, 1});
  EXPECT_EQ(z.squeeze().sizes(), (IntList{3}));
  EXPECT_EQ(z.squeeze(0).sizes(), (IntList{3, 1}));
  EXPECT_EQ(z.squeeze(1).sizes(), (IntList{1, 3, 1}));
  EXPECT_THROW_MSG(x.unsqueeze(4), "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
}

TEST(Views, SliceNarrowSelect) {
  Tensor x = Arange24();
  Tensor s = x.slice(2, 1, 4, 2);  // x[:, :, 1:4:2]
  EXPECT_EQ(s.sizes(), (IntList{2, 3, 2}));
  EXPECT_EQ(s.strides(), (IntList{12, 4, 2}));
  EXPECT_EQ(s.storage_offset(), 1);
  EXPECT_EQ(Values(s.select(0, 0).select(0, 0)), (std::vector<float>{1, 3}));
  EXPECT_EQ(x.slice(1, -2).sizes(), (IntList{2, 2, 4}));         // x[:, -2:]
  EXPECT_EQ(x.slice(1, 5, 10).sizes(), (IntList{2, 0, 4}));      // clamped, empty
  Tensor n = x.narrow(1, 1, 2);
  EXPECT_EQ(n.storage_offset(), 4);
  EXPECT_EQ(n.sizes(), (IntList{2, 2, 4}));
  Tensor sel = x.select(1, 2);
  EXPECT_EQ(sel.sizes(), (IntList{2, 4}));
  EXPECT_EQ(sel.strides(), (IntList{12, 1}));
  EXPECT_EQ(sel.storage_offset(), 8);
  EXPECT_EQ(x[1].storage_offset(), 12);
  EXPECT_THROW_MSG(x.narrow(1, 2, 2), "start (2) + length (2) exceeds dimension size (3).");
  EXPECT_THROW_MSG(x.select(1, 3), "select(): index 3 out of range for tensor of size [2, 3, 4] at dimension 1");
}

TEST(Views, ExpandHasZeroStrides) {
  Tensor c = arange(3).view({3, 1});
  Tensor e = c.expand({2, 3, 4});
  EXPECT_EQ(e.sizes(), (IntList{2, 3, 4}));
  EXPECT_EQ(e.strides(), (IntList{0, 1, 0}));
  EXPECT_EQ(e.at<int>({1, 2, 3}), 2);
  EXPECT_EQ(c.expand({-1, 5}).sizes(), (IntList{3, 5}));
  EXPECT_THROW_HAS(c.expand({2, 2}), "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0");
}

TEST(Views, ViewReshapeContiguous) {
  Tensor x = Arange24();
  EXPECT_EQ(x.view({-1, 4}).sizes(), (IntList{6, 4}));
  EXPECT_THROW_MSG(x.view({5, -1}), "shape '[5, -1]' is invalid for input of size 24");
  Tensor t = arange(6).view({2, 3}).t();
  EXPECT_THROW_MSG(t.view({6}),
                   "view size is not compatible with input tensor's size and stride (at least one "
                   "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Tensor r = t.reshape({6});  // must copy
  EXPECT_FALSE(r.storage().is_alias_of(t.storage()));
  EXPECT_EQ(Values(r), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor r2 = x.reshape({4, 6});  // can view
  EXPECT_TRUE(r2.storage().is_alias_of(x.storage()));
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.strides(), (IntList{2, 1}));
  EXPECT_EQ(Values(c), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_TRUE(x.contiguous().is_same(x));
}

TEST(Views, WritesThroughViewsAreShared) {
  Tensor x = zeros({2, 3});
  x.select(0, 1).fill_(7);
  x.t().select(0, 0).copy_(tensor({1, 2}));  // column 0
  EXPECT_EQ(Values(x), (std::vector<float>{1, 0, 0, 2, 7, 7}));
}

}  // namespace
}  // namespace at
}  // namespace nsim

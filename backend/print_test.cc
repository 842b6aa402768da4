// operator<< prints like torch.
#include <cmath>
#include <sstream>

#include "backend/test_util.h"

namespace nsim {
namespace at {
namespace {

std::string Str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

TEST(Print, FloatModes) {
  EXPECT_EQ(Str(tensor({1, 2, 3})), "tensor([1., 2., 3.])");
  EXPECT_EQ(Str(tensor({1.5f, -2.25f})), "tensor([ 1.5000, -2.2500])");
  EXPECT_EQ(Str(tensor({1e-5f, 1.0f})), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(Str(full({}, 2.5)), "tensor(2.5000)");
  EXPECT_EQ(Str(tensor({1, 2, 3, 4}, {2, 2})), "tensor([[1., 2.],\n        [3., 4.]])");
  EXPECT_EQ(Str(tensor({0.5f, NAN})), "tensor([0.5000,    nan])");
}

TEST(Print, DtypesDevicesAndShapes) {
  EXPECT_EQ(Str(tensor({1, 2}, kBFloat16)), "tensor([1., 2.], dtype=torch.bfloat16)");
  EXPECT_EQ(Str(arange(3)), "tensor([0, 1, 2], dtype=torch.int32)");
  EXPECT_EQ(Str(full({2}, true)), "tensor([True, True])");
  EXPECT_EQ(Str(empty({2, 3}, Device(kMeta))), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(Str(zeros({0})), "tensor([])");
  EXPECT_EQ(Str(zeros({0, 3})), "tensor([], size=(0, 3))");
  EXPECT_EQ(Str(Tensor()), "[ Tensor (undefined) ]");
  EXPECT_EQ(Str(arange(8).view({2, 2, 2})),
            "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]], "
            "dtype=torch.int32)");
}

TEST(Print, SummarisesLargeTensors) {
  const std::string s = Str(zeros({2000}));
  EXPECT_EQ(s, "tensor([0., 0., 0.,  ..., 0., 0., 0.])");
}

}  // namespace
}  // namespace at
}  // namespace nsim

// Devices, dtypes, memory registries and shape arithmetic.
#include <gtest/gtest.h>

#include "backend/allocator.h"
#include "backend/copy_registry.h"
#include "backend/device.h"
#include "backend/scalar_type.h"
#include "backend/shape.h"
#include "backend/storage.h"
#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

std::string Message(const std::function<void()>& f) {
  try {
    f();
  } catch (const SimError& e) {
    return e.what();
  }
  return "<no exception>";
}

TEST(Device, ParsesAndPrints) {
  EXPECT_EQ(Device("cpu").str(), "cpu");
  EXPECT_EQ(Device("neuron:1").index(), 1);
  EXPECT_EQ(Device("neuron").str(), "neuron:0");
  EXPECT_EQ(Device("neuron"), Device(kNeuron, 0));
  EXPECT_EQ(Device("meta").type(), kMeta);
  EXPECT_EQ(Message([] { Device("gpu"); }),
            "Expected one of cpu, neuron, meta device type at start of device string: gpu");
  EXPECT_EQ(Message([] { Device("neuron:x"); }), "Invalid device string: 'neuron:x'");
}

TEST(ScalarType, PromotionLattice) {
  EXPECT_EQ(PromoteTypes(kBFloat16, kHalf), kFloat);
  EXPECT_EQ(PromoteTypes(kInt, kBFloat16), kBFloat16);
  EXPECT_EQ(PromoteTypes(kInt, kHalf), kHalf);
  EXPECT_EQ(PromoteTypes(kBool, kInt), kInt);
  EXPECT_EQ(PromoteTypes(kBFloat16, kFloat), kFloat);
  EXPECT_EQ(PromoteTypes(kBool, kBool), kBool);
  EXPECT_EQ(ElementSize(kBFloat16), 2);
  EXPECT_STREQ(TorchDtypeName(kBFloat16), "torch.bfloat16");
  EXPECT_EQ(ToSimDType(kHalf), DType::kF16);
  EXPECT_EQ(ToSimDType(kBool), DType::kBool);
  EXPECT_THROW(ToSimDType(ScalarType::Undefined), SimError);
  // The integers, as PyTorch: uint8 and int8 meet at int16; widths order the rest.
  EXPECT_EQ(PromoteTypes(kByte, kChar), kShort);
  EXPECT_EQ(PromoteTypes(kChar, kByte), kShort);
  EXPECT_EQ(PromoteTypes(kByte, kShort), kShort);
  EXPECT_EQ(PromoteTypes(kInt, kLong), kLong);
  EXPECT_EQ(PromoteTypes(kLong, kBFloat16), kBFloat16);
  EXPECT_EQ(PromoteTypes(kBool, kByte), kByte);
  EXPECT_EQ(ElementSize(kLong), 8);
  EXPECT_STREQ(TorchDtypeName(kChar), "torch.int8");
  EXPECT_EQ(ToSimDType(kByte), DType::kU8);
  EXPECT_EQ(ToSimDType(kShort), DType::kI16);
  EXPECT_THROW(ToSimDType(kLong), SimError);  // no int64 element type on the engines
}

TEST(Allocator, MissingNeuronAllocatorIsAClearError) {
  EXPECT_EQ(Message([] { Storage::Allocate(16, Device("neuron:0")); }),
            "no allocator registered for device neuron");
  Storage s = Storage::Allocate(16, Device(kCPU));
  EXPECT_NE(s.data(), nullptr);
  EXPECT_EQ(Storage::Allocate(16, Device(kMeta)).data(), nullptr);
}

TEST(CopyRegistry, HostCopyBuiltInDeviceCopyMissing) {
  int src = 7, dst = 0;
  GetCopyFunction(kCPU, kCPU)(CopyRequest{&dst, 0, Device(kCPU), &src, 0, Device(kCPU), 4, false});
  EXPECT_EQ(dst, 7);
  EXPECT_EQ(Message([] { GetCopyFunction(kCPU, kNeuron); }),
            "no copy function registered from cpu to neuron");
}

TEST(Shape, BroadcastingFollowsPyTorch) {
  EXPECT_EQ(BroadcastShapes({4, 1}, {3}), (IntList{4, 3}));
  EXPECT_EQ(BroadcastShapes({}, {2, 3}), (IntList{2, 3}));
  EXPECT_EQ(BroadcastShapes({5, 1, 4}, {3, 1}), (IntList{5, 3, 4}));
  EXPECT_EQ(Message([] { BroadcastShapes({2, 4}, {2, 3}); }),
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
            "dimension 1");
}

TEST(Shape, DimsAndSizes) {
  EXPECT_EQ(MaybeWrapDim(-1, 2), 1);
  EXPECT_EQ(MaybeWrapDim(0, 0), 0);
  EXPECT_EQ(Message([] { MaybeWrapDim(2, 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(InferSize({-1, 4}, 8), (IntList{2, 4}));
  EXPECT_EQ(Message([] { InferSize({3, 5}, 16); }), "shape '[3, 5]' is invalid for input of size 16");
  EXPECT_EQ(ContiguousStrides({2, 3, 4}), (IntList{12, 4, 1}));
  EXPECT_TRUE(IsContiguous({2, 1, 4}, {4, 99, 1}));  // size-1 strides do not matter
  EXPECT_FALSE(IsContiguous({2, 3}, {1, 2}));
}

TEST(Shape, ViewStrides) {
  bool ok = false;
  // [2, 3, 4] contiguous viewed as [6, 4].
  EXPECT_EQ(ComputeViewStrides({2, 3, 4}, {12, 4, 1}, {6, 4}, &ok), (IntList{4, 1}));
  EXPECT_TRUE(ok);
  // A transposed [3, 2] (strides [1, 3]) cannot be flattened.
  ComputeViewStrides({3, 2}, {1, 3}, {6}, &ok);
  EXPECT_FALSE(ok);
  // But splitting a dim of a transposed tensor works: [4, 2] strides [1, 4] -> [2, 2, 2].
  EXPECT_EQ(ComputeViewStrides({4, 2}, {1, 4}, {2, 2, 2}, &ok), (IntList{2, 1, 4}));
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace at
}  // namespace nsim

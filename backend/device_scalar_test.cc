// The Neuron key end to end, with a fake device (host memory behind the
// Neuron allocator and copy functions) and fake kernels that record their
// calls: a Python-number operand is copied to the device through the
// registered copy function and seen by observers as ops nested in the one
// that needed it; kernels only ever receive device tensors; op-by-op RMSNorm
// is six device kernels plus one scalar copy, rms_norm is one.
#include <cstring>

#include "backend/empty_tensor.h"
#include "backend/library.h"
#include "backend/record_function.h"
#include "backend/test_util.h"

namespace nsim {
namespace at {
namespace {

using testing::FakeNeuronDevice;
using testing::Neuron0;
using testing::Values;

std::vector<std::string> g_calls;

// The fake device memory is host memory: view it as a CPU tensor.
Tensor AsHost(const Tensor& t) {
  EXPECT_EQ(t.device(), Neuron0()) << "a device kernel received a " << t.device() << " tensor";
  Storage s = Storage::Wrap(t.storage().data(), t.storage().nbytes(), Device(kCPU), DataPtr());
  Tensor h(std::make_shared<TensorImpl>(s, t.sizes(), t.strides(), t.storage_offset(), t.dtype()));
  h.unsafeGetTensorImpl()->set_wrapped_number(t.unsafeGetTensorImpl()->is_wrapped_number());
  return h;
}

Tensor ToDevice(const Tensor& host) {
  const Tensor c = host.contiguous();
  Tensor out = EmptyTensor(c.sizes(), c.dtype(), Neuron0());
  std::memcpy(out.data_ptr(), c.data_ptr(), c.nbytes());
  return out;
}

Tensor FakeAdd(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  g_calls.push_back("add");
  return ToDevice(add(AsHost(a), AsHost(b), alpha));
}
Tensor FakeSub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  g_calls.push_back("sub");
  return ToDevice(sub(AsHost(a), AsHost(b), alpha));
}
Tensor FakeMul(const Tensor& a, const Tensor& b) {
  g_calls.push_back("mul");
  return ToDevice(AsHost(a) * AsHost(b));
}
Tensor FakeRsqrt(const Tensor& a) {
  g_calls.push_back("rsqrt");
  return ToDevice(rsqrt(AsHost(a)));
}
Tensor FakeMean(const Tensor& a, const std::optional<IntList>& dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  g_calls.push_back("mean");
  return ToDevice(mean(AsHost(a), *dim, keepdim, dtype));
}
std::tuple<Tensor, Tensor> FakeRms(const Tensor& x, const IntList& shape,
                                   const std::optional<Tensor>& w, std::optional<double> eps) {
  g_calls.push_back("_fused_rms_norm");
  auto r = _fused_rms_norm(AsHost(x), shape, AsHost(*w), eps);
  return std::make_tuple(ToDevice(std::get<0>(r)), ToDevice(std::get<1>(r)));
}

struct Node {
  std::string name;
  int depth;
};
class TreeRecorder : public OpObserver {
 public:
  void OnOpBegin(const OpCall& c) override { nodes.push_back({c.schema->full_name(), c.depth}); }
  std::vector<Node> nodes;  // in begin (pre-)order
};

class NeuronScalarTest : public ::testing::Test {
 protected:
  NeuronScalarTest() : lib_(Library::Kind::IMPL, "aten", PrivateUse1, __FILE__, __LINE__) {
    lib_.impl("add.Tensor", &FakeAdd);
    lib_.impl("sub.Tensor", &FakeSub);
    lib_.impl("mul.Tensor", &FakeMul);
    lib_.impl("rsqrt", &FakeRsqrt);
    lib_.impl("mean.dim", &FakeMean);
    lib_.impl("_fused_rms_norm", &FakeRms);
    g_calls.clear();
  }
  FakeNeuronDevice dev_;
  Library lib_;
};

TEST_F(NeuronScalarTest, PythonScalarIsCopiedToTheDevice) {
  const Tensor x = randn({4, 8}, 0, TensorOptions(kBFloat16).device(Neuron0()));
  dev_.copies.clear();
  TreeRecorder tree;
  AddOpObserver(&tree);
  const Tensor y = x + 1e-6;
  RemoveOpObserver(&tree);
  // One kernel, on device tensors only, and one 4-byte host-to-device copy.
  EXPECT_EQ(g_calls, (std::vector<std::string>{"add"}));
  ASSERT_EQ(dev_.copies.size(), 1u);
  EXPECT_EQ(dev_.copies[0].src, kCPU);
  EXPECT_EQ(dev_.copies[0].dst, kNeuron);
  EXPECT_EQ(dev_.copies[0].nbytes, 4u);
  EXPECT_EQ(y.device(), Neuron0());
  EXPECT_EQ(y.dtype(), kBFloat16);  // the lifted scalar is still a wrapped number
  // The copy is visible as ops nested in aten::add (the fake kernel's own
  // host ops follow).
  ASSERT_GE(tree.nodes.size(), 5u);
  const std::vector<std::pair<std::string, int>> want = {
      {"aten::add.Tensor", 0}, {"aten::to.device", 1}, {"aten::_to_copy", 2},
      {"aten::empty.memory_format", 3}, {"aten::copy_", 3}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(tree.nodes[i].name, want[i].first);
    EXPECT_EQ(tree.nodes[i].depth, want[i].second);
  }
  EXPECT_EQ(Values(y), Values(x.cpu() + 1e-6));
}

TEST_F(NeuronScalarTest, ScalarOverloadsTakeTheSamePath) {
  const Tensor x = ones({3}, Neuron0());
  dev_.copies.clear();
  EXPECT_EQ(Values(x.add(Scalar(2.0))), (std::vector<float>{3, 3, 3}));
  EXPECT_EQ(Values(1 - x * 4), (std::vector<float>{-3, -3, -3}));  // rsub.Scalar -> sub.Tensor
  EXPECT_EQ(Values(x.mul(Scalar(5))), (std::vector<float>{5, 5, 5}));
  EXPECT_EQ(g_calls, (std::vector<std::string>{"add", "mul", "sub", "mul"}));
  int h2d = 0;
  for (const auto& c : dev_.copies) h2d += c.src == kCPU && c.dst == kNeuron;
  EXPECT_EQ(h2d, 4);  // 2.0, 4, 1, 5
}

TEST_F(NeuronScalarTest, OpByOpRmsNormIsSixKernelsPlusOneCopyAndFusedIsOne) {
  const Tensor xc = randn({4, 512}, 1, kBFloat16), wc = randn({512}, 2, kBFloat16);
  const Tensor x = xc.to(Neuron0()), w = wc.to(Neuron0());
  dev_.copies.clear();
  const Tensor op_by_op = x * rsqrt(x.mul(x).mean({-1}, true) + 1e-6) * w;
  EXPECT_EQ(g_calls, (std::vector<std::string>{"mul", "mean", "add", "rsqrt", "mul", "mul"}));
  EXPECT_EQ(dev_.copies.size(), 1u);
  g_calls.clear();
  dev_.copies.clear();
  const Tensor fused = rms_norm(x, {512}, w, 1e-6);
  EXPECT_EQ(g_calls, (std::vector<std::string>{"_fused_rms_norm"}));
  EXPECT_TRUE(dev_.copies.empty());
  // Both agree with the CPU reference computed the same ways.
  EXPECT_EQ(Values(op_by_op), Values(xc * rsqrt(xc.mul(xc).mean({-1}, true) + 1e-6) * wc));
  EXPECT_EQ(Values(fused), Values(rms_norm(xc, {512}, wc, 1e-6)));
}

TEST_F(NeuronScalarTest, UnregisteredOpsFailInsteadOfRunningOnTheCpu) {
  const Tensor x = ones({3}, Neuron0());
  EXPECT_THROW_MSG(x.exp(), "aten::exp is not implemented for the Neuron backend (dtype Float)");
  EXPECT_THROW_MSG(x / 2.0, "aten::div.Tensor is not implemented for the Neuron backend (dtype Float)");
}

TEST(NeuronCopies, RoundTripAndConversionsGoThroughTheCopyFunctions) {
  FakeNeuronDevice dev;
  const Tensor h = arange(0, 6, 1, kFloat).view({2, 3});
  const Tensor d = h.to(Neuron0(), kBFloat16);  // converted on the host, one transfer
  ASSERT_EQ(dev.copies.size(), 1u);
  EXPECT_EQ(dev.copies[0].nbytes, 12u);
  EXPECT_EQ(d.dtype(), kBFloat16);
  const Tensor back = d.cpu();
  EXPECT_EQ(back.dtype(), kBFloat16);
  EXPECT_EQ(Values(back), Values(h));
  EXPECT_EQ(dev.copies.back().src, kNeuron);
  EXPECT_EQ(Values(d.to(Device(kCPU), kFloat)), Values(h));
  EXPECT_EQ(Values(d.clone()), Values(h));  // device -> device
  // A strided device source needs a device kernel (contiguous), which the fake lacks.
  EXPECT_THROW_MSG(d.t().cpu(),
                   "aten::copy_ (strided or converting device copy) is not implemented for the "
                   "Neuron backend (dtype BFloat16)");
  EXPECT_THROW_MSG(d.at({0, 0}),
                   "element access needs a CPU tensor, got one on neuron:0; call .cpu() first");
  EXPECT_EQ(d.select(0, 1).select(0, 2).item<float>(), 5);  // item() copies to the host
}

}  // namespace
}  // namespace at
}  // namespace nsim

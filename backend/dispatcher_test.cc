// Dispatcher: schemas, registration and its errors, key selection, boxed
// calls, fallbacks and the missing-kernel error (never a CPU fallback).
#include <sstream>

#include "backend/dispatcher.h"
#include "backend/library.h"
#include "backend/test_util.h"

namespace nsim {
namespace at {
namespace {

using testing::FakeNeuronDevice;
using testing::Neuron0;

TEST(Schema, ParsesPyTorchSyntax) {
  const FunctionSchema s =
      ParseSchema("aten", "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(s.full_name(), "aten::add.Tensor");
  EXPECT_EQ(s.qualified_name(), "aten::add");
  EXPECT_EQ(s.overload_name(), "Tensor");
  ASSERT_EQ(s.arguments().size(), 3u);
  EXPECT_EQ(s.arguments()[2].type, ArgType::Scalar);
  EXPECT_TRUE(s.arguments()[2].kwarg_only);
  EXPECT_EQ(*s.arguments()[2].default_value, "1");
  const FunctionSchema c = ParseSchema("aten", "copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)");
  EXPECT_TRUE(c.arguments()[0].is_write);
  EXPECT_FALSE(c.arguments()[1].is_write);
  const FunctionSchema m = ParseSchema("aten", "max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)");
  EXPECT_EQ(m.returns().size(), 2u);
  EXPECT_EQ(ParseSchema("aten", "sum.dim_IntList(Tensor self, int[1]? dim) -> Tensor").arguments()[1].type,
            ArgType::OptionalIntList);
  EXPECT_THROW_MSG(ParseSchema("aten", "foo(Tensr x) -> Tensor"),
                   "invalid schema 'foo(Tensr x) -> Tensor': unknown type 'Tensr'");
}

TEST(Dispatcher, EveryListedOpIsDeclared) {
  const std::vector<std::string> ops = Dispatcher::Singleton().ListOps();
  for (const char* name :
       {"aten::mul.Tensor", "aten::mul.Scalar", "aten::add.Tensor", "aten::add.Scalar",
        "aten::sub.Tensor", "aten::div.Tensor", "aten::mean.dim", "aten::sum.dim_IntList",
        "aten::rsqrt", "aten::pow.Tensor_Scalar", "aten::exp", "aten::neg", "aten::sqrt",
        "aten::mm", "aten::matmul", "aten::softmax.int", "aten::silu", "aten::_fused_rms_norm",
        "aten::copy_", "aten::_to_copy", "aten::empty.memory_format", "aten::maximum",
        "aten::max.dim", "aten::amax", "aten::native_layer_norm", "aten::layer_norm",
        "aten::var.correction", "aten::relu", "aten::tanh", "aten::sigmoid", "aten::gelu",
        "aten::reciprocal", "aten::square"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), name), ops.end()) << name;
  }
}

Tensor DoubleIt(const Tensor& x) { return x * 2; }
Tensor TripleIt(const Tensor& x) { return x * 3; }

TEST(Dispatcher, RegisterAndCallANewOp) {
  Library def(Library::Kind::DEF, "test", std::nullopt, __FILE__, __LINE__);
  def.def("twice(Tensor self) -> Tensor");
  Library impl(Library::Kind::IMPL, "test", DispatchKey::CPU, __FILE__, __LINE__);
  impl.impl("twice", &DoubleIt);
  const auto op = FindOp<Tensor(const Tensor&)>("test::twice");
  EXPECT_EQ(testing::Values(op.call(arange(3))), (std::vector<float>{0, 2, 4}));
  // Boxed call of the same kernel.
  Stack s = {IValue(arange(2))};
  Dispatcher::Singleton().findSchemaOrThrow("test::twice").callBoxed(&s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(testing::Values(s[0].toTensor()), (std::vector<float>{0, 2}));
}

// A Tensor[] argument and no return, as collectives have: typed and boxed
// calls reach the kernel with the whole list, and its devices pick the key.
int64_t g_list_numel = 0;
void CountList(const std::vector<Tensor>& list) {
  g_list_numel = 0;
  for (const Tensor& t : list) g_list_numel += t.numel();
}

TEST(Dispatcher, TensorListArgumentAndNoReturn) {
  Library def(Library::Kind::DEF, "test", std::nullopt, __FILE__, __LINE__);
  def.def("count_(Tensor(a!)[] tensors) -> ()", DeviceCheck::kNoCheck);
  const FunctionSchema& schema = Dispatcher::Singleton().findSchemaOrThrow("test::count_").schema();
  EXPECT_EQ(schema.arguments()[0].type, ArgType::TensorList);
  EXPECT_TRUE(schema.arguments()[0].is_write);
  EXPECT_TRUE(schema.returns().empty());
  Library impl(Library::Kind::IMPL, "test", DispatchKey::CPU, __FILE__, __LINE__);
  impl.impl("count_", &CountList);
  const auto op = FindOp<void(const std::vector<Tensor>&)>("test::count_");
  op.call({arange(3), arange(4)});
  EXPECT_EQ(g_list_numel, 7);
  Stack s = {IValue(std::vector<Tensor>{arange(2)})};
  Dispatcher::Singleton().findSchemaOrThrow("test::count_").callBoxed(&s);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(g_list_numel, 2);
  std::ostringstream os;
  os << IValue(std::vector<Tensor>{arange(2), arange(3)});
  EXPECT_EQ(os.str(), "[Int[2], Int[3]]");  // arange gives int64
}

TEST(Dispatcher, DuplicateRegistrationNamesBothPlaces) {
  Library def(Library::Kind::DEF, "test", std::nullopt, "a.cc", 1);
  def.def("dup(Tensor self) -> Tensor");
  Library first(Library::Kind::IMPL, "test", DispatchKey::CPU, "first.cc", 10);
  first.impl("dup", &DoubleIt);
  Library second(Library::Kind::IMPL, "test", DispatchKey::CPU, "second.cc", 20);
  EXPECT_THROW_MSG(second.impl("dup", &TripleIt),
                   "test::dup already has a kernel for dispatch key CPU registered at first.cc:10; "
                   "duplicate registration at second.cc:20");
  Library def2(Library::Kind::DEF, "test", std::nullopt, "b.cc", 2);
  EXPECT_THROW_MSG(def2.def("dup(Tensor self) -> Tensor"),
                   "schema for test::dup is declared twice: at a.cc:1 and at b.cc:2");
}

Tensor WrongArity(const Tensor& a, const Tensor&) { return a; }

TEST(Dispatcher, KernelSignatureIsCheckedAgainstTheSchema) {
  Library lib(Library::Kind::IMPL, "aten", DispatchKey::Neuron, "k.cc", 5);
  EXPECT_THROW_MSG(lib.impl("exp", &WrongArity),
                   "kernel for aten::exp registered at k.cc:5 takes (Tensor, Tensor) and returns 1 "
                   "tensor(s), but the schema is exp(Tensor self) -> Tensor");
  EXPECT_THROW_MSG((FindOp<Tensor(const Tensor&, const Tensor&)>("aten::exp")),
                   "typed() signature does not match the schema exp(Tensor self) -> Tensor");
  EXPECT_THROW_MSG(Dispatcher::Singleton().findSchemaOrThrow("aten::nope"),
                   "Could not find schema for aten::nope");
}

TEST(Dispatcher, MissingDeviceKernelIsAnErrorNotACpuFallback) {
  FakeNeuronDevice dev;
  const Tensor x = ones({4}, TensorOptions(kBFloat16).device(Neuron0()));
  EXPECT_EQ(x.device(), Neuron0());
  EXPECT_THROW_MSG(x.mul(x), "aten::mul.Tensor is not implemented for the Neuron backend (dtype BFloat16)");
  EXPECT_THROW_MSG(exp(x), "aten::exp is not implemented for the Neuron backend (dtype BFloat16)");
  // Composite ops reach the missing kernel underneath them.
  EXPECT_THROW_MSG(x.mul(2.0), "aten::mul.Tensor is not implemented for the Neuron backend (dtype BFloat16)");
  // Views are composite and work on any device.
  EXPECT_EQ(x.view({2, 2}).device(), Neuron0());
}

TEST(Dispatcher, DeviceMismatch) {
  FakeNeuronDevice dev;
  Library lib(Library::Kind::IMPL, "aten", DispatchKey::Neuron, __FILE__, __LINE__);
  lib.impl("mul.Tensor", [](const Tensor& a, const Tensor&) { return a; });
  const Tensor n = ones({2}, Neuron0());
  EXPECT_THROW_MSG(n * ones({2}),
                   "Expected all tensors to be on the same device, but found at least two devices, "
                   "neuron:0 and cpu!");
  EXPECT_THROW_MSG(ones({2}) * n,
                   "Expected all tensors to be on the same device, but found at least two devices, "
                   "cpu and neuron:0!");
}

TEST(Dispatcher, MetaWinsOverCpuAndCpuScalarsMixFreely) {
  const Tensor m = empty({2, 3}, Device(kMeta));
  EXPECT_TRUE((m * ones({}) ).is_meta());   // a 0-dim CPU tensor is a scalar
  EXPECT_THROW_MSG(m * ones({3}),
                   "Expected all tensors to be on the same device, but found at least two devices, "
                   "meta and cpu!");
  EXPECT_EQ((ones({2, 1}) * full({}, 3)).sizes(), (IntList{2, 1}));
}

int g_traced = 0;

TEST(Dispatcher, TracingKeyRecordsThenRedispatches) {
  g_traced = 0;
  Library lib(Library::Kind::IMPL, "_", DispatchKey::Tracing, __FILE__, __LINE__);
  lib.fallback(KernelFunction::FromBoxed([](const OperatorHandle& op, Stack* s) {
    ++g_traced;
    op.redispatchBoxed(DispatchKey::Tracing, s);
  }));
  const Tensor a = arange(3);
  (void)(a * a);
  EXPECT_EQ(g_traced, 0);  // not included: falls through
  {
    IncludeDispatchKeyGuard guard(DispatchKey::Tracing);
    EXPECT_EQ(testing::Values(a * a), (std::vector<float>{0, 1, 4}));
    EXPECT_EQ(g_traced, 1);
    {
      ExcludeDispatchKeyGuard off(DispatchKey::Tracing);
      (void)(a * a);
      EXPECT_EQ(g_traced, 1);
    }
  }
}

TEST(Dispatcher, KeyTraits) {
  EXPECT_TRUE(Traits(DispatchKey::Neuron).lifts_cpu_scalars);
  EXPECT_FALSE(Traits(DispatchKey::CPU).lifts_cpu_scalars);
  EXPECT_EQ(ParseDispatchKey("PrivateUse1"), DispatchKey::Neuron);
  EXPECT_EQ(KeyForDevice(kMeta), DispatchKey::Meta);
}

}  // namespace
}  // namespace at
}  // namespace nsim

// Random fills and dropout on neuron. The device makes the uniforms
// (backend/neuron/kernels/random_kernel.h: Speck32/64 in counter mode, 158
// VectorE instructions per [128, 512] tile, keyed per call by the device's
// (seed, offset)); each distribution is then composed from device kernels
// in fp32 and rounded once to the tensor's dtype:
//   uniform_(a, b)        a + (b - a) u
//   normal_(m, s)         m + s z, z by Box-Muller from two halves of the uniforms
//   bernoulli(p)          u < p
//   random_(from, to)     from + floor(u (to - from)), ranges up to 2^24
//   exponential_(l)       -log(1 - u) / l
//   log_normal_(m, s)     exp(m + s z)
//   cauchy_(m, s)         m + s tan(pi (u - 1/2))
//   geometric_(p)         max(1, ceil(log(1 - u) / log(1 - p)))
//   native_dropout(p)     x * (u >= p) / (1 - p), the mask u >= p
// Every step is a device kernel, timed by the model like any other op.
#include "torch_nsim/csrc/random_ops.h"

#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "backend/neuron/kernels/random_kernel.h"
#include "backend/neuron/ops/random_ops.h"
#include "torch_nsim/csrc/bridge.h"
#include "torch_nsim/csrc/out_variant.h"

namespace torch_nsim {
namespace {

using at::Tensor;

std::mutex g_mu;
std::map<int, std::pair<uint64_t, uint64_t>>& States() {
  static std::map<int, std::pair<uint64_t, uint64_t>> s;
  return s;
}
std::pair<uint64_t, uint64_t>& StateOf(int device) {
  return States().emplace(device, std::make_pair(kDefaultSeed, uint64_t{0})).first->second;
}

// SplitMix64's finaliser (Steele, Lea & Flood, OOPSLA 2014): spreads the
// seed and offset over the 64-bit Speck key.
uint64_t Mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t NextKey(int device) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto& st = StateOf(device);
  return Mix(Mix(st.first) + st.second++);
}

void NoGenerator(const std::optional<at::Generator>& gen, const char* op) {
  TORCH_CHECK_NOT_IMPLEMENTED(!gen.has_value() || !gen->defined(), op,
                              " on neuron: an explicit generator is not supported (the device keeps one random "
                              "state per device: torch.manual_seed / torch.neuron.manual_seed)");
}

// At least n uniforms in [0, 1), fp32, on device d, as [128, m / 128] (m >= n, a whole number of
// the kernel's tiles: the engines' layout, where a 1-d tensor would run on few partitions):
// one device kernel per 2^24. Elements past n are drawn too and dropped by Shaped.
Tensor Uniforms(const c10::Device& d, int64_t n, const char* op) {
  std::vector<Tensor> parts;
  for (int64_t done = 0; done < n; done += nsim::neuron::kMaxRandomElements) {
    const int64_t m = std::min(nsim::neuron::kMaxRandomElements, n - done);
    const auto rk = nsim::neuron::SpeckRoundKeys(NextKey(d.index()));
    Tensor keys = at::empty({nsim::neuron::kSpeckRounds}, at::kFloat);
    for (int i = 0; i < nsim::neuron::kSpeckRounds; ++i) keys.data_ptr<float>()[i] = rk[i];
    keys = keys.to(d);  // the key schedule, a 88-byte upload (CUDA passes its Philox key as kernel arguments)
    Tensor out = at::empty({nsim::neuron::RandomPaddedCount(m)}, at::TensorOptions().dtype(at::kFloat).device(d));
    try {
      nsim::neuron::LaunchRandomUniform(op, ToNsim(keys, op, false), ToNsim(out, op, false), m);
    } catch (const c10::Error&) {
      throw;
    } catch (const std::exception& e) {
      TORCH_CHECK(false, e.what());
    }
    parts.push_back(out.view({128, -1}));
  }
  return parts.size() == 1 ? parts[0] : at::cat(parts, 1);
}

// The first numel(like) elements of a [128, m / 128] draw, shaped like `like`.
Tensor Shaped(const Tensor& v, const Tensor& like) {
  return v.reshape({-1}).narrow(0, 0, like.numel()).view(like.sizes());
}

Tensor UniformsLike(const Tensor& self, const char* op) { return Uniforms(self.device(), self.numel(), op); }

// Standard normals for `self` (Shaped), fp32: Box-Muller on the uniforms' two halves of partitions.
Tensor Normals(const Tensor& self, const char* op) {
  const Tensor u = Uniforms(self.device(), 2 * ((self.numel() + 1) / 2), op);
  const Tensor r = (1 - u.narrow(0, 0, 64)).log().mul(-2).sqrt();  // 1 - u in (0, 1]: log is finite
  const Tensor theta = u.narrow(0, 64, 64).mul(2 * M_PI);
  return at::cat({r * theta.cos(), r * theta.sin()});
}

// v (a [128, m / 128] draw, fp32) rounded once to self's dtype, into self.
Tensor& Store(Tensor& self, const Tensor& v) {
  self.copy_((v.sizes() == self.sizes() ? v : Shaped(v, self)).to(self.scalar_type()));
  return self;
}

void CheckFloating(const Tensor& self, const char* op) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), op, " on neuron: a floating tensor, not ", self.scalar_type());
}

Tensor& Uniform(Tensor& self, double from, double to, std::optional<at::Generator> gen) {
  const char* op = "aten::uniform_";
  NoGenerator(gen, op);
  CheckFloating(self, op);
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  if (self.numel() == 0) return self;
  return Store(self, UniformsLike(self, op).mul(to - from).add(from));
}

Tensor& Normal(Tensor& self, double mean, double std, std::optional<at::Generator> gen) {
  const char* op = "aten::normal_";
  NoGenerator(gen, op);
  CheckFloating(self, op);
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0) return self;
  return Store(self, Normals(self, op).mul(std).add(mean));
}

Tensor NormalTensorFloat(const Tensor& mean, double std, std::optional<at::Generator> gen) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  NoGenerator(gen, "aten::normal.Tensor_float");
  Tensor out = at::empty_like(mean, at::MemoryFormat::Contiguous);
  if (out.numel() == 0) return out;
  return Store(out, Shaped(Normals(out, "aten::normal.Tensor_float"), out).mul(std).add(mean));
}

Tensor NormalFloatTensor(double mean, const Tensor& std, std::optional<at::Generator> gen) {
  NoGenerator(gen, "aten::normal.float_Tensor");
  Tensor out = at::empty_like(std, at::MemoryFormat::Contiguous);
  if (out.numel() == 0) return out;
  return Store(out, Shaped(Normals(out, "aten::normal.float_Tensor"), out).mul(std).add(mean));
}

Tensor NormalTensorTensor(const Tensor& mean, const Tensor& std, std::optional<at::Generator> gen) {
  NoGenerator(gen, "aten::normal.Tensor_Tensor");
  const auto shape = at::infer_size(mean.sizes(), std.sizes());
  Tensor out = at::empty(shape, mean.options().dtype(at::result_type(mean, std)));
  if (out.numel() == 0) return out;
  return Store(out, Shaped(Normals(out, "aten::normal.Tensor_Tensor"), out).mul(std).add(mean));
}

Tensor& NormalTensorFloatOut(const Tensor& mean, double std, std::optional<at::Generator> gen, Tensor& out) {
  return CopyToOut(NormalTensorFloat(mean, std, gen), out);
}
Tensor& NormalFloatTensorOut(double mean, const Tensor& std, std::optional<at::Generator> gen, Tensor& out) {
  return CopyToOut(NormalFloatTensor(mean, std, gen), out);
}
Tensor& NormalTensorTensorOut(const Tensor& mean, const Tensor& std, std::optional<at::Generator> gen, Tensor& out) {
  return CopyToOut(NormalTensorTensor(mean, std, gen), out);
}

void CheckProbability(double p, const char* op) {
  TORCH_CHECK(p >= 0 && p <= 1, op, ": bernoulli expects p to be in [0, 1], but got p=", p);
}

Tensor& BernoulliFloat(Tensor& self, double p, std::optional<at::Generator> gen) {
  const char* op = "aten::bernoulli_.float";
  NoGenerator(gen, op);
  CheckProbability(p, op);
  if (self.numel() == 0) return self;
  return Store(self, UniformsLike(self, op).lt(p));
}

Tensor& BernoulliTensor(Tensor& self, const Tensor& p, std::optional<at::Generator> gen) {
  const char* op = "aten::bernoulli_.Tensor";
  NoGenerator(gen, op);
  if (self.numel() == 0) return self;
  return Store(self, Shaped(UniformsLike(self, op), self).lt(p.to(at::kFloat)));
}

Tensor Bernoulli(const Tensor& self, std::optional<at::Generator> gen) {
  NoGenerator(gen, "aten::bernoulli");
  Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (out.numel() == 0) return out;
  return Store(out, Shaped(UniformsLike(out, "aten::bernoulli"), out).lt(self.to(at::kFloat)));
}

Tensor& BernoulliOut(const Tensor& self, std::optional<at::Generator> gen, Tensor& out) {
  return CopyToOut(Bernoulli(self, gen), out);
}

Tensor BernoulliP(const Tensor& self, double p, std::optional<at::Generator> gen) {
  Tensor out = at::empty_like(self, at::MemoryFormat::Contiguous);
  return BernoulliFloat(out, p, gen);
}

// from + floor(u * range): exact in fp32 for ranges and bounds up to 2^24
// (u * range stays below range: the product rounds at most to range minus an ulp).
Tensor& RandomRange(Tensor& self, int64_t from, int64_t range, const char* op) {
  TORCH_CHECK(range > 0, op, ": random_ expects 'from' to be less than 'to', but got an empty range");
  TORCH_CHECK_NOT_IMPLEMENTED(range <= (int64_t{1} << 24) && std::abs(from) + range <= (int64_t{1} << 24), op,
                              " on neuron: ranges and bounds up to 2^24 (the device draws 24-bit uniforms and "
                              "computes in fp32), not [", from, ", ", from + range, ")");
  TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() != at::kBool || (from >= 0 && from + range <= 2), op,
                              " on neuron: bool tensors take the range [0, 2)");
  if (self.numel() == 0) return self;
  const Tensor y = UniformsLike(self, op).mul(static_cast<double>(range));
  return Store(self, (y - y.frac()).add(static_cast<double>(from)));
}

int64_t DefaultTo(const Tensor& self) {
  switch (self.scalar_type()) {  // PyTorch's random_() range: [0, 2^digits] of the type
    case at::kFloat: return (int64_t{1} << 24) + 1;
    case at::kBFloat16: return (int64_t{1} << 8) + 1;
    case at::kHalf: return (int64_t{1} << 11) + 1;
    case at::kBool: return 2;
    case at::kByte: return 256;
    case at::kChar: return 128;
    case at::kShort: return 32768;
    default: return int64_t{1} << 31;  // int32, int64: refused as beyond 2^24
  }
}

Tensor& RandomFrom(Tensor& self, int64_t from, std::optional<int64_t> to, std::optional<at::Generator> gen) {
  NoGenerator(gen, "aten::random_.from");
  const int64_t hi = to ? *to : DefaultTo(self);
  return RandomRange(self, from, hi - from, "aten::random_.from");
}
Tensor& RandomTo(Tensor& self, int64_t to, std::optional<at::Generator> gen) {
  NoGenerator(gen, "aten::random_.to");
  return RandomRange(self, 0, to, "aten::random_.to");
}
Tensor& Random(Tensor& self, std::optional<at::Generator> gen) {
  NoGenerator(gen, "aten::random_");
  return RandomRange(self, 0, DefaultTo(self), "aten::random_");
}

Tensor& Exponential(Tensor& self, double lambd, std::optional<at::Generator> gen) {
  const char* op = "aten::exponential_";
  NoGenerator(gen, op);
  CheckFloating(self, op);
  TORCH_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  if (self.numel() == 0) return self;
  return Store(self, (1 - UniformsLike(self, op)).log().div(-lambd));
}

Tensor& LogNormal(Tensor& self, double mean, double std, std::optional<at::Generator> gen) {
  const char* op = "aten::log_normal_";
  NoGenerator(gen, op);
  CheckFloating(self, op);
  TORCH_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  if (self.numel() == 0) return self;
  return Store(self, Normals(self, op).mul(std).add(mean).exp());
}

Tensor& Cauchy(Tensor& self, double median, double sigma, std::optional<at::Generator> gen) {
  const char* op = "aten::cauchy_";
  NoGenerator(gen, op);
  CheckFloating(self, op);
  TORCH_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  if (self.numel() == 0) return self;
  return Store(self, UniformsLike(self, op).sub(0.5).mul(M_PI).tan().mul(sigma).add(median));
}

Tensor& Geometric(Tensor& self, double p, std::optional<at::Generator> gen) {
  const char* op = "aten::geometric_";
  NoGenerator(gen, op);
  TORCH_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  if (self.numel() == 0) return self;
  const Tensor y = (1 - UniformsLike(self, op)).log().div(std::log1p(-p));  // >= 0
  const Tensor f = y.frac();
  const Tensor ceil = (y - f) + f.gt(0).to(at::kFloat);
  return Store(self, at::clamp_min(ceil, 1.0));
}

// --- dropout: keep where u >= p (probability 1 - p), scaled by 1 / (1 - p), as the CPU's
// bernoulli_(1 - p) mask; eval mode (train=False) passes the input through.

std::tuple<Tensor, Tensor> NativeDropout(const Tensor& input, double p, std::optional<bool> train) {
  const char* op = "aten::native_dropout";
  TORCH_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if ((train.has_value() && !*train) || input.numel() == 0) {
    return {input.clone(), at::ones_like(input, input.options().dtype(at::kBool))};
  }
  if (p == 1) return {at::zeros_like(input), at::zeros_like(input, input.options().dtype(at::kBool))};
  const Tensor mask = Shaped(UniformsLike(input, op), input).ge(p);
  const double scale = 1.0 / (1.0 - p);
  return {input.mul(mask).mul(scale), mask};
}

Tensor NativeDropoutBackward(const Tensor& grad, const Tensor& mask, double scale) {
  return grad.mul(mask).mul(scale);  // as the CPU kernel: grad * mask * scale
}

Tensor& NativeDropoutBackwardOut(const Tensor& grad, const Tensor& mask, double scale, Tensor& out) {
  return CopyToOut(NativeDropoutBackward(grad, mask, scale), out);
}

// --- rrelu: in training, each element at or below 0 is scaled by a uniform slope in [lower, upper]
// (its noise; 1 elsewhere), computed in fp32 and rounded once, as the CPU kernel; in eval mode
// leaky_relu with the mean slope.
Tensor RreluWithNoise(const Tensor& self, Tensor& noise, const c10::Scalar& lower, const c10::Scalar& upper,
                      bool training, std::optional<at::Generator> gen) {
  const char* op = "aten::rrelu_with_noise";
  NoGenerator(gen, op);
  CheckFloating(self, op);
  const double lo = lower.toDouble(), hi = upper.toDouble();
  if (!training) return at::leaky_relu(self, (lo + hi) / 2);
  if (self.numel() == 0) return self.clone();
  const Tensor slope = Shaped(UniformsLike(self, op), self).mul(hi - lo).add(lo);
  const Tensor r = at::where(self.le(0), slope, at::ones_like(slope));
  noise.copy_(r.to(noise.scalar_type()));
  return (self.to(at::kFloat) * r).to(self.scalar_type());
}

Tensor& RreluWithNoiseOut(const Tensor& self, Tensor& noise, const c10::Scalar& lower, const c10::Scalar& upper,
                          bool training, std::optional<at::Generator> gen, Tensor& out) {
  return CopyToOut(RreluWithNoise(self, noise, lower, upper, training, gen), out);
}

Tensor& RreluWithNoiseInplace(Tensor& self, Tensor& noise, const c10::Scalar& lower, const c10::Scalar& upper,
                              bool training, std::optional<at::Generator> gen) {
  self.copy_(RreluWithNoise(self, noise, lower, upper, training, gen));
  return self;
}

}  // namespace

std::pair<uint64_t, uint64_t> RngState(int device) {
  std::lock_guard<std::mutex> lock(g_mu);
  return StateOf(device);
}

void SetRngState(int device, uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(g_mu);
  StateOf(device) = {seed, offset};
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("uniform_", &Uniform);
  m.impl("normal_", &Normal);
  m.impl("normal.Tensor_float", &NormalTensorFloat);
  m.impl("normal.float_Tensor", &NormalFloatTensor);
  m.impl("normal.Tensor_Tensor", &NormalTensorTensor);
  m.impl("normal.Tensor_float_out", &NormalTensorFloatOut);
  m.impl("normal.float_Tensor_out", &NormalFloatTensorOut);
  m.impl("normal.Tensor_Tensor_out", &NormalTensorTensorOut);
  m.impl("bernoulli_.float", &BernoulliFloat);
  m.impl("bernoulli_.Tensor", &BernoulliTensor);
  m.impl("bernoulli", &Bernoulli);
  m.impl("bernoulli.out", &BernoulliOut);
  m.impl("bernoulli.p", &BernoulliP);
  m.impl("random_.from", &RandomFrom);
  m.impl("random_.to", &RandomTo);
  m.impl("random_", &Random);
  m.impl("exponential_", &Exponential);
  m.impl("log_normal_", &LogNormal);
  m.impl("cauchy_", &Cauchy);
  m.impl("geometric_", &Geometric);
  m.impl("native_dropout", &NativeDropout);
  m.impl("native_dropout_backward", &NativeDropoutBackward);
  m.impl("native_dropout_backward.out", &NativeDropoutBackwardOut);
  m.impl("rrelu_with_noise", &RreluWithNoise);
  m.impl("rrelu_with_noise.out", &RreluWithNoiseOut);
  m.impl("rrelu_with_noise_", &RreluWithNoiseInplace);
}

}  // namespace torch_nsim

// Channel shuffle, reflection / replication padding and nearest / linear upsampling on neuron,
// composed of device copies (slices, flips, index_select) and fp32 arithmetic, each step a device
// kernel timed by the model. Source indices and interpolation weights are host tables of the op's
// geometry, computed as the CPU kernels compute them (float arithmetic, the same clamps), uploaded.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"

namespace torch_nsim {
namespace {

using at::Tensor;

Tensor ChannelShuffle(const Tensor& self, int64_t groups) {
  TORCH_CHECK(self.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes ",
              self.sizes());
  TORCH_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:", groups);
  const int64_t c = self.size(1);
  TORCH_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ", groups,
              " groups.");
  std::vector<int64_t> split = {self.size(0), groups, c / groups};
  for (int64_t d = 2; d < self.dim(); ++d) split.push_back(self.size(d));
  return self.reshape(split).transpose(1, 2).contiguous().view(self.sizes());  // one device copy
}

// --- padding of the last padding.size() / 2 dims: (left, right) of the last dim first, as F.pad.

// `count` copies of t's slice `at` along dim (a broadcast view; cat copies it).
Tensor Edge(const Tensor& t, int64_t dim, int64_t at, int64_t count) {
  std::vector<int64_t> sizes = t.sizes().vec();
  sizes[dim] = count;
  return t.narrow(dim, at, 1).expand(sizes);
}

Tensor PadDim(const Tensor& x, int64_t dim, int64_t left, int64_t right, bool reflect, const char* op) {
  Tensor t = x;
  const int64_t n = t.size(dim);
  if (left < 0) t = t.narrow(dim, -left, t.size(dim) + left), left = 0;
  if (right < 0) t = t.narrow(dim, 0, t.size(dim) + right), right = 0;
  if (reflect) {
    TORCH_CHECK(left < n && right < n, op, ": Padding size should be less than the corresponding input dimension, "
                "but got: padding (", left, ", ", right, ") at dimension ", dim, " of input ", x.sizes());
  } else {
    TORCH_CHECK(n > 0 || (left == 0 && right == 0), op, ": input dimension ", dim, " is empty");
  }
  std::vector<Tensor> parts;
  const int64_t m = t.size(dim);
  if (left > 0) {
    parts.push_back(reflect ? t.narrow(dim, 1, left).flip(dim) : Edge(t, dim, 0, left));
  }
  parts.push_back(t);
  if (right > 0) {
    parts.push_back(reflect ? t.narrow(dim, m - 1 - right, right).flip(dim)
                            : Edge(t, dim, m - 1, right));
  }
  return parts.size() == 1 ? t.clone() : at::cat(parts, dim);
}

Tensor Pad(const Tensor& self, at::IntArrayRef padding, bool reflect, const char* op) {
  const int64_t k = static_cast<int64_t>(padding.size()) / 2;
  TORCH_CHECK(self.dim() == k + 1 || self.dim() == k + 2, op, ": expected ", k + 1, "D or ", k + 2,
              "D input, but got ", self.sizes());
  Tensor t = self;
  for (int64_t i = 0; i < k; ++i) t = PadDim(t, self.dim() - 1 - i, padding[2 * i], padding[2 * i + 1], reflect, op);
  return t;
}

#define NSIM_PAD_OP(Name, reflect, name)                                                          \
  Tensor Name(const Tensor& self, at::IntArrayRef padding) { return Pad(self, padding, reflect, name); } \
  Tensor& Name##Out(const Tensor& self, at::IntArrayRef padding, Tensor& out) {                   \
    return CopyToOut(Name(self, padding), out);                                                   \
  }
NSIM_PAD_OP(ReflectionPad1d, true, "aten::reflection_pad1d")
NSIM_PAD_OP(ReflectionPad2d, true, "aten::reflection_pad2d")
NSIM_PAD_OP(ReflectionPad3d, true, "aten::reflection_pad3d")
NSIM_PAD_OP(ReplicationPad1d, false, "aten::replication_pad1d")
NSIM_PAD_OP(ReplicationPad2d, false, "aten::replication_pad2d")
NSIM_PAD_OP(ReplicationPad3d, false, "aten::replication_pad3d")
#undef NSIM_PAD_OP

// --- upsampling, one spatial dim at a time (the last k dims of [N, C, ...]).

// ATen's compute_scales_value / area_pixel_compute_scale, in float as the CPU kernels.
float ScaleOf(std::optional<double> scale, int64_t in, int64_t out, bool align_corners) {
  if (align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  return scale && *scale > 0 ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
}

Tensor IndexTable(const std::vector<int64_t>& v, const c10::Device& d) {
  return at::tensor(v, at::kLong).to(d);
}

// Nearest (or nearest-exact) along `dim`: index_select of the source index of every output position.
Tensor NearestAlong(const Tensor& x, int64_t dim, int64_t out, std::optional<double> scale, bool exact) {
  const int64_t in = x.size(dim);
  const float s = ScaleOf(scale, in, out, false);
  std::vector<int64_t> src(out);
  for (int64_t i = 0; i < out; ++i) {
    if (!exact && out == in) src[i] = i;
    else if (!exact && out == 2 * in) src[i] = i >> 1;
    else src[i] = std::min(static_cast<int64_t>(std::floor((exact ? i + 0.5f : static_cast<float>(i)) * s)), in - 1);
  }
  return x.index_select(dim, IndexTable(src, x.device()));
}

Tensor Nearest(const Tensor& self, at::IntArrayRef output_size, const std::vector<std::optional<double>>& scales,
               bool exact, const char* op) {
  const int64_t k = static_cast<int64_t>(output_size.size());
  TORCH_CHECK(self.dim() == k + 2, op, ": expected a ", k + 2, "-D input, got ", self.sizes());
  TORCH_CHECK(self.numel() > 0 || self.size(0) == 0, op, ": non-empty input expected");
  Tensor t = self;
  for (int64_t i = 0; i < k; ++i) t = NearestAlong(t, 2 + i, output_size[i], scales[i], exact);
  return t.contiguous();
}

// Linear along `dim` in fp32: l0 * x[i0] + l1 * x[i1] with ATen's source index and weights.
Tensor LinearAlong(const Tensor& x, int64_t dim, int64_t out, bool align_corners, std::optional<double> scale) {
  const int64_t in = x.size(dim);
  const float s = ScaleOf(scale, in, out, align_corners);
  std::vector<int64_t> i0(out), i1(out);
  std::vector<float> l0(out), l1(out);
  for (int64_t i = 0; i < out; ++i) {
    const float real = align_corners ? s * static_cast<float>(i) : std::max(s * (static_cast<float>(i) + 0.5f) - 0.5f, 0.0f);
    const int64_t lo = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const float lambda = std::min(std::max(real - static_cast<float>(lo), 0.0f), 1.0f);
    i0[i] = lo;
    i1[i] = lo + (lo < in - 1 ? 1 : 0);
    l1[i] = lambda;
    l0[i] = 1.0f - lambda;
  }
  std::vector<int64_t> shape(x.dim(), 1);
  shape[dim] = out;
  const Tensor w0 = at::tensor(l0).view(shape).to(x.device()), w1 = at::tensor(l1).view(shape).to(x.device());
  return x.index_select(dim, IndexTable(i0, x.device())) * w0 + x.index_select(dim, IndexTable(i1, x.device())) * w1;
}

Tensor Linear(const Tensor& self, at::IntArrayRef output_size, bool align_corners,
              const std::vector<std::optional<double>>& scales, const char* op) {
  const int64_t k = static_cast<int64_t>(output_size.size());
  TORCH_CHECK(self.dim() == k + 2, op, ": expected a ", k + 2, "-D input, got ", self.sizes());
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), op, " on neuron: floating dtypes, not ",
                              self.scalar_type());
  // The last dim first: the CPU's bilinear sums the width's pair inside each height term.
  Tensor t = self.to(at::kFloat);
  for (int64_t i = k - 1; i >= 0; --i) t = LinearAlong(t, 2 + i, output_size[i], align_corners, scales[i]);
  return t.to(self.scalar_type()).contiguous();
}

Tensor UpsampleNearest1d(const Tensor& self, at::IntArrayRef size, std::optional<double> s) {
  return Nearest(self, size, {s}, false, "aten::upsample_nearest1d");
}
Tensor UpsampleNearest2d(const Tensor& self, at::IntArrayRef size, std::optional<double> sh, std::optional<double> sw) {
  return Nearest(self, size, {sh, sw}, false, "aten::upsample_nearest2d");
}
Tensor UpsampleNearest3d(const Tensor& self, at::IntArrayRef size, std::optional<double> sd, std::optional<double> sh,
                         std::optional<double> sw) {
  return Nearest(self, size, {sd, sh, sw}, false, "aten::upsample_nearest3d");
}
Tensor UpsampleNearestExact1d(const Tensor& self, at::IntArrayRef size, std::optional<double> s) {
  return Nearest(self, size, {s}, true, "aten::_upsample_nearest_exact1d");
}
Tensor UpsampleNearestExact2d(const Tensor& self, at::IntArrayRef size, std::optional<double> sh,
                              std::optional<double> sw) {
  return Nearest(self, size, {sh, sw}, true, "aten::_upsample_nearest_exact2d");
}
Tensor UpsampleNearestExact3d(const Tensor& self, at::IntArrayRef size, std::optional<double> sd,
                              std::optional<double> sh, std::optional<double> sw) {
  return Nearest(self, size, {sd, sh, sw}, true, "aten::_upsample_nearest_exact3d");
}
Tensor UpsampleLinear1d(const Tensor& self, at::IntArrayRef size, bool ac, std::optional<double> s) {
  return Linear(self, size, ac, {s}, "aten::upsample_linear1d");
}
Tensor UpsampleBilinear2d(const Tensor& self, at::IntArrayRef size, bool ac, std::optional<double> sh,
                          std::optional<double> sw) {
  return Linear(self, size, ac, {sh, sw}, "aten::upsample_bilinear2d");
}

Tensor& UpsampleNearest1dOut(const Tensor& self, at::IntArrayRef size, std::optional<double> s, Tensor& out) {
  return CopyToOut(UpsampleNearest1d(self, size, s), out);
}
Tensor& UpsampleNearest2dOut(const Tensor& self, at::IntArrayRef size, std::optional<double> sh,
                             std::optional<double> sw, Tensor& out) {
  return CopyToOut(UpsampleNearest2d(self, size, sh, sw), out);
}
Tensor& UpsampleNearest3dOut(const Tensor& self, at::IntArrayRef size, std::optional<double> sd,
                             std::optional<double> sh, std::optional<double> sw, Tensor& out) {
  return CopyToOut(UpsampleNearest3d(self, size, sd, sh, sw), out);
}
Tensor& UpsampleNearestExact1dOut(const Tensor& self, at::IntArrayRef size, std::optional<double> s, Tensor& out) {
  return CopyToOut(UpsampleNearestExact1d(self, size, s), out);
}
Tensor& UpsampleNearestExact2dOut(const Tensor& self, at::IntArrayRef size, std::optional<double> sh,
                                  std::optional<double> sw, Tensor& out) {
  return CopyToOut(UpsampleNearestExact2d(self, size, sh, sw), out);
}
Tensor& UpsampleNearestExact3dOut(const Tensor& self, at::IntArrayRef size, std::optional<double> sd,
                                  std::optional<double> sh, std::optional<double> sw, Tensor& out) {
  return CopyToOut(UpsampleNearestExact3d(self, size, sd, sh, sw), out);
}
Tensor& UpsampleLinear1dOut(const Tensor& self, at::IntArrayRef size, bool ac, std::optional<double> s, Tensor& out) {
  return CopyToOut(UpsampleLinear1d(self, size, ac, s), out);
}
Tensor& UpsampleBilinear2dOut(const Tensor& self, at::IntArrayRef size, bool ac, std::optional<double> sh,
                              std::optional<double> sw, Tensor& out) {
  return CopyToOut(UpsampleBilinear2d(self, size, ac, sh, sw), out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("channel_shuffle", &ChannelShuffle);
  m.impl("native_channel_shuffle", &ChannelShuffle);
  m.impl("reflection_pad1d", &ReflectionPad1d);
  m.impl("reflection_pad1d.out", &ReflectionPad1dOut);
  m.impl("reflection_pad2d", &ReflectionPad2d);
  m.impl("reflection_pad2d.out", &ReflectionPad2dOut);
  m.impl("reflection_pad3d", &ReflectionPad3d);
  m.impl("reflection_pad3d.out", &ReflectionPad3dOut);
  m.impl("replication_pad1d", &ReplicationPad1d);
  m.impl("replication_pad1d.out", &ReplicationPad1dOut);
  m.impl("replication_pad2d", &ReplicationPad2d);
  m.impl("replication_pad2d.out", &ReplicationPad2dOut);
  m.impl("replication_pad3d", &ReplicationPad3d);
  m.impl("replication_pad3d.out", &ReplicationPad3dOut);
  m.impl("upsample_nearest1d", &UpsampleNearest1d);
  m.impl("upsample_nearest1d.out", &UpsampleNearest1dOut);
  m.impl("upsample_nearest2d", &UpsampleNearest2d);
  m.impl("upsample_nearest2d.out", &UpsampleNearest2dOut);
  m.impl("upsample_nearest3d", &UpsampleNearest3d);
  m.impl("upsample_nearest3d.out", &UpsampleNearest3dOut);
  m.impl("_upsample_nearest_exact1d", &UpsampleNearestExact1d);
  m.impl("_upsample_nearest_exact1d.out", &UpsampleNearestExact1dOut);
  m.impl("_upsample_nearest_exact2d", &UpsampleNearestExact2d);
  m.impl("_upsample_nearest_exact2d.out", &UpsampleNearestExact2dOut);
  m.impl("_upsample_nearest_exact3d", &UpsampleNearestExact3d);
  m.impl("_upsample_nearest_exact3d.out", &UpsampleNearestExact3dOut);
  m.impl("upsample_linear1d", &UpsampleLinear1d);
  m.impl("upsample_linear1d.out", &UpsampleLinear1dOut);
  m.impl("upsample_bilinear2d", &UpsampleBilinear2d);
  m.impl("upsample_bilinear2d.out", &UpsampleBilinear2dOut);
}

}  // namespace torch_nsim

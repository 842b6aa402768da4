// Convolution, average pooling (fixed and adaptive) and batch norm on neuron, composed from the
// device's kernels and copies, as the Neuron compiler lowers a convolution
// to TensorE matmuls: the input's shifted windows are copied side by side
// (im2col: one strided device copy per kernel offset) and one matmul with
// K = C_in x kH x kW contracts them with the weights; the backward is the
// two transposed matmuls and the windows added back (col2im). Every step is
// a device kernel or copy, timed by the model like any other op.
#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "torch_nsim/csrc/out_variant.h"

namespace torch_nsim {
namespace {

using at::Tensor;

// The 2-d geometry of a window op over [N, C, H, W] (a 1-d op is its H = 1 case).
struct Windows {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t ho, wo;  // output size

  // The input's [N, C, Ho, Wo] view that kernel offset (i, j) reads, in the padded input `xp`.
  Tensor At(const Tensor& xp, int64_t i, int64_t j) const {
    return xp.slice(2, i * dh, i * dh + sh * (ho - 1) + 1, sh).slice(3, j * dw, j * dw + sw * (wo - 1) + 1, sw);
  }
};

int64_t Pick(at::IntArrayRef v, size_t i, int64_t dflt) { return v.empty() ? dflt : v[v.size() == 1 ? 0 : i]; }

Windows Geometry(const Tensor& x, int64_t kh, int64_t kw, at::IntArrayRef stride, at::IntArrayRef padding,
                 at::IntArrayRef dilation, const char* op) {
  Windows g{kh, kw, Pick(stride, 0, kh), Pick(stride, 1, kw), Pick(padding, 0, 0), Pick(padding, 1, 0),
            Pick(dilation, 0, 1), Pick(dilation, 1, 1), 0, 0};
  g.ho = (x.size(2) + 2 * g.ph - g.dh * (kh - 1) - 1) / g.sh + 1;
  g.wo = (x.size(3) + 2 * g.pw - g.dw * (kw - 1) - 1) / g.sw + 1;
  TORCH_CHECK(g.ho > 0 && g.wo > 0, op, " on neuron: the kernel is larger than the padded input");
  return g;
}

Tensor Padded(const Tensor& x, const Windows& g) {
  return g.ph == 0 && g.pw == 0 ? x : at::constant_pad_nd(x, {g.pw, g.pw, g.ph, g.ph}, 0);
}

// [C, kH, kW, N, Ho, Wo]: every window of x laid out for one matmul.
Tensor Im2Col(const Tensor& x, const Windows& g) {
  const Tensor xp = Padded(x, g);
  Tensor col = at::empty({x.size(1), g.kh, g.kw, x.size(0), g.ho, g.wo}, x.options());
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) col.select(1, i).select(1, j).copy_(g.At(xp, i, j).transpose(0, 1));
  }
  return col;
}

// The gradient of the padded input from the windows' gradients [C, kH, kW, N, Ho, Wo], cropped.
Tensor Col2Im(const Tensor& col, const Tensor& x, const Windows& g) {
  Tensor xp = at::zeros({x.size(0), x.size(1), x.size(2) + 2 * g.ph, x.size(3) + 2 * g.pw}, x.options());
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) g.At(xp, i, j).add_(col.select(1, i).select(1, j).transpose(0, 1));
  }
  return xp.slice(2, g.ph, g.ph + x.size(2)).slice(3, g.pw, g.pw + x.size(3)).contiguous();
}

// Convolutions of 1 or 2 spatial dims work on [N, C, H, W]; 1-d ones as H = 1.
Tensor As2d(const Tensor& t) { return t.dim() == 3 ? t.unsqueeze(2) : t; }
std::vector<int64_t> As2d(at::IntArrayRef v, int64_t dflt, int64_t dims) {
  if (dims == 2) return v.vec();
  return {dflt, v.empty() ? dflt : v[0]};
}

void CheckConv(const Tensor& input, bool transposed) {
  TORCH_CHECK_NOT_IMPLEMENTED(input.dim() == 3 || input.dim() == 4,
                              "aten::convolution on neuron: 1-d and 2-d convolutions, not ", input.dim() - 2, "-d");
  TORCH_CHECK_NOT_IMPLEMENTED(!transposed, "aten::convolution on neuron: the backward of a transposed convolution is not "
                              "supported");
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(input.scalar_type()),
                              "aten::convolution on neuron: floating dtypes only, not ", input.scalar_type());
}

struct Conv {
  Tensor x, w;  // [N, C, H, W], [Cout, C, kH, kW]
  Windows g;
  bool one_d;
};

Conv Setup(const Tensor& input, const Tensor& weight, at::IntArrayRef stride, at::IntArrayRef padding,
           at::IntArrayRef dilation) {
  const int64_t dims = input.dim() - 2;
  Conv c{As2d(input), As2d(weight), {}, dims == 1};
  c.g = Geometry(c.x, c.w.size(2), c.w.size(3), As2d(stride, 1, dims), As2d(padding, 0, dims),
                 As2d(dilation, 1, dims), "aten::convolution");
  return c;
}

// Group k of a grouped convolution: its share of the channels of `t` along `dim`.
Tensor Group(const Tensor& t, int64_t dim, int64_t k, int64_t groups) {
  const int64_t share = t.size(dim) / groups;
  return groups == 1 ? t : t.narrow(dim, k * share, share);
}

// [Cout, N, Ho, Wo] of one group: one matmul over the windows.
Tensor ConvGroup(const Tensor& x, const Tensor& w, const Windows& g) {
  const Tensor col = Im2Col(x, g).view({-1, x.size(0) * g.ho * g.wo});
  return at::mm(w.reshape({w.size(0), -1}), col).view({w.size(0), x.size(0), g.ho, g.wo});
}

// A transposed convolution (the input's gradient of a convolution): one matmul per group spreads each
// input element over its kernel's window of the output, [Cout, kH, kW, N, H, W], and col2im adds the
// windows into the output (in fp32, rounded once); the windows' geometry is the forward convolution's
// of the output, whose size is (H - 1) s - 2 p + d (k - 1) + output_padding + 1.
Tensor ConvTransposeGroup(const Tensor& x, const Tensor& w, const Windows& g, int64_t ho, int64_t wo) {
  const int64_t cout = w.size(1);
  const Tensor col = at::mm(w.reshape({w.size(0), -1}).t(), x.transpose(0, 1).reshape({x.size(1), -1}))
                         .to(at::kFloat)
                         .view({cout, g.kh, g.kw, x.size(0), x.size(2), x.size(3)});
  return Col2Im(col, at::empty({x.size(0), cout, ho, wo}, x.options().dtype(at::kFloat)), g);
}

Tensor ConvTranspose(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
                     at::IntArrayRef output_padding, int64_t groups) {
  const int64_t dims = input.dim() - 2;
  const Tensor x = As2d(input), w = As2d(weight);  // w: [Cin, Cout / groups, kH, kW]
  const auto s = As2d(stride, 1, dims), p = As2d(padding, 0, dims), d = As2d(dilation, 1, dims);
  const auto op = As2d(output_padding, 0, dims);
  Windows g{w.size(2), w.size(3), Pick(s, 0, 1), Pick(s, 1, 1), Pick(p, 0, 0), Pick(p, 1, 0), Pick(d, 0, 1),
            Pick(d, 1, 1), x.size(2), x.size(3)};
  const int64_t ho = (x.size(2) - 1) * g.sh - 2 * g.ph + g.dh * (g.kh - 1) + Pick(op, 0, 0) + 1;
  const int64_t wo = (x.size(3) - 1) * g.sw - 2 * g.pw + g.dw * (g.kw - 1) + Pick(op, 1, 0) + 1;
  TORCH_CHECK(ho > 0 && wo > 0, "aten::convolution (transposed) on neuron: the output would be empty");
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < groups; ++k) {
    parts.push_back(ConvTransposeGroup(Group(x, 1, k, groups), Group(w, 0, k, groups), g, ho, wo));
  }
  Tensor out = groups == 1 ? parts[0] : at::cat(parts, 1);
  if (bias && bias->defined()) out = out + bias->to(at::kFloat).view({1, -1, 1, 1});
  out = out.to(input.scalar_type());
  return dims == 1 ? out.squeeze(2) : out;
}

Tensor Convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                   at::IntArrayRef output_padding, int64_t groups) {
  if (transposed && (input.dim() == 3 || input.dim() == 4) && at::isFloatingType(input.scalar_type())) {
    return ConvTranspose(input, weight, bias, stride, padding, dilation, output_padding, groups);
  }
  CheckConv(input, transposed);
  const Conv c = Setup(input, weight, stride, padding, dilation);
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < groups; ++k) parts.push_back(ConvGroup(Group(c.x, 1, k, groups), Group(c.w, 0, k, groups), c.g));
  Tensor out = (groups == 1 ? parts[0] : at::cat(parts, 0)).transpose(0, 1);
  if (bias && bias->defined()) out = out + bias->view({1, c.w.size(0), 1, 1});
  out = out.contiguous();
  return c.one_d ? out.squeeze(2) : out;
}

std::tuple<Tensor, Tensor, Tensor> ConvolutionBackward(const Tensor& grad_output, const Tensor& input,
                                                       const Tensor& weight, at::IntArrayRef stride,
                                                       at::IntArrayRef padding, at::IntArrayRef dilation,
                                                       bool transposed, at::IntArrayRef /*output_padding*/,
                                                       int64_t groups, std::array<bool, 3> mask) {
  CheckConv(input, transposed);
  const Conv c = Setup(input, weight, stride, padding, dilation);
  const Tensor go_all = As2d(grad_output).transpose(0, 1);  // [Cout, N, Ho, Wo]
  std::vector<Tensor> gis, gws;
  for (int64_t k = 0; k < groups; ++k) {
    const Tensor x = Group(c.x, 1, k, groups), w = Group(c.w, 0, k, groups);
    const Tensor go = Group(go_all, 0, k, groups).reshape({w.size(0), -1});  // [Cout/groups, N Ho Wo]
    if (mask[0]) {
      const Tensor gcol =
          at::mm(w.reshape({w.size(0), -1}).t(), go).view({x.size(1), c.g.kh, c.g.kw, x.size(0), c.g.ho, c.g.wo});
      gis.push_back(Col2Im(gcol, x, c.g));
    }
    if (mask[1]) gws.push_back(at::mm(go, Im2Col(x, c.g).view({-1, go.size(1)}).t()));
  }
  Tensor gi, gw, gb;
  if (mask[0]) {
    gi = groups == 1 ? gis[0] : at::cat(gis, 1);
    if (c.one_d) gi = gi.squeeze(2);
  }
  if (mask[1]) gw = (groups == 1 ? gws[0] : at::cat(gws, 0)).view(weight.sizes());
  if (mask[2]) gb = grad_output.sum(c.one_d ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0, 2, 3});
  return {gi, gw, gb};
}

// --- max pooling with indices. The running maximum over the kernel offsets, one window view of the
// input (padded with -inf) per offset, as the CPU kernel scans a window: an element replaces the
// maximum when it is greater or NaN (so the first of equal maxima wins and NaN propagates), starting
// from -inf at the window's first in-bounds element. Indices (h * W + w in the input plane) are
// carried in fp32 (exact below 2^24) and stored as int64. The backward adds each output's gradient
// into the window offset its index names (an int64 compare per offset), as col2im does.

struct MaxPool {  // the geometry of max and average pooling
  Tensor x;  // [N, C, H, W]
  Windows g;
  int64_t pb, pr;  // -inf rows / columns after the input so that every (ceil_mode) window fits
};

int64_t PoolOut(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;  // the last window must start inside the input or left padding
  return o;
}

MaxPool PoolSetup(const char* op, const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                  at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode) {
  TORCH_CHECK_NOT_IMPLEMENTED(self.dim() == 3 || self.dim() == 4, op, " on neuron: a [C, H, W] or [N, C, H, W] input");
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), op, " on neuron: floating dtypes, not ",
                              self.scalar_type());
  TORCH_CHECK(self.size(-1) * self.size(-2) < (int64_t{1} << 24), op,
              " on neuron: planes up to 2^24 elements (indices are carried in fp32)");
  MaxPool m{self.dim() == 3 ? self.unsqueeze(0) : self, {}, 0, 0};
  Windows& g = m.g;
  g.kh = Pick(kernel, 0, 1), g.kw = Pick(kernel, 1, 1);
  g.sh = Pick(stride, 0, g.kh), g.sw = Pick(stride, 1, g.kw);
  g.ph = Pick(padding, 0, 0), g.pw = Pick(padding, 1, 0), g.dh = Pick(dilation, 0, 1), g.dw = Pick(dilation, 1, 1);
  TORCH_CHECK(g.kh > 0 && g.kw > 0 && g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0, op,
              ": kernel size, stride and dilation must be positive");
  TORCH_CHECK(g.ph <= g.kh / 2 && g.pw <= g.kw / 2, op, ": pad should be at most half of effective kernel size");
  const int64_t h = m.x.size(2), w = m.x.size(3);
  g.ho = PoolOut(h, g.kh, g.sh, g.ph, g.dh, ceil_mode);
  g.wo = PoolOut(w, g.kw, g.sw, g.pw, g.dw, ceil_mode);
  TORCH_CHECK(g.ho > 0 && g.wo > 0, op, ": output size is too small (input ", h, "x", w, ")");
  m.pb = std::max<int64_t>(0, (g.ho - 1) * g.sh + g.dh * (g.kh - 1) + 1 - h - g.ph);
  m.pr = std::max<int64_t>(0, (g.wo - 1) * g.sw + g.dw * (g.kw - 1) + 1 - w - g.pw);
  return m;
}

// [Ho, Wo] on x's device: the input-plane index of each window's origin (offset (0, 0), maybe out of
// bounds), or of its first in-bounds element; `dtype` kFloat or kLong.
Tensor WindowIndex(const MaxPool& m, bool first_in_bounds, at::ScalarType dtype) {
  const Windows& g = m.g;
  const int64_t w = m.x.size(3);
  Tensor t = at::empty({g.ho, g.wo}, at::kLong);
  int64_t* p = t.data_ptr<int64_t>();
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      int64_t ih = oh * g.sh - g.ph, iw = ow * g.sw - g.pw;
      while (first_in_bounds && ih < 0) ih += g.dh;
      while (first_in_bounds && iw < 0) iw += g.dw;
      p[oh * g.wo + ow] = ih * w + iw;
    }
  }
  return t.to(dtype).to(m.x.device());  // a constant table of the op's geometry, uploaded
}

std::tuple<Tensor, Tensor> MaxPool2dWithIndices(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                                at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode) {
  const MaxPool m = PoolSetup("aten::max_pool2d_with_indices", self, kernel, stride, padding, dilation, ceil_mode);
  const Windows& g = m.g;
  const int64_t w = m.x.size(3);
  const Tensor xp = at::constant_pad_nd(m.x, {g.pw, m.pr, g.ph, m.pb}, -std::numeric_limits<double>::infinity());
  const Tensor origin = WindowIndex(m, false, at::kFloat);
  Tensor best = at::full({m.x.size(0), m.x.size(1), g.ho, g.wo}, -std::numeric_limits<double>::infinity(),
                         m.x.options());
  Tensor idx = WindowIndex(m, true, at::kFloat).expand(best.sizes());
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      const Tensor v = g.At(xp, i, j);
      const Tensor take = v.gt(best).logical_or(v.isnan());
      best = at::where(take, v, best);
      idx = at::where(take, origin + static_cast<double>(i * g.dh * w + j * g.dw), idx);
    }
  }
  Tensor indices = idx.to(at::kLong);
  if (self.dim() == 3) return {best.squeeze(0), indices.squeeze(0)};
  return {best, indices};
}

std::tuple<Tensor&, Tensor&> MaxPool2dWithIndicesOut(const Tensor& self, at::IntArrayRef kernel,
                                                     at::IntArrayRef stride, at::IntArrayRef padding,
                                                     at::IntArrayRef dilation, bool ceil_mode, Tensor& out,
                                                     Tensor& indices) {
  auto [o, i] = MaxPool2dWithIndices(self, kernel, stride, padding, dilation, ceil_mode);
  CopyToOut(o, out);
  CopyToOut(i, indices);
  return {out, indices};
}

Tensor MaxPool2dBackward(const Tensor& grad_output, const Tensor& self, at::IntArrayRef kernel,
                         at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode,
                         const Tensor& indices) {
  const MaxPool m = PoolSetup("aten::max_pool2d_with_indices", self, kernel, stride, padding, dilation, ceil_mode);
  const Windows& g = m.g;
  const int64_t h = m.x.size(2), w = m.x.size(3);
  const Tensor go = (self.dim() == 3 ? grad_output.unsqueeze(0) : grad_output).to(at::kFloat);
  const Tensor ind = self.dim() == 3 ? indices.unsqueeze(0) : indices;
  const Tensor origin = WindowIndex(m, false, at::kLong);
  Tensor gxp = at::zeros({m.x.size(0), m.x.size(1), h + g.ph + m.pb, w + g.pw + m.pr}, go.options());
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      // An out-of-bounds offset's index may alias an input element; its sum lands in the padding, cropped.
      const Tensor hit = ind.eq(origin + (i * g.dh * w + j * g.dw));
      g.At(gxp, i, j).add_(go * hit);
    }
  }
  Tensor gi = gxp.slice(2, g.ph, g.ph + h).slice(3, g.pw, g.pw + w).to(self.scalar_type()).contiguous();
  return self.dim() == 3 ? gi.squeeze(0) : gi;
}

Tensor& MaxPool2dBackwardOut(const Tensor& grad_output, const Tensor& self, at::IntArrayRef kernel,
                             at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
                             bool ceil_mode, const Tensor& indices, Tensor& grad_input) {
  return CopyToOut(MaxPool2dBackward(grad_output, self, kernel, stride, padding, dilation, ceil_mode, indices),
                   grad_input);
}

// --- average pooling: the window sums (offset views of the input padded with zeros, added in fp32)
// divided by each window's divisor, a host table of the op's geometry as the CPU kernel counts it
// (count_include_pad: the window clipped to the padded input; else its in-bounds elements;
// divisor_override replaces both), rounded once to the dtype.

// `sums` divided by the windows' divisors: by one number when every window has the same (no upload),
// else by the table.
Tensor DivideByDivisors(const Tensor& sums, const MaxPool& m, bool count_include_pad,
                        std::optional<int64_t> divisor_override) {
  const Windows& g = m.g;
  const int64_t h = m.x.size(2), w = m.x.size(3);
  Tensor table = at::empty({g.ho, g.wo}, at::kFloat);
  float* p = table.data_ptr<float>();
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
      int64_t h1 = std::min(h0 + g.kh, h + g.ph), w1 = std::min(w0 + g.kw, w + g.pw);
      const int64_t pool = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0), h1 = std::min(h1, h), w1 = std::min(w1, w);
      const int64_t inside = std::max<int64_t>(0, h1 - h0) * std::max<int64_t>(0, w1 - w0);
      int64_t d = divisor_override ? *divisor_override : (count_include_pad ? pool : inside);
      if (inside == 0) d = 1;  // an empty window's sum is 0, and so is the CPU's output
      p[oh * g.wo + ow] = static_cast<float>(d);
    }
  }
  if (table.eq(p[0]).all().item<bool>()) return sums.div(static_cast<double>(p[0]));
  return sums.div(table.to(m.x.device()));  // a constant table of the op's geometry, uploaded
}

MaxPool AvgSetup(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                 bool ceil_mode, std::optional<int64_t> divisor_override) {
  TORCH_CHECK(!divisor_override || *divisor_override != 0, "avg_pool2d: divisor must be not zero");
  return PoolSetup("aten::avg_pool2d", self, kernel, stride.empty() ? kernel : stride, padding, {}, ceil_mode);
}

Tensor AvgPool2d(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                 bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const MaxPool m = AvgSetup(self, kernel, stride, padding, ceil_mode, divisor_override);
  const Windows& g = m.g;
  const Tensor xp = at::constant_pad_nd(m.x.to(at::kFloat), {g.pw, m.pr, g.ph, m.pb}, 0);
  Tensor sum = g.At(xp, 0, 0).contiguous();
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = i == 0 ? 1 : 0; j < g.kw; ++j) sum.add_(g.At(xp, i, j));
  }
  const Tensor out = DivideByDivisors(sum, m, count_include_pad, divisor_override).to(self.scalar_type());
  return self.dim() == 3 ? out.squeeze(0) : out;
}

Tensor& AvgPool2dOut(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef padding,
                     bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  return CopyToOut(AvgPool2d(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override), out);
}

Tensor AvgPool2dBackward(const Tensor& grad_output, const Tensor& self, at::IntArrayRef kernel,
                         at::IntArrayRef stride, at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
  const MaxPool m = AvgSetup(self, kernel, stride, padding, ceil_mode, divisor_override);
  const Windows& g = m.g;
  const int64_t h = m.x.size(2), w = m.x.size(3);
  const Tensor go = (self.dim() == 3 ? grad_output.unsqueeze(0) : grad_output).to(at::kFloat);
  const Tensor share = DivideByDivisors(go, m, count_include_pad, divisor_override);
  Tensor gxp = at::zeros({m.x.size(0), m.x.size(1), h + g.ph + m.pb, w + g.pw + m.pr}, go.options());
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) g.At(gxp, i, j).add_(share);
  }
  Tensor gi = gxp.slice(2, g.ph, g.ph + h).slice(3, g.pw, g.pw + w).to(self.scalar_type()).contiguous();
  return self.dim() == 3 ? gi.squeeze(0) : gi;
}

Tensor& AvgPool2dBackwardOut(const Tensor& grad_output, const Tensor& self, at::IntArrayRef kernel,
                             at::IntArrayRef stride, at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                             std::optional<int64_t> divisor_override, Tensor& grad_input) {
  return CopyToOut(AvgPool2dBackward(grad_output, self, kernel, stride, padding, ceil_mode, count_include_pad,
                                     divisor_override),
                   grad_input);
}

// --- adaptive average pooling: output cell i of a dim of size n covers
// [floor(i n / out), ceil((i + 1) n / out)); the window's mean is taken one
// dim at a time (a mean of equal-size row means is the window's mean), in fp32.

int64_t WindowStart(int64_t i, int64_t n, int64_t out) { return i * n / out; }
int64_t WindowEnd(int64_t i, int64_t n, int64_t out) { return ((i + 1) * n + out - 1) / out; }

// x averaged over adaptive windows along `dim` into `out` cells.
Tensor AdaptiveMeanAlong(const Tensor& x, int64_t dim, int64_t out) {
  const int64_t n = x.size(dim);
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes[dim] = out;
  Tensor r = at::empty(sizes, x.options());
  for (int64_t i = 0; i < out; ++i) {
    const int64_t s = WindowStart(i, n, out), e = WindowEnd(i, n, out);
    r.narrow(dim, i, 1).copy_(x.narrow(dim, s, e - s).mean({dim}, true));
  }
  return r;
}

// The gradient of AdaptiveMeanAlong: each cell's gradient shared over its window, overlaps added.
Tensor AdaptiveMeanAlongBackward(const Tensor& g, int64_t dim, int64_t n) {
  const int64_t out = g.size(dim);
  std::vector<int64_t> sizes = g.sizes().vec();
  sizes[dim] = n;
  Tensor r = at::zeros(sizes, g.options());
  for (int64_t i = 0; i < out; ++i) {
    const int64_t s = WindowStart(i, n, out), e = WindowEnd(i, n, out);
    r.narrow(dim, s, e - s).add_(g.narrow(dim, i, 1) / static_cast<double>(e - s));
  }
  return r;
}

void CheckAdaptive(const Tensor& x, at::IntArrayRef output_size) {
  TORCH_CHECK_NOT_IMPLEMENTED((x.dim() == 3 || x.dim() == 4) && output_size.size() == 2 &&
                                  at::isFloatingType(x.scalar_type()),
                              "aten::_adaptive_avg_pool2d on neuron: a floating [C, H, W] or [N, C, H, W] input");
  TORCH_CHECK(x.size(-1) > 0 && x.size(-2) > 0 && output_size[0] > 0 && output_size[1] > 0,
              "adaptive_avg_pool2d: empty input or output size");
}

Tensor AdaptiveAvgPool2d(const Tensor& self, at::IntArrayRef output_size) {
  CheckAdaptive(self, output_size);
  const Tensor x = self.to(at::kFloat);
  const int64_t h = x.dim() - 2, w = x.dim() - 1;
  return AdaptiveMeanAlong(AdaptiveMeanAlong(x, h, output_size[0]), w, output_size[1]).to(self.scalar_type());
}

Tensor AdaptiveAvgPool2dBackward(const Tensor& grad_output, const Tensor& self) {
  CheckAdaptive(self, {grad_output.size(-2), grad_output.size(-1)});
  const Tensor g = grad_output.to(at::kFloat);
  const int64_t h = g.dim() - 2, w = g.dim() - 1;
  const Tensor gw = AdaptiveMeanAlongBackward(g, w, self.size(w));
  return AdaptiveMeanAlongBackward(gw, h, self.size(h)).to(self.scalar_type());
}

// --- adaptive max pooling: output cell (i, j) scans rows [start_i, end_i) and columns [start_j, end_j)
// (the adaptive windows above). Offset (di, dj) of every window at once is one gathered view
// (index_select of the clamped rows and columns, -inf where the offset lies outside the cell's
// window); the running maximum and its index follow the CPU's scan order (rows, then columns;
// greater or NaN replaces), starting from -inf at the window's first element.

struct AdaptiveOffset {
  Tensor rows, cols;  // int64 [Ho], [Wo] on the device: the clamped source row / column
  Tensor inside;      // bool [Ho, Wo]: the offset lies in the cell's window
  Tensor index;       // [Ho, Wo] input-plane index h * W + w (float or int64)
  bool all_inside;
};

AdaptiveOffset OffsetOf(int64_t di, int64_t dj, int64_t h, int64_t w, int64_t ho, int64_t wo, at::ScalarType index_type,
                        const c10::Device& d) {
  std::vector<int64_t> rows(ho), cols(wo);
  std::vector<bool> row_in(ho), col_in(wo);
  for (int64_t i = 0; i < ho; ++i) {
    const int64_t s = WindowStart(i, h, ho), e = WindowEnd(i, h, ho);
    rows[i] = std::min(s + di, e - 1), row_in[i] = s + di < e;
  }
  for (int64_t j = 0; j < wo; ++j) {
    const int64_t s = WindowStart(j, w, wo), e = WindowEnd(j, w, wo);
    cols[j] = std::min(s + dj, e - 1), col_in[j] = s + dj < e;
  }
  Tensor inside = at::empty({ho, wo}, at::kBool), index = at::empty({ho, wo}, at::kLong);
  bool all = true;
  for (int64_t i = 0; i < ho; ++i) {
    for (int64_t j = 0; j < wo; ++j) {
      inside.data_ptr<bool>()[i * wo + j] = row_in[i] && col_in[j];
      all = all && row_in[i] && col_in[j];
      index.data_ptr<int64_t>()[i * wo + j] = rows[i] * w + cols[j];
    }
  }
  return {at::tensor(rows, at::kLong).to(d), at::tensor(cols, at::kLong).to(d), inside.to(d),
          index.to(index_type).to(d), all};
}

int64_t LongestWindow(int64_t n, int64_t out) {
  int64_t k = 0;
  for (int64_t i = 0; i < out; ++i) k = std::max(k, WindowEnd(i, n, out) - WindowStart(i, n, out));
  return k;
}

void CheckAdaptiveMax(const Tensor& x, at::IntArrayRef output_size) {
  const char* op = "aten::adaptive_max_pool2d";
  TORCH_CHECK_NOT_IMPLEMENTED((x.dim() == 3 || x.dim() == 4) && output_size.size() == 2 &&
                                  at::isFloatingType(x.scalar_type()),
                              op, " on neuron: a floating [C, H, W] or [N, C, H, W] input");
  TORCH_CHECK(x.size(-1) > 0 && x.size(-2) > 0 && output_size[0] > 0 && output_size[1] > 0,
              "adaptive_max_pool2d: empty input or output size");
  TORCH_CHECK(x.size(-1) * x.size(-2) < (int64_t{1} << 24), op, " on neuron: planes up to 2^24 elements");
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool2d(const Tensor& self, at::IntArrayRef output_size) {
  CheckAdaptiveMax(self, output_size);
  const Tensor x = self.dim() == 3 ? self.unsqueeze(0) : self;
  const int64_t h = x.size(2), w = x.size(3), ho = output_size[0], wo = output_size[1];
  Tensor best = at::full({x.size(0), x.size(1), ho, wo}, -std::numeric_limits<double>::infinity(), x.options());
  const Tensor minus_inf = best.clone();
  Tensor idx = OffsetOf(0, 0, h, w, ho, wo, at::kFloat, x.device()).index.expand(best.sizes());
  for (int64_t di = 0; di < LongestWindow(h, ho); ++di) {
    for (int64_t dj = 0; dj < LongestWindow(w, wo); ++dj) {
      const AdaptiveOffset o = OffsetOf(di, dj, h, w, ho, wo, at::kFloat, x.device());
      Tensor v = x.index_select(2, o.rows).index_select(3, o.cols);
      if (!o.all_inside) v = at::where(o.inside, v, minus_inf);
      const Tensor take = v.gt(best).logical_or(v.isnan());
      best = at::where(take, v, best);
      idx = at::where(take, o.index, idx);
    }
  }
  Tensor indices = idx.to(at::kLong);
  if (self.dim() == 3) return {best.squeeze(0), indices.squeeze(0)};
  return {best, indices};
}

std::tuple<Tensor&, Tensor&> AdaptiveMaxPool2dOut(const Tensor& self, at::IntArrayRef output_size, Tensor& out,
                                                  Tensor& indices) {
  auto [o, i] = AdaptiveMaxPool2d(self, output_size);
  CopyToOut(o, out);
  CopyToOut(i, indices);
  return {out, indices};
}

// Each output's gradient added at the input element its index names: per offset, the cells whose
// index is that offset's element send their gradient there (index_add of a one-row gather is not on
// the device, so the sum runs over the offset's rows and columns as a [Ho, H] x [.., Wo] x [Wo, W] product
// of one-hot matrices on TensorE, in fp32).
Tensor AdaptiveMaxPool2dBackward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  CheckAdaptiveMax(self, {grad_output.size(-2), grad_output.size(-1)});
  const Tensor x = self.dim() == 3 ? self.unsqueeze(0) : self;
  const Tensor go = (self.dim() == 3 ? grad_output.unsqueeze(0) : grad_output).to(at::kFloat);
  const Tensor ind = self.dim() == 3 ? indices.unsqueeze(0) : indices;
  const int64_t h = x.size(2), w = x.size(3), ho = go.size(2), wo = go.size(3);
  Tensor gi = at::zeros({x.size(0), x.size(1), h, w}, go.options());
  for (int64_t di = 0; di < LongestWindow(h, ho); ++di) {
    for (int64_t dj = 0; dj < LongestWindow(w, wo); ++dj) {
      const AdaptiveOffset o = OffsetOf(di, dj, h, w, ho, wo, at::kLong, x.device());
      Tensor hit = ind.eq(o.index);
      if (!o.all_inside) hit = hit.logical_and(o.inside);
      const Tensor g = go * hit;  // [N, C, Ho, Wo]
      // Row i of the offset goes to input row rows[i], column j to cols[j]: one-hot spreads on TensorE.
      const Tensor rh = at::arange(h).unsqueeze(1).eq(o.rows.cpu().unsqueeze(0)).to(at::kFloat).to(x.device());
      const Tensor cw = at::arange(w).unsqueeze(0).eq(o.cols.cpu().unsqueeze(1)).to(at::kFloat).to(x.device());
      gi.add_(at::matmul(at::matmul(rh, g), cw));  // [H, Ho] @ g @ [Wo, W]
    }
  }
  gi = gi.to(self.scalar_type());
  return self.dim() == 3 ? gi.squeeze(0) : gi;
}

Tensor& AdaptiveMaxPool2dBackwardOut(const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                                     Tensor& grad_input) {
  return CopyToOut(AdaptiveMaxPool2dBackward(grad_output, self, indices), grad_input);
}

// --- batch norm over [N, C, ...]: statistics per channel in fp32, as the CPU kernel

std::vector<int64_t> AllButChannel(const Tensor& x) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  return dims;
}

Tensor PerChannel(const Tensor& v, const Tensor& x) {
  std::vector<int64_t> shape(x.dim(), 1);
  shape[1] = x.size(1);
  return v.view(shape);
}

std::tuple<Tensor, Tensor, Tensor> NativeBatchNorm(const Tensor& input, const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& bias,
                                                   const std::optional<Tensor>& running_mean,
                                                   const std::optional<Tensor>& running_var, bool training,
                                                   double momentum, double eps) {
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(input.scalar_type()) && input.dim() >= 2,
                              "aten::native_batch_norm on neuron: a floating [N, C, ...] input");
  const Tensor x = input.to(at::kFloat);
  const auto dims = AllButChannel(x);
  const bool has_rm = running_mean && running_mean->defined(), has_rv = running_var && running_var->defined();
  Tensor mean, centered, invstd;  // x - mean: the variance's and the result's, one device kernel
  if (training) {
    mean = x.mean(dims);
    centered = x - PerChannel(mean, x);
    const Tensor var = centered.square().mean(dims);
    invstd = (var + eps).rsqrt();
    const int64_t n = x.numel() / x.size(1);
    if (has_rm) running_mean->mul_(1 - momentum).add_(mean.to(running_mean->scalar_type()), momentum);
    if (has_rv) {
      const Tensor unbiased = var * (static_cast<double>(n) / std::max<int64_t>(n - 1, 1));
      running_var->mul_(1 - momentum).add_(unbiased.to(running_var->scalar_type()), momentum);
    }
  } else {
    TORCH_CHECK(has_rm && has_rv, "aten::native_batch_norm: running_mean and running_var are needed in eval mode");
    mean = running_mean->to(at::kFloat);
    centered = x - PerChannel(mean, x);
    invstd = (running_var->to(at::kFloat) + eps).rsqrt();
  }
  Tensor y = centered * PerChannel(invstd, x);
  if (weight && weight->defined()) y = y * PerChannel(weight->to(at::kFloat), x);
  if (bias && bias->defined()) y = y + PerChannel(bias->to(at::kFloat), x);
  // The statistics are saved in the input's dtype unless the parameters are fp32 beside a bf16/fp16
  // input (the CPU kernel's mixed type); eval mode saves none (empty tensors).
  const bool mixed = input.scalar_type() != at::kFloat && weight && weight->defined() &&
                     weight->scalar_type() == at::kFloat;
  const auto stats = mixed ? at::kFloat : input.scalar_type();
  const Tensor empty = at::empty({0}, x.options().dtype(stats));
  return {y.to(input.scalar_type()), training ? mean.to(stats) : empty, training ? invstd.to(stats) : empty};
}

// The forms AOTAutograd's graphs call (running statistics updated in place, absent, or eval mode).
std::tuple<Tensor, Tensor, Tensor> BatchNormLegit(const Tensor& input, const std::optional<Tensor>& weight,
                                                  const std::optional<Tensor>& bias, Tensor& running_mean,
                                                  Tensor& running_var, bool training, double momentum, double eps) {
  return NativeBatchNorm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> BatchNormLegitNoStats(const Tensor& input, const std::optional<Tensor>& weight,
                                                         const std::optional<Tensor>& bias, bool training,
                                                         double momentum, double eps) {
  return NativeBatchNorm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> BatchNormLegitNoTraining(const Tensor& input, const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias,
                                                            const Tensor& running_mean, const Tensor& running_var,
                                                            double momentum, double eps) {
  return NativeBatchNorm(input, weight, bias, running_mean, running_var, false, momentum, eps);
}

std::tuple<Tensor, Tensor, Tensor> NativeBatchNormBackward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> mask) {
  const Tensor x = input.to(at::kFloat), go = grad_out.to(at::kFloat);
  const auto dims = AllButChannel(x);
  const Tensor mean = train ? save_mean->to(at::kFloat) : running_mean->to(at::kFloat);
  const Tensor invstd = train ? save_invstd->to(at::kFloat) : (running_var->to(at::kFloat) + eps).rsqrt();
  const Tensor xhat = (x - PerChannel(mean, x)) * PerChannel(invstd, x);
  const Tensor w = weight && weight->defined() ? weight->to(at::kFloat) : at::ones_like(mean);
  const Tensor sum_go = go.sum(dims), sum_go_xhat = (go * xhat).sum(dims);
  Tensor gi, gw, gb;
  if (mask[0]) {
    const double n = static_cast<double>(x.numel() / x.size(1));
    Tensor g = go;
    if (train) g = go - PerChannel(sum_go / n, x) - xhat * PerChannel(sum_go_xhat / n, x);
    gi = (g * PerChannel(invstd * w, x)).to(input.scalar_type());
  }
  if (mask[1]) gw = sum_go_xhat.to(weight && weight->defined() ? weight->scalar_type() : input.scalar_type());
  if (mask[2]) gb = sum_go.to(weight && weight->defined() ? weight->scalar_type() : input.scalar_type());
  return {gi, gw, gb};
}

// The out= forms of batch norm (and the reserve-carrying form torch.nn uses): the functional result
// copied into the caller's tensors.
std::tuple<Tensor&, Tensor&, Tensor&> CopyThree(std::tuple<Tensor, Tensor, Tensor> r, Tensor& out, Tensor& mean,
                                               Tensor& invstd) {
  CopyToOut(std::get<0>(r), out);
  CopyToOut(std::get<1>(r), mean);
  CopyToOut(std::get<2>(r), invstd);
  return {out, mean, invstd};
}
std::tuple<Tensor&, Tensor&, Tensor&> NativeBatchNormOut(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
    double momentum, double eps, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  return CopyThree(NativeBatchNorm(input, weight, bias, running_mean, running_var, training, momentum, eps), out,
                   save_mean, save_invstd);
}
std::tuple<Tensor&, Tensor&, Tensor&> BatchNormLegitOut(const Tensor& input, const std::optional<Tensor>& weight,
                                                        const std::optional<Tensor>& bias, Tensor& running_mean,
                                                        Tensor& running_var, bool training, double momentum,
                                                        double eps, Tensor& out, Tensor& save_mean,
                                                        Tensor& save_invstd) {
  return CopyThree(NativeBatchNorm(input, weight, bias, running_mean, running_var, training, momentum, eps), out,
                   save_mean, save_invstd);
}
std::tuple<Tensor&, Tensor&, Tensor&> BatchNormLegitNoStatsOut(const Tensor& input,
                                                               const std::optional<Tensor>& weight,
                                                               const std::optional<Tensor>& bias, bool training,
                                                               double momentum, double eps, Tensor& out,
                                                               Tensor& save_mean, Tensor& save_invstd) {
  return CopyThree(NativeBatchNorm(input, weight, bias, std::nullopt, std::nullopt, training, momentum, eps), out,
                   save_mean, save_invstd);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> BatchNormWithUpdate(const Tensor& input,
                                                               const std::optional<Tensor>& weight,
                                                               const std::optional<Tensor>& bias, Tensor& running_mean,
                                                               Tensor& running_var, double momentum, double eps) {
  auto [y, mean, invstd] = NativeBatchNorm(input, weight, bias, running_mean, running_var, true, momentum, eps);
  return {y, mean, invstd, at::empty({0}, input.options().dtype(at::kByte))};  // no reserve space, as on the CPU
}
std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> BatchNormWithUpdateOut(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    Tensor& running_mean, Tensor& running_var, double momentum, double eps, Tensor& out, Tensor& save_mean,
    Tensor& save_invstd, Tensor& reserve) {
  CopyThree(NativeBatchNorm(input, weight, bias, running_mean, running_var, true, momentum, eps), out, save_mean,
            save_invstd);
  reserve.resize_({0});
  return {out, save_mean, save_invstd, reserve};
}
std::tuple<Tensor, Tensor, Tensor> BatchNormBackward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var,
                                                     const std::optional<Tensor>& save_mean,
                                                     const std::optional<Tensor>& save_var, bool update, double eps,
                                                     std::array<bool, 3> mask, const Tensor& /*reserve*/) {
  return NativeBatchNormBackward(grad_out, input, weight, running_mean, running_var, save_mean, save_var, update, eps,
                                 mask);
}

// --- im2col (F.unfold): the convolution's windows, [N, C kH kW, L].
Tensor Im2ColOp(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef dilation, at::IntArrayRef padding,
                at::IntArrayRef stride) {
  TORCH_CHECK(self.dim() == 3 || self.dim() == 4, "im2col: expected 3D or 4D input, got ", self.sizes());
  const Tensor x = self.dim() == 3 ? self.unsqueeze(0) : self;
  const Windows g = Geometry(x, Pick(kernel, 0, 1), Pick(kernel, 1, 1), stride, padding, dilation, "aten::im2col");
  const Tensor col = Im2Col(x, g).permute({3, 0, 1, 2, 4, 5}).contiguous().view({x.size(0), x.size(1) * g.kh * g.kw, g.ho * g.wo});
  return self.dim() == 3 ? col.squeeze(0) : col;
}
Tensor& Im2ColOut(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef dilation, at::IntArrayRef padding,
                  at::IntArrayRef stride, Tensor& out) {
  return CopyToOut(Im2ColOp(self, kernel, dilation, padding, stride), out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("convolution_overrideable", &Convolution);
  m.impl("convolution_backward_overrideable", &ConvolutionBackward);
  m.impl("avg_pool2d", &AvgPool2d);
  m.impl("avg_pool2d.out", &AvgPool2dOut);
  m.impl("avg_pool2d_backward", &AvgPool2dBackward);
  m.impl("avg_pool2d_backward.grad_input", &AvgPool2dBackwardOut);
  m.impl("max_pool2d_with_indices", &MaxPool2dWithIndices);
  m.impl("max_pool2d_with_indices.out", &MaxPool2dWithIndicesOut);
  m.impl("max_pool2d_with_indices_backward", &MaxPool2dBackward);
  m.impl("max_pool2d_with_indices_backward.grad_input", &MaxPool2dBackwardOut);
  m.impl("_adaptive_avg_pool2d", &AdaptiveAvgPool2d);
  m.impl("adaptive_max_pool2d", &AdaptiveMaxPool2d);
  m.impl("adaptive_max_pool2d.out", &AdaptiveMaxPool2dOut);
  m.impl("adaptive_max_pool2d_backward", &AdaptiveMaxPool2dBackward);
  m.impl("adaptive_max_pool2d_backward.grad_input", &AdaptiveMaxPool2dBackwardOut);
  m.impl("_adaptive_avg_pool2d_backward", &AdaptiveAvgPool2dBackward);
  m.impl("native_batch_norm", &NativeBatchNorm);
  m.impl("native_batch_norm_backward", &NativeBatchNormBackward);
  m.impl("native_batch_norm.out", &NativeBatchNormOut);
  m.impl("_native_batch_norm_legit.out", &BatchNormLegitOut);
  m.impl("_native_batch_norm_legit.no_stats_out", &BatchNormLegitNoStatsOut);
  m.impl("_batch_norm_with_update", &BatchNormWithUpdate);
  m.impl("_batch_norm_with_update.out", &BatchNormWithUpdateOut);
  m.impl("batch_norm_backward", &BatchNormBackward);
  m.impl("im2col", &Im2ColOp);
  m.impl("im2col.out", &Im2ColOut);
  m.impl("_native_batch_norm_legit", &BatchNormLegit);
  m.impl("_native_batch_norm_legit.no_stats", &BatchNormLegitNoStats);
  m.impl("_native_batch_norm_legit_no_training", &BatchNormLegitNoTraining);
}

}  // namespace torch_nsim

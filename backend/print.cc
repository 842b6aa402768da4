// operator<< for Tensor, following torch/_tensor_str.py: one formatter per
// tensor (integer, fixed or scientific mode, precision 4, common width),
// rows wrapped at 80 columns, summarised with "..." beyond 1000 elements, and
// device/dtype suffixes when they differ from the defaults.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "backend/cpu/loops.h"
#include "backend/tensor.h"

namespace nsim {
namespace at {
namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000, kEdgeItems = 3, kLineWidth = 80;

class Formatter {
 public:
  Formatter(ScalarType dtype, const std::vector<double>& values) : dtype_(dtype) {
    if (IsFloatingType(dtype)) ChooseFloatMode(values);
    for (double v : values) width_ = std::max<int64_t>(width_, Format(v).size());
  }

  std::string Format(double v) const {
    if (dtype_ == kBool) return v != 0 ? "True" : "False";
    char buf[64];
    if (!IsFloatingType(dtype_)) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    } else if (std::isnan(v)) {
      return "nan";
    } else if (std::isinf(v)) {
      return v > 0 ? "inf" : "-inf";
    } else if (sci_) {
      std::snprintf(buf, sizeof buf, "%.*e", kPrecision, v);
    } else if (int_mode_) {
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.*f", kPrecision, v);
    }
    return buf;
  }
  std::string Padded(double v) const {
    std::string s = Format(v);
    return std::string(width_ - s.size(), ' ') + s;
  }
  int64_t width() const { return width_; }

 private:
  void ChooseFloatMode(const std::vector<double>& values) {
    double max_abs = 0, min_abs = INFINITY;
    bool any = false;
    for (double v : values) {
      if (!std::isfinite(v)) continue;
      if (v != std::ceil(v)) int_mode_ = false;
      if (v == 0) continue;
      any = true;
      max_abs = std::max(max_abs, std::fabs(v));
      min_abs = std::min(min_abs, std::fabs(v));
    }
    if (!any) return;
    const bool wide = max_abs / min_abs > 1000.0 || max_abs > 1e8;
    sci_ = int_mode_ ? wide : (wide || min_abs < 1e-4);
  }

  ScalarType dtype_;
  bool int_mode_ = true;
  bool sci_ = false;
  int64_t width_ = 1;
};

// Indices shown along a dim of size n: all, or the edges around a "..." (-1).
std::vector<int64_t> Shown(int64_t n, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    idx.push_back(-1);
    for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < n; ++i) idx.push_back(i);
  }
  return idx;
}

struct Printer {
  const Tensor& t;
  const std::vector<double>& values;  // row-major
  const Formatter& fmt;
  bool summarize;

  std::string Vector(int64_t base, int64_t indent) const {
    const int64_t per_line =
        std::max<int64_t>(1, (kLineWidth - indent) / (fmt.width() + 2));
    std::string s = "[";
    int64_t on_line = 0;
    const std::vector<int64_t> idx = Shown(t.size(-1), summarize);
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k > 0) s += (on_line == per_line) ? ",\n" + std::string(indent + 1, ' ') : ", ";
      if (on_line == per_line) on_line = 0;
      s += idx[k] < 0 ? " ..." : fmt.Padded(values[base + idx[k]]);  // torch pads it so
      ++on_line;
    }
    return s + "]";
  }

  // `d`: the dim being printed; `base`: row-major offset of this sub-tensor.
  std::string Dim(int64_t d, int64_t base, int64_t indent) const {
    if (d == t.dim() - 1) return Vector(base, indent);
    int64_t inner = 1;
    for (int64_t k = d + 1; k < t.dim(); ++k) inner *= t.size(k);
    const std::string sep = "," + std::string(t.dim() - 1 - d, '\n') + std::string(indent + 1, ' ');
    std::string s = "[";
    const std::vector<int64_t> idx = Shown(t.size(d), summarize);
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k > 0) s += sep;
      s += idx[k] < 0 ? "..." : Dim(d + 1, base + idx[k] * inner, indent + 1);
    }
    return s + "]";
  }
};

std::string Suffixes(const Tensor& t, bool with_size) {
  std::string s;
  if (!t.is_cpu()) s += ", device='" + t.device().str() + "'";
  if (with_size) {
    std::string size = "(";
    for (int64_t i = 0; i < t.dim(); ++i) size += (i ? ", " : "") + std::to_string(t.size(i));
    s += ", size=" + size + (t.dim() == 1 ? ",)" : ")");
  }
  if (t.dtype() != kFloat && t.dtype() != kBool) s += std::string(", dtype=") + TorchDtypeName(t.dtype());
  return s;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  if (t.is_meta()) return os << "tensor(..." << Suffixes(t, true) << ")";
  if (t.numel() == 0) return os << "tensor([]" << Suffixes(t, t.dim() != 1) << ")";
  const Tensor host = t.is_cpu() ? t : t.cpu();
  const std::vector<double> values = ReadAll<double>(host);
  const Formatter fmt(t.dtype(), values);
  const Printer p{host, values, fmt, t.numel() > kThreshold};
  const std::string body = t.dim() == 0 ? fmt.Format(values[0]) : p.Dim(0, 0, 7);
  return os << "tensor(" << body << Suffixes(t, false) << ")";
}

}  // namespace at
}  // namespace nsim

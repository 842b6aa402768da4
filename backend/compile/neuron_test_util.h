#pragma once
// Shared by the Neuron compile tests: the study's functions written op by
// op, error measures, and what the runtime recorded for a stretch of calls.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/ops.h"
#include "runtime/runtime.h"

namespace nsim {
namespace testing {

using at::Tensor;

inline Tensor RmsNorm(const Tensor& x, const Tensor& w) {
  return x * at::rsqrt(x.mul(x).mean({-1}, true) + 1e-6) * w;
}

inline Tensor LayerNorm(const Tensor& x, const Tensor& w, const Tensor& b) {
  const Tensor centered = x - x.mean({-1}, true);
  const Tensor var = (centered * centered).mean({-1}, true);
  return centered * at::rsqrt(var + 1e-5) * w + b;
}

inline Tensor Softmax(const Tensor& x) {
  const Tensor e = at::exp(x - x.amax({-1}, true));
  return e / e.sum({-1}, true);
}

// SiLU-gated MLP: silu(x @ W1) * (x @ W3), then @ W2.
inline Tensor Mlp(const Tensor& x, const Tensor& w1, const Tensor& w3, const Tensor& w2) {
  return (at::silu(x.matmul(w1)) * x.matmul(w3)).matmul(w2);
}

// max |a - b| / max |b|: one number for "how far from the reference".
inline double MaxRelError(const Tensor& a, const Tensor& b) {
  const Tensor ha = a.cpu().to(at::kFloat), hb = b.cpu().to(at::kFloat);
  double err = 0, scale = 1e-12;
  for (int64_t i = 0; i < ha.numel(); ++i) {
    const double x = ha.data_ptr<float>()[i], y = hb.data_ptr<float>()[i];
    err = std::max(err, std::fabs(x - y));
    scale = std::max(scale, std::fabs(y));
  }
  return err / scale;
}

// The runtime's records (executions and copies) of core 0 from index `from`.
struct RuntimeActivity {
  int64_t executions = 0;
  int64_t copies = 0;
  int64_t hbm_bytes = 0;  // read + written by the executions
  Picos device_time = 0;  // sum of the executions' device time
};

inline RuntimeActivity ActivitySince(size_t from, int core = 0) {
  RuntimeActivity a;
  const auto& records = rt::Runtime::Get().core(core).records();
  for (size_t i = from; i < records.size(); ++i) {
    const rt::ExecutionRecord& r = *records[i];
    if (r.is_copy()) {
      ++a.copies;
      continue;
    }
    ++a.executions;
    a.hbm_bytes += r.result->hbm_bytes_read + r.result->hbm_bytes_written;
    a.device_time += r.device_end - r.device_start;
  }
  return a;
}

inline size_t RecordCount(int core = 0) { return rt::Runtime::Get().core(core).records().size(); }

}  // namespace testing
}  // namespace nsim

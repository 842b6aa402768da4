#pragma once
// Runs one RMSNorm implementation the way the reference study profiled it:
// same input, schedule(wait=2, warmup=1, active=1), four steps with
// synchronize() in the loop, NeuronConfig DEVICE+RUNTIME modes on NC 0 with
// correlated device time, and collects what the study reads off the profile.
#include <functional>
#include <string>
#include <vector>

#include "backend/tensor.h"
#include "profiler/device_summary.h"

namespace nsim {
namespace study {

struct StudyOptions {
  std::string config = "trn2";  // TorchNeuron runs only on Trn2 and Trn3
  std::vector<int64_t> shape = {4, 512};
  at::ScalarType dtype = at::ScalarType::BFloat16;
  int steps = 4;
  bool device_capture = true;  // ProfileMode::kDevice
  std::string out_dir = "rmsnorm_profile";
  double eps = 1e-6;
  // Time without computing values (rt::Runtime::set_timing_only): the same
  // device times, tables and traces; no numerical check (issue 12).
  bool timing_only = false;
  // Physical cores per device (rt::Runtime::set_lnc): 2 splits every op over
  // two NeuronCores sharing an HBM stack. The measured study's figures are LNC=1's.
  int lnc = 1;
  // Called after each profiled step (1-based) with the simulated time so far
  // in ps; returning false stops the loop early (Ctrl-C), leaving the files of
  // the windows already exported complete.
  std::function<bool(const std::string& impl, int step, Picos simulated)> on_step;
};

struct OpRow {
  std::string name;
  int64_t calls;
  double self_cpu_us;
  double self_neuron_us;
};

struct ImplResult {
  std::string name;
  int64_t dispatches = 0;      // device executions in the profiled step
  double device_us = 0;        // Self NEURON total of the profiled step
  double self_cpu_us = 0;      // Self CPU of the framework ops (ATen ops, compiled regions)
  std::string table;           // key_averages().table(sort_by="self_privateuse1_time_total")
  std::vector<OpRow> ops;
  std::string device_summary;  // engines, DMA, roofline verdict
  std::string out_dir;
  std::vector<std::string> warnings;
  at::Tensor output;           // on the CPU, float32 (undefined in a timing-only run)
  double hbm_bytes = 0;        // HBM bytes read + written by the step's executions
  prof::DeviceSummary device_total;  // DEVICE mode only: per-engine busy time etc.
  std::string slug;            // "op_by_op": JSON key and directory name
  bool interrupted = false;
};

using RmsNormFn = std::function<at::Tensor(const at::Tensor& x, const at::Tensor& w)>;

// The study's input: x ~ randn(shape, seed 0), w ~ randn(shape[-1], seed 1),
// generated once per process for the last shape asked for (the CPU tensors
// are shared: read them, do not write them).
at::Tensor StudyInput(const StudyOptions& o);
at::Tensor StudyWeight(const StudyOptions& o);

ImplResult RunImplementation(const std::string& name, const RmsNormFn& fn, const StudyOptions& o);

}  // namespace study
}  // namespace nsim

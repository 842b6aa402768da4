#pragma once
// Every ATen op that reaches the PrivateUse1 key without a kernel of its
// own lands here: it runs the simulator's Neuron kernel of the same op
// (nsim's dispatcher, backend/neuron) on the same HBM memory. An op the
// simulator has no Neuron kernel for is an error naming the op, or, after
// torch_nsim.set_cpu_fallback(True), runs on the CPU with a warning and a
// "neuron::cpu_fallback" range in the profile.
#include <ATen/core/dispatch/Dispatcher.h>

#include <string>

namespace torch_nsim {

void SetCpuFallback(bool enabled);
bool CpuFallbackEnabled();

// Runs the nsim op `nsim_name` with torch's boxed arguments of `op`
// (matched by argument name) and pushes torch results. With
// `returns_functional` the nsim op is the functional form of torch's
// in-place op: its new result is pushed instead of torch's aliased argument.
void RunNsimOp(const c10::OperatorHandle& op, const std::string& nsim_name, torch::jit::Stack* stack,
               bool returns_functional = false);

// Boxed kernel running the nsim op of the same name (for ops whose
// CompositeImplicit kernel would otherwise decompose them before the fallback).
void RunSameNsimOp(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Registers the boxed nsim kernel at PrivateUse1 for every op that has a
// Neuron kernel in the simulator (called once, at import).
void RegisterDirectKernels();

// "aten::add.Tensor".
std::string FullName(const c10::OperatorHandle& op);

}  // namespace torch_nsim

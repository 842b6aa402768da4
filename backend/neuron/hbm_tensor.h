#pragma once
// How a Neuron tensor maps onto the simulated device: the NeuronCore that
// holds it, the HBM address of its element 0, and the TensorDesc a
// generated kernel reads or writes it through. The Neuron allocator
// (device_glue.cc) hands out HBM addresses as the storage's opaque data
// pointer, so a storage's data() *is* its HBM address.
#include <cstdint>
#include <string>

#include "backend/neuron/codegen/tensor_desc.h"
#include "backend/tensor.h"
#include "runtime/neuron_core.h"

namespace nsim {
namespace neuron {

// "neuron" without an index is neuron:0.
int CoreIndex(const at::Device& d);
rt::NeuronCoreDevice& CoreOf(const at::Device& d);

// HBM address of a storage's first byte / of a tensor's element 0.
uint64_t StorageAddress(const at::Storage& s);
uint64_t ElementAddress(const at::Tensor& t);

// The tensor as a kernel operand: dtype, sizes, strides and offset 0 (the
// binding is ElementAddress(t), which keeps kernels independent of offsets).
codegen::TensorDesc DescOf(const at::Tensor& t);

// The tensor's memory read as elements of the narrower (or as wide) integer
// `dtype`: element i's low bytes (little-endian), plus `word` elements of
// `dtype` into it (word 1 of an int64 read as int32 is its high half). A
// view: same storage, strides and offset scaled.
at::Tensor ReinterpretAs(const at::Tensor& t, at::ScalarType dtype, int64_t word = 0);

// Throws the dispatcher's "is not implemented for the Neuron backend
// (dtype X)" error unless the device can compute in `dtype`: the floating
// types (the engines compute in fp32 and round on store).
void RequireFloat(const std::string& op_full_name, at::ScalarType dtype);
// The same for a dtype the device can only move, not compute in (no Bool).
void RequireDeviceType(const std::string& op_full_name, at::ScalarType dtype);

}  // namespace neuron
}  // namespace nsim

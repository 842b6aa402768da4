#pragma once
// Fake tensors: what a traced function sees instead of its real tensors
// (PyTorch's FakeTensor). A fake has the real tensor's sizes, strides, dtype
// and device, so user code that looks at x.device() or x.sizes() behaves as
// in eager mode, and the dispatcher's device checks pass against real
// tensors captured by the function (weights in a closure). It has no data:
// every op on it is caught by the Tracing key before any kernel could read
// it. (Device fakes have a null data pointer; a CPU fake holds NaN bytes, so
// that a stray direct host read, which no dispatch key can see, reads NaN
// rather than crashing.)
//
// Shape inference runs on meta stand-ins with the same geometry: the Meta
// kernels compute the outputs' metadata, then fakes are made from them.
#include <memory>

#include "backend/compile/graph.h"
#include "backend/tensor.h"

namespace nsim {
namespace compiler {

// A fake with its own (data-less) storage. The tracer keeps only weak
// references to fakes: a fake nobody holds is a dead value.
std::shared_ptr<at::TensorImpl> MakeFake(const ValueMeta& m);
// A fake over `base`'s storage: the fake of a view of `base`'s value.
std::shared_ptr<at::TensorImpl> MakeFakeView(const at::Tensor& base, const ValueMeta& m);
// A meta-device tensor with t's sizes, strides, offset and dtype.
at::Tensor MetaStandIn(const at::Tensor& t);

}  // namespace compiler
}  // namespace nsim

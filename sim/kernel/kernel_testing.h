#pragma once
// Test helpers for code that produces kernels: a structural comparison that
// says where two kernels differ.
#include <gtest/gtest.h>

#include "sim/kernel/kernel.h"

namespace nsim {

// Field-by-field equality of everything that is the kernel's content. Source
// line numbers and layout results (TensorDecl::partition_offset) are not
// content and are ignored, so a kernel equals its FormatKernel/ParseKernel
// round trip. On failure the message names the first differing field.
::testing::AssertionResult KernelsEqual(const Kernel& a, const Kernel& b);

}  // namespace nsim

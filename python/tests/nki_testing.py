"""Helpers of the nsim.nki tests: the checkout's paths and bf16 rounding.
(Not in conftest.py: several test folders each have a conftest module.)

The tests import this checkout's `nsim` (python/ first on sys.path), after
copying Bazel's current //python:_nsim_core.so into it
(docs/python-packages.md): they never test a stale copy of the extension."""
import os
import sys

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for path in (os.path.join(ROOT, "python"), os.path.join(ROOT, "examples", "nki")):
    if path not in sys.path:
        sys.path.insert(0, path)
sys.path.append(os.path.join(ROOT, "tools"))

import python_packages  # noqa: E402

python_packages.build_in_place("python")

BF16 = ml_dtypes.bfloat16


def bf16(x):
    """x rounded to bf16 (nearest even), as a bf16 array."""
    return np.asarray(x, dtype=np.float32).astype(BF16)


def f32(x):
    return np.asarray(x).astype(np.float32)


def partition_order_matmul(lhsT, rhs):
    """lhsT.T @ rhs as TensorE sums it: each output adds its K products in
    partition order from +0, one fp32 rounding per addition. NumPy's BLAS
    sums in an order of its own (it depends on the host's kernel, e.g.
    OPENBLAS_CORETYPE), which may round differently in the last bit."""
    a, b = f32(lhsT), f32(rhs)
    acc = np.zeros((a.shape[1], b.shape[1]), dtype=np.float32)
    for k in range(a.shape[0]):
        acc += a[k][:, None] * b[k][None, :]
    return acc

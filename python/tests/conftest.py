"""pytest set-up: import `nsim` from this checkout (python/), bf16 helpers."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples", "nki"))

import ml_dtypes  # noqa: E402

BF16 = ml_dtypes.bfloat16


def bf16(x):
    """x rounded to bf16 (nearest even), as a bf16 array."""
    return np.asarray(x, dtype=np.float32).astype(BF16)


def f32(x):
    return np.asarray(x).astype(np.float32)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)

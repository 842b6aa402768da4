"""examples/nki/v3: the team's kernels written as NKI 0.3+ code (`import nki`), unchanged, run
after nsim.nki.install() and checked against NumPy."""
import importlib.util
import os

import ml_dtypes
import numpy as np
import pytest
from nki_testing import ROOT, bf16, f32

import nsim.nki

V3 = os.path.join(ROOT, "examples", "nki", "v3")


@pytest.fixture(scope="module")
def v3():
    """The example modules, imported by path (their names repeat examples/nki/'s Beta-1 ones)."""
    nsim.nki.install()
    mods = {}
    for name in ("vector_add", "softmax", "rmsnorm", "matmul", "transpose", "cumsum"):
        spec = importlib.util.spec_from_file_location("nki_v3_" + name, os.path.join(V3, name + ".py"))
        mods[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[name])
    yield mods
    nsim.nki.uninstall()


def test_vector_add_one_core_and_lnc2(v3, rng):
    m = v3["vector_add"]
    a, b = rng.standard_normal((384, 256)).astype(np.float32), rng.standard_normal((384, 256)).astype(np.float32)
    np.testing.assert_array_equal(m.vector_add(a, b), a + b)
    np.testing.assert_array_equal(m.vector_add_lnc[2](a, b), a + b)  # programs trace differently (3 tiles / 2)
    one = nsim.nki.benchmark(m.vector_add_lnc, a, b)
    two = nsim.nki.benchmark(m.vector_add_lnc[2], a, b)
    assert two.device_time_us < one.device_time_us  # two cores take the tiles side by side


def test_softmax_rmsnorm_cumsum(v3, rng):
    x = rng.standard_normal((256, 300)).astype(np.float32) * 3
    np.testing.assert_allclose(v3["softmax"].softmax(x), v3["softmax"].reference(x), rtol=1e-5, atol=1e-7)
    x, w = rng.standard_normal((256, 512)).astype(np.float32), rng.standard_normal((512,)).astype(np.float32)
    np.testing.assert_allclose(v3["rmsnorm"].rmsnorm(x, w), v3["rmsnorm"].reference(x, w), rtol=1e-5, atol=1e-5)
    x = rng.standard_normal((128, 1024)).astype(np.float32)
    np.testing.assert_allclose(v3["cumsum"].cumsum(x), np.cumsum(x, axis=1), rtol=1e-5, atol=1e-4)


def test_matmul_and_transpose(v3, rng):
    a_t, b = bf16(rng.standard_normal((256, 256))), bf16(rng.standard_normal((256, 1024)))
    np.testing.assert_allclose(v3["matmul"].matmul(a_t, b), f32(a_t).T @ f32(b), rtol=1e-4, atol=1e-3)
    x = rng.standard_normal((256, 384)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(f32(v3["transpose"].transpose(x)), f32(x).T)

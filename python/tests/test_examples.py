"""Every kernel of examples/nki/, run on the simulator against NumPy, and the
example scripts themselves (each checks its outputs and exits non-zero if wrong)."""
import os
import subprocess
import sys

import layernorm
import matmul
import ml_dtypes
import numpy as np
import pytest
import rmsnorm
import selective_scan
import softmax
import transpose
import vector_add
from nki_testing import ROOT, bf16, f32, partition_order_matmul

import nsim.nki as nki


def test_vector_add_tiled_and_stream(rng):
    a, b = bf16(rng.standard_normal((512, 256))), bf16(rng.standard_normal((512, 256)))
    expect = f32(bf16(f32(a) + f32(b)))
    np.testing.assert_array_equal(f32(nki.simulate_kernel(vector_add.vector_add_tiled, a, b)), expect)
    a, b = bf16(rng.standard_normal((128, 2048))), bf16(rng.standard_normal((128, 2048)))
    np.testing.assert_array_equal(f32(vector_add.vector_add_stream(a, b)), f32(bf16(f32(a) + f32(b))))


def test_matmul_basic(rng):
    lhsT, rhs = bf16(rng.standard_normal((64, 128))), bf16(rng.standard_normal((64, 512)))
    y = nki.simulate_kernel(matmul.nki_matmul_basic_, lhsT, rhs)
    np.testing.assert_array_equal(f32(y), f32(bf16(partition_order_matmul(lhsT, rhs))))


@pytest.mark.parametrize("kernel,kwargs", [
    (matmul.nki_matmul_tiled_, {}),
    (matmul.nki_matmul_hoist_load_, {}),
    (matmul.nki_matmul_block_free_dimension_, {}),
    (matmul.nki_matmul_fully_optimized_, dict(TILES_IN_BLOCK_M=2, TILES_IN_BLOCK_N=1, TILES_IN_BLOCK_K=2)),
], ids=["tiled", "hoist_load", "block_free_dimension", "fully_optimized"])
def test_matmul_tutorial_steps(kernel, kwargs, rng):
    K, M, N = 512, 256, 1024
    lhsT, rhs = bf16(rng.standard_normal((K, M))), bf16(rng.standard_normal((K, N)))
    y = f32(nki.simulate_kernel(kernel, lhsT, rhs, **kwargs))
    # the fully optimised kernel accumulates K blocks of 256 into bf16 result tiles
    ref = matmul.reference(lhsT, rhs, 256 if kernel is matmul.nki_matmul_fully_optimized_ else None)
    np.testing.assert_allclose(y, f32(ref), rtol=1e-2, atol=1e-2)


def test_matmul_optimisation_steps_get_faster(rng):
    K = M = N = 1024
    lhsT, rhs = bf16(rng.standard_normal((K, M))), bf16(rng.standard_normal((K, N)))
    t = [nki.benchmark(k, lhsT, rhs).device_time_us for k in
         (matmul.nki_matmul_tiled_, matmul.nki_matmul_hoist_load_, matmul.nki_matmul_block_free_dimension_)]
    assert t[0] > t[1] > t[2]


def test_transpose(rng):
    a = rng.standard_normal((256, 384)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(transpose.transpose_2d, a), a.T)


def test_rmsnorm(rng):
    a = bf16(rng.standard_normal((256, 512)))
    g = bf16(rng.standard_normal((512,)))
    y = nki.simulate_kernel(rmsnorm.nki_rmsnorm_kernel, a, g)
    np.testing.assert_array_equal(f32(y), f32(rmsnorm.reference(a, g)))
    x = rng.standard_normal((128, 64)).astype(np.float32)
    w = rng.standard_normal((64,)).astype(np.float32)
    ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(nki.simulate_kernel(rmsnorm.nki_rmsnorm_kernel, x, w, eps=1e-6), ref, rtol=1e-5,
                               atol=1e-5)


def test_layernorm(rng):
    x = rng.standard_normal((256, 384)).astype(np.float32)
    g, b = rng.standard_normal((384,)).astype(np.float32), rng.standard_normal((384,)).astype(np.float32)
    np.testing.assert_allclose(nki.simulate_kernel(layernorm.layernorm, x, g, b), layernorm.reference(x, g, b),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel", [softmax.softmax_naive, softmax.softmax_fused], ids=["naive", "fused"])
def test_softmax(kernel, rng):
    x = rng.standard_normal((256, 300)).astype(np.float32) * 4
    np.testing.assert_allclose(nki.simulate_kernel(kernel, x), softmax.reference(x), rtol=1e-5, atol=1e-7)


def test_fused_softmax_is_faster(rng):
    x = rng.standard_normal((512, 512)).astype(np.float32)
    assert nki.benchmark(softmax.softmax_fused, x).device_time_us < nki.benchmark(softmax.softmax_naive, x).device_time_us


@pytest.mark.parametrize("script", ["vector_add.py", "transpose.py", "rmsnorm.py", "layernorm.py", "softmax.py",
                                    "matmul.py", "selective_scan.py"])
def test_example_script_runs(script, tmp_path):
    """As a user runs them from the repo root: `python3 examples/nki/<script>`."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, os.path.join("examples", "nki", script), "--out", str(tmp_path)], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "device time" in r.stdout


def test_selective_scan_one_core_and_grid():
    arrays = selective_scan.inputs(channels=256, steps=64)
    expect = selective_scan.reference(*arrays)
    np.testing.assert_allclose(nki.simulate_kernel(selective_scan.selective_scan, *arrays), expect,
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(selective_scan.selective_scan[2](*arrays), expect, rtol=1e-4, atol=1e-5)

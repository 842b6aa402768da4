"""RMSNorm, as the NKI tutorial writes it (rows a multiple of 128: masks are
not supported), against NumPy.

    python3 examples/nki/rmsnorm.py [--config trn2] [--out prof_rmsnorm]
"""
import argparse

import ml_dtypes
import numpy as np

import nsim.nki as nki
import nsim.nki.language as nl


@nki.jit
def nki_rmsnorm_kernel(a_tensor, g_tensor, eps=0.0):
    out_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    assert a_tensor.shape[1] == g_tensor.shape[0]
    ix = nl.arange(128)[:, None]
    iy = nl.arange(a_tensor.shape[1])[None, :]
    # g broadcast to every partition by the DMA (stride 0 over rows)
    g_tile = nl.load(g_tensor.reshape((1, g_tensor.shape[0])).broadcast_to((128, g_tensor.shape[0])))
    for i in nl.affine_range(a_tensor.shape[0] // 128):
        a_tile = nl.load(a_tensor[i * 128 + ix, iy])
        in_square = nl.square(a_tile)
        square_sum = nl.sum(in_square, axis=[1])
        mean = square_sum / a_tensor.shape[1]
        rms_reciprocal = nl.rsqrt(mean + eps)
        out_tile = nl.multiply(a_tile, rms_reciprocal)
        out_tile[...] = nl.multiply(out_tile, g_tile)
        nl.store(out_tensor[i * 128 + ix, iy], value=out_tile)
    return out_tensor


def reference(a, g, eps=0.0):
    """NumPy with the kernel's roundings: bf16 tiles, fp32 row statistics."""
    bf = ml_dtypes.bfloat16
    x = a.astype(np.float32)
    sq = x * x if a.dtype != bf else (x * x).astype(bf).astype(np.float32)
    ss = sq.sum(axis=1, keepdims=True).astype(a.dtype).astype(np.float32)
    mean = (ss / a.shape[1]).astype(a.dtype).astype(np.float32)
    r = (1.0 / np.sqrt(mean + eps)).astype(a.dtype).astype(np.float32)
    y = (x * r).astype(a.dtype).astype(np.float32)
    return (y * g.astype(np.float32)).astype(a.dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="trn2")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 512)).astype(ml_dtypes.bfloat16)
    g = rng.standard_normal((512,)).astype(ml_dtypes.bfloat16)
    r = nki.benchmark(nki_rmsnorm_kernel, a, g, config=args.config, out_dir=args.out)
    err = np.max(np.abs(r.outputs.astype(np.float32) - reference(a, g).astype(np.float32)))
    print("nki_rmsnorm_kernel %s bf16 on %s: device time %.3f us, max abs error vs NumPy %.3g"
          % (a.shape, args.config, r.device_time_us, err))
    if err > 0.05:
        raise SystemExit("output mismatch")


if __name__ == "__main__":
    main()

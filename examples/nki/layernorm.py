"""LayerNorm over the last dim (rows tiled by 128), fp32, against NumPy.

    python3 examples/nki/layernorm.py [--config trn2] [--out prof_layernorm]
"""
import argparse

import numpy as np

import nsim.nki as nki
import nsim.nki.language as nl


@nki.jit
def layernorm(x, gamma, beta, eps=1e-5):
    N, D = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    g = nl.load(gamma.reshape((1, D)).broadcast_to((128, D)))
    b = nl.load(beta.reshape((1, D)).broadcast_to((128, D)))
    for i in nl.affine_range(N // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        mean = nl.mean(t, axis=1)                      # [128] column
        centred = nl.subtract(t, mean)                 # column broadcast along the row
        var = nl.mean(nl.square(centred), axis=1)
        rstd = nl.rsqrt(var + eps)
        y = nl.multiply(centred, rstd)
        y = nl.add(nl.multiply(y, g), b)
        nl.store(out[i * 128:(i + 1) * 128, :], value=y)
    return out


def reference(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="trn2")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((512, 1024)).astype(np.float32)
    gamma = rng.standard_normal((1024,)).astype(np.float32)
    beta = rng.standard_normal((1024,)).astype(np.float32)
    r = nki.benchmark(layernorm, x, gamma, beta, config=args.config, out_dir=args.out)
    err = np.max(np.abs(r.outputs - reference(x, gamma, beta)))
    print("layernorm %s f32 on %s: device time %.3f us, max abs error vs NumPy %.3g"
          % (x.shape, args.config, r.device_time_us, err))
    if err > 1e-3:
        raise SystemExit("output mismatch")


if __name__ == "__main__":
    main()

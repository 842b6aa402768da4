"""Row softmax two ways: op by op (max, subtract, exp, sum, divide) and fused
(exp with the negated max as bias, summing as it goes on ScalarE).

    python3 examples/nki/softmax.py [--config trn2] [--out prof_softmax]
"""
import argparse

import numpy as np

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


@nki.jit
def softmax_naive(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        m = nl.max(t, axis=1)
        e = nl.exp(nl.subtract(t, m))
        s = nl.sum(e, axis=1)
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.divide(e, s))
    return out


@nki.jit
def softmax_fused(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        neg_max = nl.negative(nl.max(t, axis=1, keepdims=True))
        s = nl.zeros((128, 1), nl.float32)
        e = nisa.activation(nl.exp, t, bias=neg_max, reduce_op=nl.add, reduce_res=s)
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(e, nl.reciprocal(s)))
    return out


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="trn2")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    x = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    for kernel in (softmax_naive, softmax_fused):
        r = nki.benchmark(kernel, x, config=args.config, out_dir=args.out and "%s/%s" % (args.out, kernel.__name__))
        err = np.max(np.abs(r.outputs - reference(x)))
        print("%-14s %s f32 on %s: device time %.3f us, max abs error vs NumPy %.3g"
              % (kernel.__name__, x.shape, args.config, r.device_time_us, err))
        if err > 1e-5:
            raise SystemExit("output mismatch")


if __name__ == "__main__":
    main()

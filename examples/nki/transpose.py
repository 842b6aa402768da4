"""2-D transpose of an HBM matrix, 128x128 tile by tile on TensorE (through PSUM).

    python3 examples/nki/transpose.py [--config trn2] [--out prof_transpose]
"""
import argparse

import numpy as np

import nsim.nki as nki
import nsim.nki.language as nl


@nki.jit
def transpose_2d(a):
    P, F = a.shape
    out = nl.ndarray((F, P), dtype=a.dtype, buffer=nl.shared_hbm)
    T = nl.tile_size.pmax  # 128
    for i in nl.affine_range(P // T):
        for j in nl.affine_range(F // T):
            tile = nl.load(a[i * T:(i + 1) * T, j * T:(j + 1) * T])
            flipped = nl.transpose(tile)                    # TensorE -> PSUM [F, P], fp32
            nl.store(out[j * T:(j + 1) * T, i * T:(i + 1) * T], value=nl.copy(flipped, dtype=a.dtype))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="trn2")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    a = np.random.default_rng(0).standard_normal((512, 1024)).astype(np.float32)
    r = nki.benchmark(transpose_2d, a, config=args.config, out_dir=args.out)
    ok = np.array_equal(r.outputs, a.T)
    print("transpose_2d %s f32 on %s: device time %.3f us, matches NumPy: %s" % (a.shape, args.config,
                                                                              r.device_time_us, ok))
    if not ok:
        raise SystemExit("output mismatch")


if __name__ == "__main__":
    main()

"""Vector add, NKI style, on the simulator: tiled over partitions, and streamed
along the free dim. Ported from NKI by changing the three import lines.

    python3 examples/nki/vector_add.py [--config trn2] [--out prof_vector_add]
"""
import argparse

import ml_dtypes
import numpy as np

import nsim.nki as nki
import nsim.nki.language as nl


@nki.jit
def vector_add_tiled(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        ta = nl.load(a[i * 128:(i + 1) * 128, :])
        tb = nl.load(b[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(ta, tb))
    return out


@nki.jit
def vector_add_stream(a, b, chunk=512):
    """a, b: [128, N]; the free dim streams through SBUF in chunks."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(a.shape[1] // chunk):
        ta = nl.load(a[:, j * chunk:(j + 1) * chunk])
        tb = nl.load(b[:, j * chunk:(j + 1) * chunk])
        nl.store(out[:, j * chunk:(j + 1) * chunk], value=ta + tb)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="trn2")
    ap.add_argument("--out", default="prof_vector_add", help="profile directory (trace.json, NEFF/NTFF)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    for kernel, shape in ((vector_add_tiled, (1024, 512)), (vector_add_stream, (128, 4096))):
        a = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
        b = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
        r = nki.benchmark(kernel, a, b, config=args.config, out_dir="%s/%s" % (args.out, kernel.__name__))
        ref = (a.astype(np.float32) + b.astype(np.float32)).astype(ml_dtypes.bfloat16)
        ok = np.array_equal(r.outputs.astype(np.float32), ref.astype(np.float32))
        print("%s %s bf16 on %s: device time %.3f us, matches NumPy: %s" % (kernel.__name__, shape, args.config,
                                                                          r.device_time_us, ok))
        for engine, s in r.engines.items():
            if s["instruction_count"]:
                print("  %-8s busy %9.1f ns  util %5.1f%%  %s" % (engine, s["active_time_ns"], s["active_time_percent"],
                                                                  s["by_opcode"]))
        print("  trace: %s" % r.files[0])
        if not ok:
            raise SystemExit("output mismatch")


if __name__ == "__main__":
    main()

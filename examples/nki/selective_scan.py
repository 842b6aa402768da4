"""A Mamba-style selective scan, NKI style, on the simulator: per channel the
recurrence h[t] = exp(delta[t] * A) * h[t-1] + delta[t] * x[t], output
y[t] = h[t] * C[t], with channels on partitions and time on the free axis.
Channel blocks of 128 are split over the NeuronCores of a chip with
nl.program_id (an SPMD launch: selective_scan[grid](...)).

    python3 examples/nki/selective_scan.py [--config trn2] [--grid 2] [--out prof_selective_scan]
"""
import argparse

import numpy as np

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl


@nki.jit
def selective_scan(delta, x, a, c):
    """delta, x, c: [channels, T] f32; a: [channels, 1] (negative: a decay)."""
    y = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    blocks = x.shape[0] // 128 // nl.num_programs()
    for i in nl.affine_range(blocks):
        lo = (nl.program_id(0) * blocks + i) * 128
        rows = slice(lo, lo + 128)
        dt, xt, ct = nl.load(delta[rows, :]), nl.load(x[rows, :]), nl.load(c[rows, :])
        decay = nl.exp(nl.multiply(dt, nl.load(a[rows, :])))           # exp(delta * A)
        drive = nl.multiply(dt, xt)                                    # delta * x
        h = nisa.tensor_tensor_scan(decay, drive, 0.0, nl.multiply, nl.add)  # h = decay * h + drive
        nl.store(y[rows, :], value=nl.multiply(h, ct))
    return y


def reference(delta, x, a, c):
    decay, drive = np.exp(delta * a), delta * x
    h = np.zeros(x.shape[0], np.float32)
    y = np.empty_like(x)
    for t in range(x.shape[1]):
        h = decay[:, t] * h + drive[:, t]
        y[:, t] = h * c[:, t]
    return y


def inputs(channels=512, steps=256, seed=0):
    rng = np.random.default_rng(seed)
    delta = rng.uniform(0.01, 0.1, (channels, steps)).astype(np.float32)
    x = rng.standard_normal((channels, steps)).astype(np.float32)
    a = -rng.uniform(0.5, 2.0, (channels, 1)).astype(np.float32)
    c = rng.standard_normal((channels, steps)).astype(np.float32)
    return delta, x, a, c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="trn2")
    ap.add_argument("--grid", type=int, default=2, help="programs (NeuronCores) the channel blocks are split over")
    ap.add_argument("--out", default="prof_selective_scan",
                    help="profile directory: one core's trace.json etc. in one/, the grid's kernel and grid.json in grid/")
    args = ap.parse_args()
    arrays = inputs()
    one = nki.benchmark(selective_scan, *arrays, config=args.config, out_dir=args.out + "/one")
    grid = nki.benchmark(selective_scan[args.grid], *arrays, config=args.config, out_dir=args.out + "/grid")
    ok = np.allclose(grid.outputs, reference(*arrays), rtol=1e-4, atol=1e-5)
    print("selective scan %s on %s: device time one core %.3f us, grid of %d %.3f us, matches NumPy: %s"
          % (arrays[1].shape, args.config, one.device_time_us, args.grid, grid.device_time_us, ok))
    for c in grid.cores:
        print("  program %d on core %d: %.3f us, VectorE %.1f%%" % (c["program"], c["core"],
              c["report"]["device_time_ns"] / 1000, 100 * c["report"]["utilization"]["VectorE"]))
    if not ok:
        raise SystemExit("output mismatch")


if __name__ == "__main__":
    main()

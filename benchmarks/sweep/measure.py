"""Issue 30's acceptance measurement: the 200-point sweep of
vector_dma_sbuf.yaml serially, on this machine's worker processes, on a
2-worker-node Ray cluster on 127.0.0.1, and rerun from the cache; checks the
tables are identical and prints the wall times.

    PYTHONPATH=python python3 benchmarks/sweep/measure.py [--out DIR]
"""
import argparse
import os
import tempfile
import time

import pandas as pd

import nsim
from nsim.sweeps.local_cluster import LocalCluster

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vector_dma_sbuf.yaml")


def timed(label, rows, **options):
    df = nsim.sweep(SPEC, **options)
    s = df.attrs["sweep"]
    rows.append((label, s["points"], s["ran"], s["cache_hits"], s["failed"], s["wall_seconds"]))
    return df


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="nsim_sweep_"))
    out = ap.parse_args().out
    rows = []
    serial = timed("serial (--jobs 1)", rows, out=os.path.join(out, "serial"), jobs=1)
    local = timed("local, %d processes" % os.cpu_count(), rows, out=os.path.join(out, "local"))
    start = time.monotonic()
    with LocalCluster(workers=2) as cluster:
        up = time.monotonic() - start
        on_ray = timed("Ray, 2 worker nodes", rows, out=os.path.join(out, "ray"), ray=cluster.address)
    rerun = timed("rerun of local (cache)", rows, out=os.path.join(out, "local"))
    for name, df in (("local", local), ("ray", on_ray), ("rerun", rerun)):
        pd.testing.assert_frame_equal(serial, df)
        print("table of %s == serial table: yes (%d rows)" % (name, len(df)))
    print("| run | points | ran | cache hits | failed | wall s |\n|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d | %d | %d | %d | %.1f |" % r)
    print("(Ray cluster start-up, not in the Ray row: %.1f s; load average %s)" % (up, os.getloadavg()))


if __name__ == "__main__":
    main()

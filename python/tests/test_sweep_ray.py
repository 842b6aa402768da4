"""The sweep on Ray (issue 30's CI test): a Ray head and two worker nodes on
127.0.0.1, a 20-point sweep, one worker node killed while it runs; every
row is present once and equal to the serial run's. Ray reruns the killed
node's tasks on the other (max_retries), not the sweep."""
import subprocess
import time

import pandas as pd

import nsim
from nsim.sweeps.local_cluster import LocalCluster

from test_sweep_run import chain_spec, cached_points, cli

POINTS = 20


def test_ray_sweep_survives_a_killed_worker(tmp_path):
    path, out = chain_spec(tmp_path, POINTS), tmp_path / "out"
    serial = nsim.sweep(path, jobs=1, cache=tmp_path / "serial")
    with LocalCluster(workers=2) as cluster:
        cmd, env = cli("sweep", path, "--out", out, "--ray", cluster.address, "--no-progress")
        proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 180
            while cached_points(out) < 3 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            finished_before_kill = cached_points(out)
            assert proc.poll() is None and finished_before_kill < POINTS, "the sweep ended before the kill"
            cluster.kill_worker(0)
            _, stderr = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, stderr
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == POINTS and df["point"].is_unique and (df["error"] == "").all()
    pd.testing.assert_frame_equal(df, serial)
    assert len(pd.read_csv(out / "results.csv")) == POINTS
    print("killed a worker node after %d of %d points" % (finished_before_kill, POINTS))

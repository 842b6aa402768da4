"""The sweep on Ray (issue 30's CI test): a Ray head and two worker nodes on
127.0.0.1, a 20-point sweep, one worker node killed while it runs; every
row is present once and equal to the serial run's. Ray reruns the killed
node's tasks on the other (max_retries), not the sweep."""
import pandas as pd

import nsim
from nsim.sweeps.local_cluster import LocalCluster

from test_sweep_run import assert_complete, chain_spec, cli, sweep_with_a_fault

POINTS = 20


def test_ray_sweep_survives_a_killed_worker(tmp_path):
    path, out = chain_spec(tmp_path, POINTS), tmp_path / "out"
    serial = nsim.sweep(path, jobs=1, cache=tmp_path / "serial")
    with LocalCluster(workers=2) as cluster:
        cmd, env = cli("sweep", path, "--out", out, "--ray", cluster.address, "--no-progress")
        done_before, returncode, stderr = sweep_with_a_fault(cmd, env, out, 3, POINTS,
                                                             lambda proc: cluster.kill_worker(0))
    assert returncode == 0, stderr
    assert_complete(out, serial)
    assert len(pd.read_csv(out / "results.csv")) == POINTS
    print("killed a worker node after %d of %d points" % (done_before, POINTS))

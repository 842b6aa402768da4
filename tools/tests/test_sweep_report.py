"""`nsim sweep`'s report.html renders in headless Chromium with every chart
drawn, and its table agrees with `nsim run --set ... --json` point by point."""
import json
import os
import pathlib
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT, run
from test_report_html import check, render

SPEC = """
kernels:
  - nk: {root}/sim/kernel/examples/rmsnorm.nk
  - nk: {root}/sim/kernel/examples/matmul.nk
overrides:
  grid: {{vector.freq: [0.96GHz, 1.4GHz], dma.bytes_per_ns: [23B/ns, 46B/ns]}}
cost: {{vector.freq: 1.0e-9, dma.bytes_per_ns: 0.05}}
"""


@pytest.fixture(scope="module")
def sweep_out(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    (tmp / "spec.yaml").write_text(SPEC.format(root=ROOT))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "nsim", "sweep", tmp / "spec.yaml", "--out", tmp / "out", "--jobs", "1"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return tmp / "out"


def test_sweep_report_draws(sweep_out):
    dom = render(sweep_out / "report.html")
    check(dom, ["key-0", "key-1", "pareto", "sensitivity"])
    assert dom.count('class="mark-point"') == 3 * 8  # every point in each key chart and the Pareto chart
    assert "vector.freq / rmsnorm" in dom


def test_sweep_rows_match_nsim_run(sweep_out):
    df = pd.read_parquet(sweep_out / "results.parquet")
    assert len(df) == 8
    for _, row in df.iterrows():
        kernel = "sim/kernel/examples/%s.nk" % row["kernel"]
        sets = [a for kv in row["overrides"].split() for a in ("--set", kv)]
        summary = json.loads(run("nsim", "run", kernel, *sets, "--timing-only", "--json"))
        assert row["total_time_ns"] == summary["total_time_ns"]
        assert row["kernel_hash"] == summary["kernel"]["hash"]
        assert row["VectorE.active_time_ns"] == next(e["active_time_ns"] for e in summary["total"]["engines"]
                                                     if e["engine"] == "VectorE")


def test_sweep_report_needs_no_network(sweep_out):
    assert "http" not in (sweep_out / "report.html").read_text()

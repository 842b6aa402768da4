"""`nsim sweep` over a PyTorch script (docs/sweep.md): each point runs the
script in its own process on the point's config and overrides; a script that
fails is a row with its error. The sweep itself runs in a subprocess: this
process already holds torch_nsim's simulation."""
import os
import pathlib
import subprocess
import sys
import textwrap

import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = """
import sys
import torch
import torch_nsim  # noqa: F401
x = torch.ones(128, int(sys.argv[1])).to("neuron")
y = (x * 2.0 + 1.0).cpu()
if float(y[0, 0]) != 3.0:
    raise SystemExit("wrong value %s" % float(y[0, 0]))
"""


def sweep(tmp_path, spec):
    (tmp_path / "scale.py").write_text(textwrap.dedent(SCRIPT))
    (tmp_path / "spec.yaml").write_text(textwrap.dedent(spec))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "nsim", "sweep", tmp_path / "spec.yaml", "--out", tmp_path / "out",
                           "--jobs", "2", "--no-progress"], env=env, capture_output=True, text=True, timeout=600)


def test_torch_script_sweep(tmp_path):
    done = sweep(tmp_path, """
        kernels:
          - {torch: scale.py, argv: ["1024"]}
          - {torch: scale.py, argv: ["0"], name: empty}
        overrides: {grid: {vector.freq: [0.96GHz, 2GHz]}}
        """)
    assert done.returncode == 1, done.stderr  # the "empty" points fail
    df = pd.read_parquet(tmp_path / "out" / "results.parquet").set_index(["kernel", "overrides"])
    ok = df.loc["scale"]
    assert (ok["error"] == "").all() and (ok["kernel_executions"] == 2).all()  # x * 2, then + 1: two kernels
    # the script waits on VectorE: a faster VectorE clock shortens its device time
    assert ok.loc["vector.freq=2GHz", "total_time_ns"] < ok.loc["vector.freq=0.96GHz", "total_time_ns"]
    assert df.loc["empty", "error"].str.contains("scale.py exited with 1").all()
    again = sweep(tmp_path, """
        kernels: [{torch: scale.py, argv: ["1024"]}]
        overrides: {grid: {vector.freq: [0.96GHz, 2GHz]}}
        """)
    assert again.returncode == 0 and "(2 cache hits, 0 run" in again.stderr, again.stderr

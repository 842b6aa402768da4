"""Every PyTorch example runs (as a user runs it, from another directory)
and checks its own values against the CPU: a wrong result exits non-zero."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "torch")


@pytest.mark.parametrize("script,args", [
    ("profile_rmsnorm.py", ["--no-device-capture"]),
    ("decoder_layer.py", ["--seq", "32", "--hidden", "64", "--heads", "2", "--intermediate", "128",
                          "--no-device-capture"]),
    ("train_gpt.py", ["--steps", "3"]),
    ("train_gpt.py", ["--steps", "3", "--compile"]),
    ("train_cnn.py", ["--steps", "3"]),
    ("train_cnn.py", ["--steps", "3", "--compile"]),
])
def test_example_runs_and_checks_its_values(script, args, tmp_path):
    # This checkout's torch_nsim (torch_testing.py refreshed it), as a user's
    # script elsewhere imports the installed one.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    run = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert "max |error| vs CPU" in run.stdout

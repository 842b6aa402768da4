"""Finding the extension module, and its clear error when it is not built."""
import os
import subprocess
import sys

from nki_testing import ROOT


def test_missing_extension_names_the_bazel_target():
    code = ("import nsim._core as c; c.REPO_ROOT = '/nonexistent'; c._module = None\n"
            "try:\n    c.core()\nexcept ImportError as e:\n    print(e)\n")
    env = {k: v for k, v in os.environ.items() if k != "NSIM_CORE_SO"}
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "run `bazel build //python:_nsim_core.so`" in out


def test_config_limits():
    from nsim import _core
    info = _core.core().config_info("trn1")
    assert (info["partitions"], info["psum_banks"], info["psum_bank_bytes"], info["semaphores"]) == (128, 8, 2048, 256)

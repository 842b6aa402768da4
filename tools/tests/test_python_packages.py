"""The Python packages install and run outside the repository
(docs/python-packages.md): `pip install` puts the simulator library and the
hardware configs into each package, so nothing refers back to the checkout,
its bazel-bin or the current directory."""
import importlib.metadata
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "tools"))
import python_packages  # noqa: E402

# Each program runs in its own process: one process holds one SystemC
# simulation, and both extensions embed the simulator.
NSIM_RUN = """
import nsim.nki, nsim._core as c
info = c.core().config_info("trn1")
print(c.core().__file__, c.CONFIG_DIR, info["partitions"])
"""
TORCH_RUN = """
import torch, torch_nsim
y = (torch.ones(4, device="neuron") * 3).cpu()
assert y.tolist() == [3.0] * 4, y
print(torch_nsim._C.__file__, torch_nsim.config_name())
"""


def _clean_env(**extra):
    # No NSIM_* settings, no checkout on the path, no pip defaults (PIP_USER
    # cannot combine with --target).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NSIM_", "PIP_")) and k != "PYTHONPATH"}
    env.update(extra)
    return env


def _run(code, cwd, env):
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Both packages pip-installed (not editable) into a directory of their own."""
    target = tmp_path_factory.mktemp("site")
    for package in python_packages.PACKAGES:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--no-build-isolation", "--no-deps", "--target", str(target), str(ROOT / package)],
                       check=True, capture_output=True, env=_clean_env(MAX_JOBS="2"))
    return target


def test_installed_nsim_runs_from_anywhere(site, tmp_path):
    so, config_dir, partitions = _run(NSIM_RUN, tmp_path, _clean_env(PYTHONPATH=str(site)))
    assert so.startswith(str(site / "nsim")) and config_dir == str(site / "nsim" / "configs")
    assert (site / "nsim" / "configs" / "trn2.yaml").is_file() and not (site / "nsim" / "configs").is_symlink()
    assert partitions == "128"


def test_installed_torch_nsim_runs_from_anywhere(site, tmp_path):
    so, config = _run(TORCH_RUN, tmp_path, _clean_env(PYTHONPATH=str(site)))
    assert so.startswith(str(site / "torch_nsim")) and config == "trn2"
    assert (site / "torch_nsim" / "libnsim_core.so").is_file()


def test_set_up_packages_import_from_a_temporary_directory(tmp_path):
    """What tools/setup.sh leaves: both packages editable from this checkout,
    importable anywhere (`cd "$(mktemp -d)" && python3 -c "import nsim.nki, torch_nsim"`)."""
    for directory, distribution in python_packages.PACKAGES.items():
        location = python_packages.editable_location(distribution)
        if location is None:
            pytest.fail(f"{distribution} is not installed: run `bash tools/setup.sh`")
        if location != os.path.realpath(ROOT / directory):
            pytest.skip(f"{distribution} is installed from another checkout ({location}); "
                        "tools/setup.sh in this one installs it from here")
    _run("import nsim.nki, torch_nsim", tmp_path, _clean_env())
    assert _run(NSIM_RUN, tmp_path, _clean_env())[0].startswith(str(ROOT / "python" / "nsim"))
    assert _run(TORCH_RUN, tmp_path, _clean_env())[0].startswith(str(ROOT / "torch_nsim"))

"""The build step of the Python packages nsim (python/setup.py) and torch_nsim
(torch_nsim/setup.py): install the simulator library Bazel built into the
package, where `import` finds it from any directory.

The file is Bazel's output in its default configuration (what `bazel build`
and `bazel test //...` without -c build), found with `bazel info bazel-bin`
for that configuration: what the bazel-bin symlink points at (a `bazel build
-c opt` re-points it) does not matter. Bazel itself is not run from here:
called from Python (pyenv puts its own directories first on PATH), Bazel
would see another PATH in the actions' environment and compile everything a
second time; tools/setup.sh and `bazel test //...` build from the shell.

docs/python-packages.md has the rules (which copy the tests load, when it is
refreshed).
"""
import filecmp
import os
import shutil
import subprocess
import sys

from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BuildError(RuntimeError):
    pass


def _bazel(*args):
    done = subprocess.run(["bazel", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"`bazel {' '.join(args)}` failed in {ROOT}:\n{done.stderr[-6000:]}")
    return done.stdout


def built(target):
    """The path of `target`'s ("//package:file") output in the default
    configuration; BuildError naming the command when it is not built."""
    package, name = target[2:].split(":")
    path = os.path.join(_bazel("info", "bazel-bin").strip(), package, name)
    if not os.path.isfile(path):
        raise BuildError(f"{path} is missing: run `bazel build {target}` in {ROOT} first "
                         "(or `bash tools/setup.sh`)")
    return path


def install(src, dst):
    """Copies `src` to `dst` unless it is already there (same size and mtime:
    copies keep the mtime). Replaces atomically: a process that has the old
    shared library loaded keeps its mapping."""
    if os.path.exists(dst) and filecmp.cmp(src, dst, shallow=True):
        return
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    tmp = f"{dst}.tmp{os.getpid()}"
    shutil.copy2(src, tmp)
    os.chmod(tmp, 0o755)
    os.replace(tmp, dst)


class InstallingBuildExt(build_ext):
    """build_ext whose in-place copies (`pip install -e`, `setup.py build_ext
    --inplace`) replace files atomically and skip unchanged ones, and which
    installs `extra_files` ({name in the package: built path}) next to the
    extensions, set by the subclass during build_extensions."""

    extra_files = {}

    def copy_extensions_to_source(self):
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
            install(regular_file, inplace_file)
            for name, path in self.extra_files.items():
                install(path, os.path.join(os.path.dirname(inplace_file), name))


def build_in_place(package_dir):
    """Runs the package's build step into its source directory (what `pip
    install -e` does), so the checkout's package holds Bazel's current
    output. The test suites call it before importing their package."""
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                          cwd=os.path.join(ROOT, package_dir), capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"building the {package_dir} package failed:\n{done.stdout[-3000:]}{done.stderr[-6000:]}")


PACKAGES = {"python": "nsim", "torch_nsim": "torch_nsim"}  # directory: distribution


def editable_location(distribution):
    """The directory `distribution` is installed editable from, or None.
    (An in-tree build's egg-info on sys.path carries no direct_url.json.)"""
    import importlib.metadata
    import json
    for dist in importlib.metadata.distributions(name=distribution):
        info = json.loads(dist.read_text("direct_url.json") or "{}")
        if info.get("dir_info", {}).get("editable") and info.get("url", "").startswith("file://"):
            return os.path.realpath(info["url"][len("file://"):])
    return None


def install_editable(package_dir):
    """Installs the package editable from this checkout (pip), or, when it
    already is, only refreshes its build in place (no pip, no relink when
    nothing changed): tools/setup.sh stays idempotent."""
    source = os.path.join(ROOT, package_dir)
    if editable_location(PACKAGES[package_dir]) == os.path.realpath(source):
        build_in_place(package_dir)
        return
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--no-build-isolation", "--no-deps", "-e", source], check=True)


if __name__ == "__main__":
    try:
        for package in sys.argv[1:]:
            install_editable(package)
    except (BuildError, subprocess.CalledProcessError) as e:
        sys.exit(f"tools/python_packages.py: {e}")

#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12. Idempotent: packages
# that are already installed are left alone, and apt is not touched at all then.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
  bazel-bootstrap      # Bazel 4.2.3, used offline with the local repos in third_party/
  g++
  libsystemc-dev       # SystemC 2.3.4 (C++17 build)
  libeigen3-dev
  libabsl-dev
  libyaml-cpp-dev
  nlohmann-json3-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libcli11-dev         # the flags library of every binary (tools/cli)
  chromium             # headless browser of tools/tests/test_report_html.py
)
# --- Robustness (README "Robustness"): clang-14 for the libFuzzer targets
# (fuzz/run.sh, bazel build --config=fuzz) and the sanitizer builds
# (bazel test --config=asan / --config=ubsan); Debian 12's 14.0.6.
packages+=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
echo "setup: all build dependencies present"

# Python packages, pinned (pip skips what is already installed at these versions):
# pybind11 headers for //python:_nsim_core.so (found by
# third_party/python/python_configure.bzl through the python3 on PATH), NumPy,
# ml_dtypes (bf16 host arrays), pytest, jsonschema (output schema tests);
# torch 2.13.0 (CPU) exactly: it installs offline from a file on disk on the
# project's machines, any other version would download gigabytes; ninja
# builds the torch_nsim extension; atheris drives the NKI emitter fuzz target
# (fuzz/nki_emitter_fuzz.py, a binary wheel for CPython 3.11); expecttest is
# imported by torch.testing._internal, whose OpInfo database
# torch_nsim/tests/test_opinfo.py runs; pyarrow writes the Parquet profile
# tables and duckdb runs docs/profile-tables.md's queries in the tests.
python3 -m pip install -q --disable-pip-version-check \
  pybind11==3.1.0 numpy==2.4.6 ml_dtypes==0.6.0 pytest==9.0.3 setuptools==84.2.1 jsonschema==4.26.0 \
  torch==2.13.0 ninja==1.11.1.1 atheris==2.3.0 expecttest==0.3.0 pyarrow==26.0.1 duckdb==2.0.0
echo "setup: python dependencies present"
# Sweeps (docs/sweep.md): pyyaml reads specs, pandas and pyarrow write the
# result tables, ray (the nsim package's `ray` extra) runs `nsim sweep --ray`.
python3 -m pip install -q --disable-pip-version-check pyyaml==6.0.3 pandas==3.1.1 pyarrow==26.0.1 ray==2.60.0
echo "setup: sweep dependencies present"

# The packages `nsim` (python/) and `torch_nsim`, installed editable so they
# import from any directory: Bazel builds the simulator libraries (from the
# shell: docs/python-packages.md says why not from pip), then each package's
# build step copies its library into the package (torch_nsim also compiles
# its PyTorch glue, incrementally). Nothing is rebuilt when nothing changed,
# and pip runs only when a package is not yet installed from this checkout.
cd "$repo_root"
bazel build //python:_nsim_core.so //torch_nsim:libnsim_core.so
MAX_JOBS="${MAX_JOBS:-2}" python3 tools/python_packages.py python torch_nsim
echo "setup: nsim and torch_nsim installed (cd anywhere; python3 -c 'import nsim.nki, torch_nsim')"

#!/usr/bin/env bash
# Installs the Debian 12 packages the build needs. Idempotent: packages that
# are already installed are left alone, and apt is not touched at all then.
set -euo pipefail
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
)
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

# ---- PyTorch "neuron" device (torch_nsim/, issue 13) --------------------------
# Python packages, pinned. torch 2.13.0 (CPU) installs offline from a file on
# disk on the project's machines; any other version would download gigabytes.
python_packages=(torch==2.13.0 ninja==1.11.1.1 pytest==9.0.3)
missing_py=()
for spec in "${python_packages[@]}"; do
  name="${spec%%==*}" want="${spec##*==}"
  have="$(python3 -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)"
  [ "${have%%+*}" = "$want" ] || missing_py+=("$spec")
done
if [ ${#missing_py[@]} -gt 0 ]; then
  python3 -m pip install -q "${missing_py[@]}"
fi
# The extension: the simulator as one shared library (Bazel), then the torch
# glue (torch_nsim/csrc) against the installed torch. Both are incremental:
# nothing is rebuilt when nothing changed.
cd "$(dirname "$0")/.."
bazel build //torch_nsim:libnsim_core.so
MAX_JOBS="${MAX_JOBS:-2}" python3 torch_nsim/build.py > /dev/null
echo "setup: torch_nsim built (python3 -c 'import torch_nsim')"

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

# --- profile tools (issue 15 / CLI part of issue 14) ---------------------------
# libcli11-dev: the flags library of every binary (tools/cli). chromium: the
# headless browser of tools/tests/test_report_html.py. jsonschema + pytest:
# `python3 -m pytest tools/tests` (output schema, report rendering).
profile_packages=(libcli11-dev chromium)
profile_missing=()
for p in "${profile_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || profile_missing+=("$p")
done
if [ ${#profile_missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${profile_missing[@]}"
fi
python3 -c "import jsonschema, pytest, numpy" 2>/dev/null ||
  python3 -m pip install -q "jsonschema==4.26.0" "pytest==9.0.3" "numpy==2.4.6"
echo "setup: profile tools present (CLI11, chromium, jsonschema, pytest)"

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

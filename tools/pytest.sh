#!/usr/bin/env bash
# Runs the Python packages' pytest suites (after `bash tools/setup.sh` and
# `bazel test //...`, which builds the simulator libraries; each suite first
# installs Bazel's current build into its package, docs/python-packages.md). Each package
# runs in its own process: the `nsim` extension and torch_nsim each embed the
# simulator, and one process holds one SystemC simulation (libsystemc's
# kernel is process-global), so they cannot both simulate in one interpreter.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for suite in "python/tests tools/tests" "torch_nsim/tests"; do
  # shellcheck disable=SC2086
  python3 -m pytest -q $suite || status=1
done
exit $status

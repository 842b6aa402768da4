#!/usr/bin/env bash
# Runs the Python packages' pytest suites (after `bazel test //...` built the
# extension modules and `bash tools/setup.sh` built torch_nsim). Each package
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

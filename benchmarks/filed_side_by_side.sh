#!/bin/bash
# Issue 12's "[128, 512] tiles with values, at least 5x faster than when the
# issue was filed", measured side by side: builds the code the issue was
# filed against (a7df98c, in a worktree under /tmp) and this checkout's
# sim_speed, then runs the row with each binary in turn, REPS times, and
# prints each run's instr/s and the host's multiply-add ceiling. Not a build
# or test dependency; takes a few minutes (the old build).
#   bash benchmarks/filed_side_by_side.sh [REPS] [FILTER]
set -euo pipefail
REPS=${1:-5}
FILTER=${2:-'MixedStream/partitions:128/free:512$'}
FILED=a7df98c
ROOT=$(git rev-parse --show-toplevel)
OLD=/tmp/nsim_filed_$FILED
[ -d "$OLD" ] || git -C "$ROOT" worktree add --detach "$OLD" "$FILED" >/dev/null 2>&1
(cd "$OLD" && bazel build -c opt //benchmarks:sim_speed >/dev/null 2>&1)
(cd "$ROOT" && bazel build -c opt //benchmarks:sim_speed >/dev/null 2>&1)
run() {  # run <checkout>: one sim_speed run of the row, in its own runfiles
  local bin=$1/bazel-bin/benchmarks/sim_speed
  (cd "$bin.runfiles/nsim" && NSIM_CONFIG_DIR=$1/configs "$bin" --benchmark_filter="$FILTER" 2>/dev/null) |
    grep '^BM_' | grep -o 'instr/s=[0-9.]*[kM]*\|[a-z]*_bound/s=[0-9.]*[kM]*' | tr '\n' ' '
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$REPS"); do
  echo "filed $FILED: $(run "$OLD")"
  echo "this checkout: $(run "$ROOT")"
done

#!/usr/bin/env bash
# Whole-process speed of nsim against SCALE-Sim (the systolic-array simulator
# peers use) on the same GEMM: C[1024, 1024] = A^T B with K = 1024, on a
# 128x128 array. README "Simulator speed" and benchmarks/scalesim/README.md.
#
#   bash benchmarks/scalesim/compare.sh            # from the repository root
#   SIZE=2048 NSIM_RUNS=9 bash benchmarks/scalesim/compare.sh
#
# SCALE-Sim is fetched into a venv under /tmp on first use (pip, pinned); it is
# never a build or test dependency of nsim. Prints one line per simulator and
# the ratios, judged in CPU time (user + sys: on a loaded machine the wall
# time of a short process is mostly waiting for a CPU); exit 0 whatever the
# ratio (a benchmark, not a test).
set -euo pipefail

SIZE=${SIZE:-1024}
NSIM_RUNS=${NSIM_RUNS:-5}          # nsim runs take milliseconds: best and median of several
SCALESIM_RUNS=${SCALESIM_RUNS:-1}  # SCALE-Sim takes about a minute per run
VENV=${SCALESIM_VENV:-/tmp/nsim_scalesim_venv}
WORK=${WORK:-/tmp/nsim_scalesim_compare}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TARGET=500

# 1. SCALE-Sim 3.0.0 (PyPI "scalesim"); it fails on NumPy 2 (a 1-element
#    array where it wants a scalar), hence the NumPy/pandas pins.
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import scalesim" 2>/dev/null; then
  echo "fetching SCALE-Sim into $VENV ..." >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "scalesim==3.0.0" "numpy==1.26.4" "pandas==2.2.3"
fi

# 2. nsim (opt build) and the GEMM as a kernel file.
(cd "$ROOT" && bazel build -c opt //tools:nsim >&2)
NSIM="$ROOT/bazel-out/k8-opt/bin/tools/nsim"
export NSIM_CONFIG_DIR="$ROOT/configs"
rm -rf "$WORK" && mkdir -p "$WORK"
python3 "$HERE/gemm_nk.py" "$SIZE" > "$WORK/gemm.nk"
printf 'Layer, M, N, K,\ngemm_%s, %s, %s, %s,\n' "$SIZE" "$SIZE" "$SIZE" "$SIZE" > "$WORK/gemm.csv"
printf 'Layer name, unused,\n' > "$WORK/layout.csv"  # SCALE-Sim reads a layout file; custom layouts are off in the config

# The result is a real GEMM: C against NumPy within bf16 rounding of C.
"$NSIM" run "$WORK/gemm.nk" --out "$WORK/values" --save-tensors > /dev/null 2>&1
"$VENV/bin/python" - "$WORK/values/tensors" <<'EOF'
import sys
import numpy as np
d = sys.argv[1]
a, b, c = (np.load(f"{d}/{n}.npy").astype(np.float64) for n in "abc")
ref = a.T @ b
err = np.abs(c - ref).max(initial=0)
if not np.all(np.abs(c - ref) <= np.abs(ref) * 2.0**-8 + 1e-3):
    sys.exit(f"nsim's GEMM result differs from NumPy by up to {err} (more than bf16 rounding)")
print(f"nsim's C matches NumPy's A^T B within bf16 rounding (max |diff| {err:.3g})", file=sys.stderr)
EOF

# 3. Timing: wall and CPU (user + sys) of the whole process, bash's `time`.
TIMEFORMAT='%3R %3U %3S'
time_run() {  # prints "wall cpu"
  local t
  t=$( { time "$@" > /dev/null 2>&1; } 2>&1 )
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<< "$t"
}
best_and_median() {  # stdin: one number per line
  sort -g | awk '{v[NR] = $1} END {printf "%.3f %.3f\n", v[1], v[int((NR + 1) / 2)]}'
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "GEMM ${SIZE}^3 (bf16 in, fp32 accumulate) on a 128x128 array"

scalesim_times=()
for _ in $(seq "$SCALESIM_RUNS"); do
  rm -rf "$WORK/scalesim_out"
  scalesim_times+=("$(cd "$WORK" && time_run "$VENV/bin/python" -m scalesim.scale -c "$HERE/scale_128x128.cfg" \
    -t "$WORK/gemm.csv" -l "$WORK/layout.csv" -p "$WORK/scalesim_out" -i gemm)")
done
read -r ss_wall ss_wall_med < <(printf '%s\n' "${scalesim_times[@]}" | cut -d' ' -f1 | best_and_median)
read -r ss_cpu ss_cpu_med < <(printf '%s\n' "${scalesim_times[@]}" | cut -d' ' -f2 | best_and_median)
ss_cycles=$(awk -F, 'NR == 2 {gsub(/ /, "", $2); print $2}' "$WORK"/scalesim_out/*/COMPUTE_REPORT.csv)
printf '%-26s wall %8.3f s  cpu %8.3f s  (%s run(s), best; %s cycles)\n' "SCALE-Sim" "$ss_wall" "$ss_cpu" \
  "$SCALESIM_RUNS" "$ss_cycles"

for mode in timing-only values; do
  flag=()
  [ "$mode" = timing-only ] && flag=(--timing-only)
  times=()
  for _ in $(seq "$NSIM_RUNS"); do times+=("$(time_run "$NSIM" run "$WORK/gemm.nk" "${flag[@]}")"); done
  read -r wall wall_med < <(printf '%s\n' "${times[@]}" | cut -d' ' -f1 | best_and_median)
  read -r cpu cpu_med < <(printf '%s\n' "${times[@]}" | cut -d' ' -f2 | best_and_median)
  device=$("$NSIM" run "$WORK/gemm.nk" "${flag[@]}" | sed -n 's/.*device time \([0-9.]* [a-z]*\).*/\1/p' | head -1)
  label="nsim run --timing-only"
  [ "$mode" = values ] && label="nsim run (values on)"
  printf '%-26s wall %8.3f s  cpu %8.3f s  (best of %s; median wall %s s, cpu %s s; device time %s)\n' \
    "$label" "$wall" "$cpu" "$NSIM_RUNS" "$wall_med" "$cpu_med" "$device"
  awk -v name="$mode" -v sw="$ss_wall" -v sc="$ss_cpu" -v w="$wall" -v c="$cpu" -v t="$TARGET" 'BEGIN {
    rw = sw / w; rc = (c > 0) ? sc / c : 0
    printf "  ratio SCALE-Sim / nsim (%s): cpu %s, wall %.0fx  -> %s (target >= %dx in CPU time)\n", name,
           (c > 0) ? sprintf("%.0fx", rc) : "n/a (below the timer resolution)", rw, (c > 0 && rc >= t) ? "pass" : "FAIL", t }'
done

#!/usr/bin/env bash
# Runs the libFuzzer targets, each for SECONDS (default 600), seeded from the
# examples, configs and the bad-input corpus. Crashes land in
# out/fuzz/<target>/crashes/; a crash found is a bug: fix it and copy the file
# to fuzz/regressions/<target>/ so //fuzz:<target>_replay_test replays it.
#   bash fuzz/run.sh [SECONDS] [TARGET ...]     targets: kernel_parser config_loader load_and_run nki_emitter
#   bash fuzz/run.sh --smoke                    20 s per target from a fixed seed (CI: a clean tree
#                                               passes or fails the same way; longer runs explore freshly)
# nki_emitter is the Python target fuzz/nki_emitter_fuzz.py (atheris, on the
# uninstrumented //python:_nsim_core.so), seeded from fuzz/nki_emitter_seeds/.
# Needs clang-14 and libclang-rt-14-dev (tools/setup.sh). Exit status 1 if any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600 seed=()
if [ "${1:-}" = "--smoke" ]; then seconds=20 seed=(-seed=1); shift; elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(kernel_parser config_loader load_and_run nki_emitter)
native=() bin=""
for t in "${targets[@]}"; do [ "$t" = nki_emitter ] || native+=("//fuzz:${t}_fuzzer"); done
if [ ${#native[@]} -gt 0 ]; then
  bazel build --config=fuzz --symlink_prefix=/ "${native[@]}"
  bin="$(bazel info --config=fuzz bazel-bin)/fuzz"
fi
if [[ " ${targets[*]} " == *" nki_emitter "* ]]; then
  bazel build --symlink_prefix=/ //python:_nsim_core.so
  export NSIM_CORE_SO="$(bazel info bazel-bin)/python/_nsim_core.so"
fi
export NSIM_CONFIG_DIR="$PWD/configs"  # config_loader inputs inherit the shipped parts by name
export ASAN_OPTIONS="detect_stack_use_after_return=0:detect_leaks=0:halt_on_error=1"
status=0
for t in "${targets[@]}"; do
  work="out/fuzz/$t"
  mkdir -p "$work/corpus" "$work/crashes"
  case "$t" in
    config_loader) seeds=(configs/*.yaml tests/bad_input/*.yaml fuzz/regressions/config_loader) ;;
    nki_emitter) seeds=(fuzz/nki_emitter_seeds/* fuzz/regressions/nki_emitter/*) ;;
    *) seeds=(sim/kernel/examples/*.nk tests/bad_input/*.nk "fuzz/regressions/$t") ;;
  esac
  for s in "${seeds[@]}"; do [ -e "$s" ] && cp -r "$s" "$work/corpus/" 2>/dev/null || true; done
  echo "== fuzz $t for ${seconds}s"
  fuzzer=("$bin/${t}_fuzzer")
  [ "$t" != nki_emitter ] || fuzzer=(python3 fuzz/nki_emitter_fuzz.py)
  if ! "${fuzzer[@]}" "$work/corpus" "${seed[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
       -max_len=4096 -artifact_prefix="$work/crashes/" -print_final_stats=1 2>"$work/log.txt"; then
    status=1
    echo "!! $t crashed; see $work/log.txt and $work/crashes/"
  fi
  grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" "$work/log.txt" || tail -3 "$work/log.txt"
done
exit $status

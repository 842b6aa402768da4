#!/usr/bin/env bash
# Fails if a layer depends on one it must not (tools/layering/BUILD):
#   profiler -> runtime or backend  (the runtime publishes, the profiler subscribes;
#                                    an edge back would close a runtime <-> profiler cycle)
#   runtime  -> profiler or backend (capture is a setting passed down, not a question asked up;
#                                    every library of the runtime package)
#   backend  -> the profiler beyond its event API //profiler:events, the bridges
#               (runtime/profiling), tools or the Python packages. Publishing
#               into the event API is allowed (a compiled region's range, as
#               the runtime's bridge publishes executions): it depends on
#               nothing above sim/base, so no cycle can close through it.
#   sim      -> runtime, backend, profiler or tools
#   sim/isa  -> sim/model           (instruction semantics sit below the SystemC model;
#                                    both use sim/memory)
set -euo pipefail
profiler_deps=$1 runtime_deps=$2 sim_deps=$3 isa_deps=$4 backend_deps=$5
status=0

forbid() {  # FILE LAYER PATTERN WHAT
  local hits
  hits=$(grep -P "^$3" "$1" || true)
  if [[ -n "$hits" ]]; then
    echo "FAIL: $2 depends on $4:" >&2
    echo "$hits" | sed 's/^/  /' >&2
    status=1
  fi
}

for f in "$profiler_deps" "$runtime_deps" "$sim_deps" "$isa_deps" "$backend_deps"; do
  [[ -s "$f" ]] || { echo "FAIL: empty dependency list $f" >&2; exit 1; }
done
forbid "$profiler_deps" "//profiler" "//(runtime|backend)[/:]" "the runtime or the backend"
forbid "$runtime_deps" "//runtime" "//(profiler|backend)[/:]" "the profiler or the backend"
forbid "$sim_deps" "//sim/model:model" "//(runtime|backend|profiler|tools)[/:]" "a layer above the simulator"
forbid "$isa_deps" "//sim/isa:isa" "//sim/model[/:]" "the SystemC model (a sim/isa <-> sim/model cycle)"
forbid "$backend_deps" "//backend" "//(profiler:(?!events$)|runtime/profiling[/:]|tools[/:]|python[/:]|torch_nsim[/:])" \
  "the profiler beyond //profiler:events, a bridge, tools or a Python package"
# The roots themselves are in their lists: a query that matched nothing proves nothing.
grep -qx "//profiler:events" "$profiler_deps" || { echo "FAIL: //profiler:events not in $profiler_deps" >&2; status=1; }
grep -qx "//sim/base:base" "$runtime_deps" || { echo "FAIL: //sim/base:base not in $runtime_deps" >&2; status=1; }
grep -qx "//backend:aten" "$backend_deps" || { echo "FAIL: //backend:aten not in $backend_deps" >&2; status=1; }
grep -qx "//sim/memory:memory" "$isa_deps" || { echo "FAIL: //sim/memory:memory not in $isa_deps" >&2; status=1; }
[[ $status == 0 ]] && echo "layering ok: profiler, runtime, backend and sim depend only downwards"
exit $status

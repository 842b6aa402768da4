#!/usr/bin/env bash
# The libraries built with host-specific vector flags (-mavx2, -mavx512*)
# must define no weak or unique symbols: an out-of-line template member
# (std::vector<T>::_M_default_append, ...) emitted there would be compiled
# for that ISA, and the linker may keep that copy for the whole program, so
# a host without the ISA could fault in unrelated code (sim/base/local_buffer.h).
# Arguments: the libraries' outputs; those present in the runfiles are
# checked, and there must be at least EXPECTED_LIBRARIES of them.
set -euo pipefail
status=0
checked=0
for lib in "$@"; do
  [ -f "$lib" ] || continue
  checked=$((checked + 1))
  symbols=$(nm -C --defined-only "$lib")
  shared=$(grep -E ' [WVu] ' <<<"$symbols" || true)
  if [ -n "$shared" ]; then
    echo "$lib defines symbols other files may share (weak or unique):"
    echo "$shared"
    status=1
  fi
done
if [ "$checked" -lt "$EXPECTED_LIBRARIES" ]; then
  echo "found $checked of $EXPECTED_LIBRARIES libraries in the runfiles among: $*"
  exit 1
fi
[ "$status" -ne 0 ] || echo "$checked ISA-specific library files: no weak or unique symbols"
exit $status

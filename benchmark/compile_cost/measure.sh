#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CPU seconds (user + system) to compile the compile-cost probes at -O2, header-only, with the
# flags a consumer uses (no define, no library):
#   (a) render_gemm.cpp: renders one GEMM and asks for its hash key (pure layer)
#   (a') render_gemm_typed.cpp: the same through the typed route (buffer types, derived signature)
#   (b) tune_gemm.cpp:   tunes one GEMM through the runtime layer
#   (c) test/runtime/build/code_cache_test.cpp: one runtime test file, with the test's own flags
# and the preprocessed line count of each, twice: header-only (the default), and against the compiled
# library (-DROCMTPL_COMPILED_LIBRARY: the headers' declarations only), followed by the one-time cost
# of compiling that library (src/*.cpp, the CPU seconds summed). Run it on an otherwise idle machine;
# benchmark/RESULTS.md records its output. Usage: benchmark/compile_cost/measure.sh [g++|clang++]
set -euo pipefail
cd "$(dirname "$0")/../.."
cxx=${1:-g++}
extra=()
[ -n "${ROCMTPL_EXTRA_INCLUDE_DIR:-}" ] && extra=(-I"$ROCMTPL_EXTRA_INCLUDE_DIR")
pq=()
[ -d /usr/include/postgresql ] && pq=(-I/usr/include/postgresql)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
probe() {
  local name=$1 src=$2
  shift 2
  local lines
  lines=$("$cxx" -std=c++20 -Iinclude "${extra[@]}" "$@" -E "$src" | wc -l)
  /usr/bin/time -f "%U %S" -o "$out/time" "$cxx" -std=c++20 -O2 -Iinclude "${extra[@]}" "$@" -c "$src" -o "$out/o.o"
  read -r user sys < "$out/time"
  printf '%-28s %7.1f s CPU  (%s lines preprocessed)\n' "$name" "$(echo "$user + $sys" | bc)" "$lines"
}
echo "compiler: $("$cxx" --version | head -1); $(nproc) cores"
for mode in header-only compiled; do
  defs=()
  [ "$mode" = compiled ] && defs=(-DROCMTPL_COMPILED_LIBRARY)
  echo "-- $mode"
  probe "(a) render a GEMM" benchmark/compile_cost/render_gemm.cpp "${defs[@]}"
  probe "(a') render it, typed" benchmark/compile_cost/render_gemm_typed.cpp "${defs[@]}"
  probe "(b) tune a GEMM" benchmark/compile_cost/tune_gemm.cpp "${pq[@]}" "${defs[@]}"
  probe "(c) a runtime test file" test/runtime/build/code_cache_test.cpp -Itest "${pq[@]}" "${defs[@]}" \
    -DROCMTPL_TEST_SOURCE_DIR=\"test\" -DROCMTPL_TEST_BINARY_DIR=\"build\"
done
total=0
for src in src/*.cpp src/runtime/*.cpp; do
  /usr/bin/time -f "%U %S" -o "$out/time" "$cxx" -std=c++20 -O2 -Iinclude "${extra[@]}" "${pq[@]}" \
    -DROCMTPL_COMPILED_LIBRARY -c "$src" -o "$out/o.o"
  read -r user sys < "$out/time"
  total=$(echo "$total + $user + $sys" | bc)
done
printf '%-28s %7.1f s CPU  (once, %s files)\n' "the compiled library" "$total" "$(ls src/*.cpp src/runtime/*.cpp | wc -l)"

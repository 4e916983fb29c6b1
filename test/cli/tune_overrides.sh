#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 22 item 14: the README's examples of `tools/run.sh tune` with options replace the script's
# defaults instead of being refused as given twice. Runs rocmtpl-tune gemm with the arguments the
# script computes (tools/tune_args.sh) and a fake compiler that fails every compile at once, and
# checks the problem and candidate count the tool says it tunes.
# usage: tune_overrides.sh TUNE_ARGS_SH ROCMTPL_TUNE FAKE_COMPILER WORK_DIR
set -uo pipefail
tune_args=$1 tool=$2 fake=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
failures=0

check() {  # check EXPECTED_FIRST_LINE_REGEX USER_OPTIONS...
  local expected=$1
  shift
  local args out rc
  mapfile -d '' -t args < <("$tune_args" "$@")
  # ROCMTPL_PLATFORM=amd: compile-only on any machine (no AMD GPU anywhere), through the fake hipcc.
  out=$(ROCMTPL_PLATFORM=amd ROCMTPL_CACHE_DIR="$work/cache" ROCMTPL_HIPCC="$fake" ROCMTPL_NVCC="$fake" \
        "$tool" gemm "${args[@]}" --arch gfx90a --jobs 1 --db "$work/tuning.sqlite3" 2>&1)
  rc=$?
  local first=${out%%$'\n'*}
  # Exit 1: every candidate failed to compile (the fake compiler); 2 would be a refused command line.
  if [ "$rc" -ne 1 ] || ! [[ $first =~ $expected ]]; then
    echo "FAIL: tools/run.sh tune $* -> rocmtpl-tune gemm ${args[*]}: exit $rc, first line: $first" >&2
    echo "      expected: $expected" >&2
    failures=$((failures + 1))
  else
    echo "ok: tools/run.sh tune $* -> $first"
  fi
}

# The defaults alone: the main job.
check '^gemm M=4096 N=4096 K=4096 float16 rr, Y = relu\(X @ W \+ bias\): 32 candidates'
# The README's examples: shape, dtype and candidate count, each replacing the script's own.
check '^gemm M=256 N=512 K=1024 float16 rr, Y = relu\(X @ W \+ bias\): 32 candidates' --m 256 --n 512 --k 1024
check '^gemm M=4096 N=4096 K=4096 bfloat16 rr, Y = relu\(X @ W \+ bias\): 2 candidates' --dtype bf16 --top-k 2
check '^gemm M=512 N=4096 K=4096 float32 rr, Y = X @ W: 4 candidates' --m=512 --dtype fp32 --epilogue none \
  --no-bias --top-k 4
# The pick's re-timing turned off (a tuning option the script passes through).
check '^gemm M=4096 N=4096 K=4096 float16 rr, Y = relu\(X @ W \+ bias\): 2 candidates' --top-k 2 --finalists 0
exit $((failures > 0))

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds on the GPU machine (CUDA, no hipcc, headers it lacks carried in .deps/include), runs the
# gpu-labelled tests and, with --bench, the benchmarks. Logs go to $OUT (or ./out).
# Usage: tools/gpu_check.sh [--bench] [--filter REGEX]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}
mkdir -p "$out"
bench=0
filter=""
while [ $# -gt 0 ]; do
  case $1 in
    --bench) bench=1 ;;
    --filter) filter=$2; shift ;;
  esac
  shift
done
export ROCMTPL_EXTRA_INCLUDE_DIR=$PWD/.deps/include
export ROCMTPL_CACHE_DIR=${ROCMTPL_CACHE_DIR:-/tmp/rocmtpl-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>&1 | tee "$out/gpu.txt"
build=build/gpu
t0=$(date +%s)
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DROCMTPL_BUILD_BENCHMARKS=ON -DROCMTPL_WERROR=OFF \
  > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build $build -j 16 -- -k 0 > "$out/build.log" 2>&1
echo "build rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "error|FAILED" "$out/build.log" | head -20
cd $build
if [ -n "$filter" ]; then
  ctest -R "$filter" --output-on-failure --timeout 600 > "$out/ctest.log" 2>&1
else
  ctest -L gpu --output-on-failure --timeout 600 > "$out/ctest.log" 2>&1
fi
echo "ctest rc=$?"; grep -E "tests passed|Failed|\*\*\*|Skipped|SKIP" "$out/ctest.log" | head -40
cd - > /dev/null
if [ $bench = 1 ]; then
  for b in $(ls $build/benchmark/*_bench 2>/dev/null); do
    name=$(basename $b)
    $b --benchmark_out="$out/$name.json" --benchmark_out_format=json > "$out/$name.txt" 2>&1
    echo "== $name rc=$?"; tail -12 "$out/$name.txt"
  done
fi

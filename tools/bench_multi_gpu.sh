#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times `rocmtpl-tune batch` on 16 GEMM problems with one GPU, then with every visible GPU (issue 11
# part 1: runtime/bench/worker_pool.hpp runs one benchmark worker per GPU and spreads the candidates over
# them).
#
#   tools/bench_multi_gpu.sh [build dir] [warm|time|all]      (default: build/release all)
#   env: TOP_K (16 candidates per problem), BUDGET_MS (500 ms of timing per candidate)
#
# `warm` fills the code cache (every candidate compiled once, timed for 1 ms only), so that the
# timed passes compile nothing and measure the benchmarking itself; `time` tunes the batch into an
# empty tuning database twice, with CUDA_VISIBLE_DEVICES=0 and then with every GPU, and prints both
# wall times and their ratio (figure: >= 1.8x on two H200s). The per-problem fixed cost (worker
# setup) is the same in both passes and bounds the ratio: a larger BUDGET_MS makes the benchmarking
# dominate.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
phase=${2:-all}
tune="$build/tools/rocmtpl-tune"
work=$(mktemp -d "${TMPDIR:-/tmp}/rocmtpl-multi-gpu-XXXXXX")
trap 'rm -rf "$work"' EXIT
gpus=$(nvidia-smi -L 2>/dev/null | wc -l || true)
[ "${gpus:-0}" -ge 2 ] || { echo "bench_multi_gpu: needs at least 2 GPUs (found ${gpus:-0})"; exit 1; }
all=$(seq -s, 0 $((gpus - 1)))
sizes=(256 384 512 640 768 896 1024 1280 1536 1792 2048 2304 2560 3072 3584 4096)
{
  printf '['
  sep=
  for s in "${sizes[@]}"; do printf '%s{"m": %d, "n": %d, "k": 1024, "dtype": "f32"}' "$sep" "$s" "$s"; sep=', '; done
  printf ']\n'
} > "$work/problems.json"

pass() {  # pass <CUDA_VISIBLE_DEVICES> <db> <budget ms>
  CUDA_VISIBLE_DEVICES=$1 "$tune" batch "$work/problems.json" --plain --top-k "${TOP_K:-16}" --budget-ms "$3" \
    --db "$2" > "$work/last.log" 2>&1 || { cat "$work/last.log"; exit 1; }
  tail -n 2 "$work/last.log"
}
now() { date +%s.%N; }

if [ "$phase" = warm ] || [ "$phase" = all ]; then
  t=$(now)
  pass "$all" "$work/warm.sqlite3" 1
  awk -v a="$t" -v b="$(now)" -v n="${#sizes[@]}" 'BEGIN { printf "warm-up: %d problems compiled in %.1f s\n", n, b - a }'
fi
if [ "$phase" = time ] || [ "$phase" = all ]; then
  t0=$(now); pass 0 "$work/one.sqlite3" "${BUDGET_MS:-500}"
  t1=$(now); pass "$all" "$work/all.sqlite3" "${BUDGET_MS:-500}"
  t2=$(now)
  awk -v a="$t0" -v b="$t1" -v c="$t2" -v g="$gpus" -v n="${#sizes[@]}" \
    'BEGIN { printf "batch of %d problems: 1 GPU %.1f s, %d GPUs %.1f s, speed-up %.2fx\n", n, b - a, g, c - b, (b - a) / (c - b) }'
fi

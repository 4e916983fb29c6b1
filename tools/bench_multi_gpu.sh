#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times the tuning of 16 GEMM problems on one GPU, then on every visible GPU (issue 11 part 1:
# runtime/worker_pool.hpp runs one benchmark worker per GPU and spreads the candidates over them).
#
#   tools/bench_multi_gpu.sh [build dir]      (default build/release; needs rocmtpl-tune and the worker)
#
# First a warm-up pass fills the code cache (every candidate compiled once), so that the two timed
# passes compile nothing and measure the benchmarking itself; each timed pass starts from an empty
# tuning database. Prints both wall times and their ratio; figure: >= 1.8x on two H200s.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
tune="$build/tools/rocmtpl-tune"
work=$(mktemp -d "${TMPDIR:-/tmp}/rocmtpl-multi-gpu-XXXXXX")
trap 'rm -rf "$work"' EXIT
gpus=$(nvidia-smi -L 2>/dev/null | wc -l || true)
[ "${gpus:-0}" -ge 2 ] || { echo "bench_multi_gpu: needs at least 2 GPUs (found ${gpus:-0})"; exit 1; }
all=$(seq -s, 0 $((gpus - 1)))
sizes=(256 384 512 640 768 896 1024 1280 1536 1792 2048 2304 2560 3072 3584 4096)
args=(--dtype f32 --top-k 16 --budget-ms 200)

pass() {  # pass <CUDA_VISIBLE_DEVICES> <db>
  for s in "${sizes[@]}"; do
    CUDA_VISIBLE_DEVICES=$1 "$tune" gemm --m "$s" --n "$s" --k 1024 "${args[@]}" --db "$2" > "$work/last.log" 2>&1 ||
      { cat "$work/last.log"; exit 1; }
  done
}
now() { date +%s.%N; }

echo "warm-up: compiling the candidates of ${#sizes[@]} problems into the code cache"
pass "$all" "$work/warm.sqlite3"
t0=$(now); pass 0 "$work/one.sqlite3"; t1=$(now)
pass "$all" "$work/all.sqlite3"; t2=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v g="$gpus" \
  'BEGIN { printf "1 GPU: %.1f s, %d GPUs: %.1f s, speed-up %.2fx\n", b - a, g, c - b, (b - a) / (c - b) }'

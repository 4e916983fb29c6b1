#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the GPU machine: profiles one fusion_bench chain's fused GEMM kernels (cooperative and ping-pong)
# and the plain GEMMs of the same tuning run with ncu, and disassembles their cached libraries
# (cuobjdump -sass). Everything lands in one archive, $OUT/profile.tgz (the device tool returns a
# few files only): per kernel the ncu summary (ncu_<benchmark>.txt), the per-instruction source
# page with warp-stall samples (ncu_src_<benchmark>.csv, summed by code region in regions.txt:
# tools/ncu_regions.py), and sass/<module>_<key>.{hip,sass}.
# Usage: tools/profile_fusion.sh BUILD_DIR [CHAIN [K]]   (default scale_silu_mul_full, K = 1024)
set -uo pipefail
build=${1:?usage: tools/profile_fusion.sh BUILD_DIR [CHAIN [K]]}
chain=${2:-scale_silu_mul_full}
k=${3:-1024}
bench=$build/benchmark/fusion_bench
[ -x "$bench" ] || { echo "no $bench: build the fusion_bench target first" >&2; exit 1; }
out=${OUT:-$PWD/out}
work=$(mktemp -d)
mkdir -p "$out" "$work/sass"
export ROCMTPL_CACHE_DIR=${ROCMTPL_CACHE_DIR:-$work/cache} ROCMTPL_FUSION_KS=$k ROCMTPL_FUSION_CHAINS=$chain
# One plain run tunes and compiles everything into the cache; ncu then replays cached modules.
"$bench" --benchmark_min_time=0.05s > "$work/fusion.txt" 2>&1
for d in $(grep -rl "${chain}_fused\|plain_gemm" "$ROCMTPL_CACHE_DIR" --include=source.hip | xargs -r -n1 dirname); do
  name=$(grep -o "fusion_[a-z0-9_]*_fused[a-z_]*\|plain_gemm[a-z0-9_]*" "$d/source.hip" | head -1)
  for so in "$d"/*.so; do cuobjdump -sass "$so" > "$work/sass/${name:-module}_$(basename "$d").sass" 2>&1; done
  cp "$d/source.hip" "$work/sass/${name:-module}_$(basename "$d").hip"
done
for b in "$chain/fused/" "$chain/fused_pp/" "plain_gemm/" "plain_gemm_pp/"; do
  tag=$(echo "$b" | tr '/' '_')
  timeout 120 ncu -k regex:sm90 --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section SourceCounters --section ComputeWorkloadAnalysis \
    --import-source no -o "$work/ncu_$tag" -f "$bench" --benchmark_filter="^${b}K=${k}/manual_time\$" \
    --benchmark_min_time=0.01s > "$work/ncu_run_$tag.txt" 2>&1
  ncu -i "$work/ncu_$tag.ncu-rep" > "$work/ncu_$tag.txt" 2>&1
  ncu -i "$work/ncu_$tag.ncu-rep" --page source --csv --print-source sass > "$work/ncu_src_$tag.csv" 2>&1
  rm -f "$work/ncu_$tag.ncu-rep"
done
rm -rf "$work/cache"
# Samples per code region (setup, main loop, epilogue, producer) of each kernel.
python3 "$(dirname "$0")/ncu_regions.py" "$work"/ncu_src_*.csv > "$work/regions.txt" 2>&1
tar czf "$out/profile.tgz" -C "$work" .
grep -h "Duration\|Compute (SM) Throughput" "$work"/ncu_*.txt
cat "$work/regions.txt"
echo "profile: $out/profile.tgz"

#!/bin/bash
# SPDX-License-Identifier: MIT
# Build and run on the device machine: bash run_device.sh [extra nvcc flags]
set -o pipefail
cd "$(dirname "$0")"
OUTDIR=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
if [ -n "$HOPPER_SANITIZE" ]; then
  # compute-sanitizer on a small shape with partial tiles in M, N and K (no watchdog: instrumented
  # waits are slow), fp16, 3 timed repetitions; then stop.
  nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -lineinfo -DHOPPER_WATCHDOG=0 -o hopper_gemm_san hopper_gemm.cu -lcublas || exit 1
  for tool in memcheck synccheck racecheck; do
    echo "== $tool"
    HOPPER_REPS=3 HOPPER_DTYPE=fp16 timeout 150 compute-sanitizer --tool $tool --print-limit 5 ./hopper_gemm_san ${HOPPER_SAN_SHAPE:-320 704 200} 2>&1 | grep -vE "^fp16 |^dtype|^$" | tail -15
  done
  exit 0
fi
time nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -Xptxas -v "$@" -o hopper_gemm hopper_gemm.cu -lcublas > "$OUTDIR/build.log" 2>&1 || { cat "$OUTDIR/build.log"; exit 1; }
grep -E "spill|Used" "$OUTDIR/build.log" | sort | uniq -c | head
cuobjdump -sass hopper_gemm > "$OUTDIR/sass.txt" 2>/dev/null && echo "HGMMA in SASS: $(grep -c HGMMA "$OUTDIR/sass.txt")  HMMA: $(grep -c ' HMMA' "$OUTDIR/sass.txt")"
if [ -n "$HOPPER_SMOKE" ]; then
  # Quick check of the configurations named by HOPPER_SMOKE at one shape; skip them if it fails.
  HOPPER_ONLY="$HOPPER_SMOKE" timeout 60 ./hopper_gemm 2048 2048 2048 || export HOPPER_SKIP="$HOPPER_SMOKE"
fi
timeout ${HOPPER_TIMEOUT:-300} ./hopper_gemm ${HOPPER_ARGS} 2>&1 | tee "$OUTDIR/run.log"
if [ -n "$HOPPER_NCU" ]; then
  # One launch of the first configuration (plain product) at 4096^3 fp16.
  HOPPER_DTYPE=fp16 timeout 120 ncu --kernel-name regex:gemm_kernel --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats ./hopper_gemm 4096 4096 4096 > "$OUTDIR/ncu.txt" 2>&1
  grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Issue Slots Busy|Executed Ipc A|No Eligible|Stall|Warp Cycles Per Issued|One or More" "$OUTDIR/ncu.txt" | head -40
fi
if [ -n "$HOPPER_SWEEP" ]; then
  # Group-M rasterization width, 128x256 cooperative without clusters, fp16 8192^3 and 4096^3.
  for shp in "8192 8192 8192" "4096 4096 4096"; do
    for g in 4 8 16 32; do
      echo -n "group_m $g: "
      HOPPER_GROUP_M=$g HOPPER_ONLY="s4 c1" HOPPER_DTYPE=fp16 timeout 60 ./hopper_gemm $shp | grep "^fp16 " | head -1
    done
  done 2>&1 | tee "$OUTDIR/sweep.log"
fi

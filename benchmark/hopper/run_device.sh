#!/bin/bash
# SPDX-License-Identifier: MIT
# Build and run on the device machine: bash run_device.sh [extra nvcc flags]
set -o pipefail
cd "$(dirname "$0")"
OUTDIR=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
time nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -Xptxas -v "$@" -o hopper_gemm hopper_gemm.cu -lcublas -lcuda > "$OUTDIR/build.log" 2>&1 || { cat "$OUTDIR/build.log"; exit 1; }
grep -E "spill|Used" "$OUTDIR/build.log" | sort | uniq -c | head
cuobjdump -sass hopper_gemm > "$OUTDIR/sass.txt" 2>/dev/null && echo "HGMMA in SASS: $(grep -c HGMMA "$OUTDIR/sass.txt")  HMMA: $(grep -c ' HMMA' "$OUTDIR/sass.txt")"
timeout ${HOPPER_TIMEOUT:-300} ./hopper_gemm ${HOPPER_ARGS} 2>&1 | tee "$OUTDIR/run.log"

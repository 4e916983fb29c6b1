#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Warp-stall samples of a Hopper GEMM kernel by code region, from ncu's source page.

Input: `ncu -i REPORT --page source --csv --print-source sass > FILE.csv` (tools/profile_fusion.sh
writes these as ncu_src_<benchmark>.csv). The regions follow the kernel's SASS (templates/gemm/
wgmma/device_code.hpp): the producer starts at `USETMAXREG.DEALLOC`; a consumer's main loop runs
from the mbarrier wait before its first HGMMA to the `WARPGROUP.DEPBAR.LE gsb0, 0x0` after its last;
the epilogue follows it up to the producer; `setup` is what comes before the main loop (the unit's
bias and chain prefetch, and ping-pong's turn barrier, whose samples are `stall_barrier`).
Prints per region the samples (and share), the executed warp instructions and the top stall reasons.
Usage: tools/ncu_regions.py FILE.csv [FILE.csv ...]
"""
import collections
import csv
import sys


def regions(rows):
    src = [r["Source"].strip() for r in rows]
    hgmma = [i for i, s in enumerate(src) if s.startswith("HGMMA") or " HGMMA" in s]
    producer = next((i for i, s in enumerate(src) if "USETMAXREG.DEALLOC" in s), len(src))
    if not hgmma:
        return [("kernel", 0, len(src))]
    waits = [i for i in range(hgmma[0]) if "TRYWAIT" in src[i]]
    start = waits[-1] if waits else hgmma[0]
    end = next((i + 1 for i in range(hgmma[-1], len(src)) if "DEPBAR.LE gsb0, 0x0" in src[i]), hgmma[-1] + 1)
    out = [("setup", 0, start), ("main loop", start, end), ("epilogue", end, producer), ("producer", producer, len(src))]
    return [r for r in out if r[2] > r[1]]


def summarize(path):
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith('"Kernel Name"')]
    rows = list(csv.DictReader(lines))
    if not rows or "Source" not in rows[0]:  # the export failed: ncu printed an error instead
        print(f"{path}: no source page")
        return
    stalls = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
    num = lambda v: int(float(v)) if v not in ("", "-") else 0
    total = sum(num(r["Warp Stall Sampling (All Samples)"]) for r in rows) or 1
    print(f"{path}: {total} samples, {len(rows)} instructions")
    for name, a, b in regions(rows):
        part = rows[a:b]
        samples = sum(num(r["Warp Stall Sampling (All Samples)"]) for r in part)
        executed = sum(num(r["Instructions Executed"]) for r in part)
        reasons = collections.Counter({k: sum(num(r[k]) for r in part) for k in stalls})
        top = ", ".join(f"{k[6:]} {v}" for k, v in reasons.most_common(4) if v)
        print(f"  {name:10s} [{a:5d}, {b:5d}) {samples:6d} samples {100 * samples / total:5.1f}%"
              f"  {executed:10d} warp instructions  {top}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        summarize(p)

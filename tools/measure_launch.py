#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Issue 9 figures on the GPU machine: cold and warm tune of the README main job (fp16 4096^3 + bias
# + relu, 32 candidates), device-only (the default: NVRTC code objects through the module API, the
# helper kernels and the reference included) and with --shared-libraries (every build a .so called
# through its C entry).
#
# Each cold run gets an empty cache root (ROCMTPL_CACHE_DIR: kernel cache, tuning database, device
# identity, compiler versions, NVRTC stand-in headers), as a first run on a fresh machine has; the
# warm run reuses the last cold run's root. Prints per run: process wall, tune wall, the tune's
# timeline (report.timeline: when the helpers were ready, the reference ran, the first candidate
# was measured, the last compile and the last measurement finished), compile statistics, statuses
# and the winner; then the median cold process wall against the goal (<= 2.5 s).
#
# Usage (repo root, after a Release build of rocmtpl-tune and rocmtpl-bench-worker):
#   OUT=out BUILD=build/release tools/measure_launch.py [--runs 3] [--modes device_only,shared_libraries]
# JSON reports and logs are written to $OUT.
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=3, help="cold runs per mode")
ap.add_argument("--modes", default="device_only,shared_libraries")
ap.add_argument("--goal", type=float, default=2.5, help="cold process wall goal in seconds (device-only)")
args = ap.parse_args()

out = os.environ.get("OUT", "out")
os.makedirs(out, exist_ok=True)
build = os.environ.get("BUILD", "build/release")
tune = os.path.join(build, "tools", "rocmtpl-tune")
job = ["gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "f16", "--bias", "--epilogue", "relu",
       "--top-k", "32"]
if os.path.isdir(".deps/include"):
    os.environ.setdefault("ROCMTPL_EXTRA_INCLUDE_DIR", os.path.abspath(".deps/include"))


def run(mode, phase, root, extra):
    env = dict(os.environ, ROCMTPL_CACHE_DIR=root)
    tag = "%s_%s" % (mode, phase)
    report_file = os.path.join(out, "tune_%s.json" % tag)
    t0 = time.time()
    r = subprocess.run([tune] + job + extra + ["--json", report_file], env=env, capture_output=True, text=True)
    wall = time.time() - t0
    with open(os.path.join(out, "tune_%s.txt" % tag), "w") as f:
        f.write(r.stdout + r.stderr)
    try:
        with open(report_file) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        print(tag, "rc", r.returncode, "no report:", e, (r.stdout + r.stderr)[-1500:])
        return None
    cs = rep["candidates"]
    compiles = [c["compile_seconds"] for c in cs if not c["compile_cached"] and c["compile_seconds"] > 0]
    statuses = {}
    for c in cs:
        statuses[c["measurement"]["status"]] = statuses.get(c["measurement"]["status"], 0) + 1
    verified = sum(1 for c in cs if c["measurement"].get("verified"))
    code_objects = sum(1 for c in cs if c.get("code_object"))
    best = [c for c in cs if c["id"] == rep["winner"]]
    tl = rep.get("timeline", {})
    print("%s: process %.2f s, tune %.3f s, compiled %d, benchmarked %d, %s, verified %d/%d, code objects %d, "
          "mean compile %.2f s (max %.2f), winner %s %.4f ms" %
          (tag, wall, rep["wall_seconds"], rep["compiled"], rep["benchmarked"], statuses, verified, len(cs),
           code_objects, sum(compiles) / len(compiles) if compiles else 0, max(compiles) if compiles else 0,
           best[0]["config"] if best else None, best[0]["measurement"]["min_ms"] if best else 0))
    if tl and not rep["from_database"]:
        print("    timeline (s): compiles started %.3f, helpers ready %.3f, reference ran %.3f, first measured %.3f, "
              "last compile %.3f, last measured %.3f" %
              (tl["compiles_started"], tl["helpers_ready"], tl["reference_ready"], tl["first_measured"],
               tl["compiles_done"], tl["measured_done"]))
    return wall


for mode in args.modes.split(","):
    extra = ["--shared-libraries"] if mode == "shared_libraries" else []
    colds = []
    root = None
    for i in range(args.runs):
        root = tempfile.mkdtemp(prefix="rocmtpl-%s-" % mode)
        w = run(mode, "cold%d" % i, root, extra)
        if w is not None:
            colds.append(w)
    if root is not None:
        run(mode, "warm", root, extra)
    if colds:
        med = statistics.median(colds)
        verdict = ""
        if mode == "device_only":
            verdict = " -> goal <= %.1f s: %s" % (args.goal, "met" if med <= args.goal else "MISSED")
        print("%s: cold process wall median %.2f s over %d runs (%s)%s" %
              (mode, med, len(colds), ", ".join("%.2f" % c for c in colds), verdict))

test = os.path.join(build, "test", "runtime_module_launcher_test")
if os.path.exists(test):
    r = subprocess.run([test, "--gtest_filter=*Cubin*"], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("sm_90a"):
            print("one candidate alone:", line)

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Issue 9 part 4 figures on the GPU machine, after tools/gpu_check.sh has built build/gpu:
# - cold and warm tune of the README main job (fp16 4096^3 + bias + relu, 32 candidates, empty
#   cache), device-only (the default: NVRTC code objects through the module API) and with
#   --shared-libraries (each candidate's C entry), with the mean per-candidate compile time;
# - one candidate's compile alone as a shared library, with NVRTC and with nvcc -cubin (printed by
#   the module-launcher test).
# Usage: OUT=<folder> tools/measure_launch.py   (JSON reports and logs are written there)
import json
import os
import subprocess
import tempfile
import time

out = os.environ.get("OUT", "out")
os.makedirs(out, exist_ok=True)
build = "build/gpu"
tune = os.path.join(build, "tools", "rocmtpl-tune")
job = ["gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "f16", "--bias", "--epilogue", "relu",
       "--top-k", "32"]
os.environ.setdefault("ROCMTPL_EXTRA_INCLUDE_DIR", os.path.abspath(".deps/include"))

for mode, extra in (("device_only", []), ("shared_libraries", ["--shared-libraries"])):
    env = dict(os.environ, ROCMTPL_CACHE_DIR=tempfile.mkdtemp(prefix="rocmtpl-" + mode + "-"))
    for phase in ("cold", "warm"):
        report_file = os.path.join(out, "tune_%s_%s.json" % (mode, phase))
        t0 = time.time()
        r = subprocess.run([tune] + job + extra + ["--json", report_file], env=env, capture_output=True, text=True)
        wall = time.time() - t0
        with open(os.path.join(out, "tune_%s_%s.txt" % (mode, phase)), "w") as f:
            f.write(r.stdout + r.stderr)
        try:
            with open(report_file) as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            print(mode, phase, "rc", r.returncode, "no report:", e, (r.stdout + r.stderr)[-1500:])
            continue
        cs = rep["candidates"]
        compiles = [c["compile_seconds"] for c in cs if not c["compile_cached"] and c["compile_seconds"] > 0]
        statuses = {}
        for c in cs:
            statuses[c["measurement"]["status"]] = statuses.get(c["measurement"]["status"], 0) + 1
        best = [c for c in cs if c["id"] == rep["winner"]]
        print("%s %s: process %.2f s, tune %.4f s, compiled %d, benchmarked %d, %s, mean compile %.2f s "
              "(max %.2f), winner %s %.4f ms" %
              (mode, phase, wall, rep["wall_seconds"], rep["compiled"], rep["benchmarked"], statuses,
               sum(compiles) / len(compiles) if compiles else 0, max(compiles) if compiles else 0,
               best[0]["config"] if best else None, best[0]["measurement"]["min_ms"] if best else 0))

test = os.path.join(build, "test", "runtime_module_launcher_test")
if os.path.exists(test):
    r = subprocess.run([test, "--gtest_filter=*Cubin*"], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("sm_90a"):
            print("one candidate alone:", line)

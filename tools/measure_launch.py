#!/usr/bin/env python3
# Issue 9 part 4 figures on the GPU machine: cold and warm tune of the README main job, device-only
# (default) and with --shared-libraries, and one candidate's compile alone, both ways.
import json, os, subprocess, sys, tempfile, time, glob, shutil
out = os.environ.get("OUT", "out")
tune = "build/gpu/tools/rocmtpl-tune"
args = ["gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "f16", "--bias", "--epilogue", "relu", "--top-k", "32"]
os.environ["ROCMTPL_EXTRA_INCLUDE_DIR"] = os.path.abspath(".deps/include")
caches = {}
for mode, extra in (("co", []), ("so", ["--shared-libraries"])):
    d = tempfile.mkdtemp(prefix="rocmtpl-cold-" + mode + "-")
    caches[mode] = d
    env = dict(os.environ, ROCMTPL_CACHE_DIR=d)
    for phase in ("cold", "warm"):
        j = os.path.join(out, "tune_%s_%s.json" % (mode, phase))
        t0 = time.time()
        r = subprocess.run([tune] + args + extra + ["--json", j], env=env, capture_output=True, text=True)
        wall = time.time() - t0
        open(os.path.join(out, "tune_%s_%s.txt" % (mode, phase)), "w").write(r.stdout + r.stderr)
        try:
            rep = json.load(open(j))
        except Exception as e:
            print(mode, phase, "rc", r.returncode, "no json", e, (r.stdout + r.stderr)[-1500:]); continue
        cs = rep["candidates"]
        comp = [c["compile_seconds"] for c in cs if not c["compile_cached"] and c["compile_seconds"] > 0]
        st = {}
        for c in cs: st[c["measurement"]["status"]] = st.get(c["measurement"]["status"], 0) + 1
        best = [c for c in cs if c["id"] == rep["winner"]]
        print("%s %s: process %.2f s, report wall %.4f s, compiled %d, benchmarked %d, statuses %s, mean compile %.2f s (max %.2f), winner %s %.4f ms code_object=%s" % (
            mode, phase, wall, rep["wall_seconds"], rep["compiled"], rep["benchmarked"], st,
            sum(comp) / len(comp) if comp else 0, max(comp) if comp else 0,
            best[0]["config"] if best else None, best[0]["measurement"]["min_ms"] if best else 0, best[0]["code_object"] if best else None))
        if phase == "cold" and r.returncode != 0: print((r.stdout + r.stderr)[-2000:])
# One candidate alone: rerun a cached compile command (the winner's source) each way.
for mode, art in (("co", "code.co"), ("so", "lib.so")):
    metas = sorted(glob.glob(os.path.join(caches[mode], "kernels", "so", "*", "*", "meta.json")))
    for m in metas:
        meta = json.load(open(m))
        argv = meta["argv"]
        if "-cubin" not in argv and mode == "co": continue
        if "-shared" not in argv and mode == "so": continue
        if not any("source.hip" in a for a in argv): continue
        src = [a for a in argv if a.endswith("source.hip")][0]
        if "rocmtpl_fill_uniform" in open(src).read() or "_reference" in open(src).read()[:400]: continue
        o = argv.index("-o")
        tmpd = tempfile.mkdtemp()
        argv2 = list(argv); argv2[o + 1] = os.path.join(tmpd, art)
        if "-MF" in argv2: argv2[argv2.index("-MF") + 1] = os.path.join(tmpd, "deps.d")
        ts = []
        for _ in range(3):
            t0 = time.time(); r = subprocess.run(argv2, capture_output=True, text=True, cwd=tmpd); ts.append(time.time() - t0)
        print("one candidate alone, %s: %s s (rc %d) %s" % (mode, " ".join("%.2f" % t for t in ts), r.returncode, " ".join(argv2[:6])))
        break

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch Inductor side by side with rocmtpl (issue 10): relu(mm) and relu(mm + bias).

For each shape (M x N x K, row-major X [M, K], W [K, N], bias [N]) and dtype, times on the GPU:
  cublas_mm    torch.mm alone (cuBLAS; fp32 without TF32),
  eager        torch.relu(torch.mm(x, w)) / torch.relu(torch.addmm(bias, x, w)) (cuBLAS + a relu kernel),
  inductor     the same function through torch.compile(mode="max-autotune", dynamic=False),
and the wall time of the compiled function's first call (compile + autotune) from an empty Inductor
cache. The README's main job is fp16 4096^3 relu(mm + bias), compiled first (its time includes
Inductor's one-time start-up in the process, as a user's first compile does); its compile/tune wall
time is printed last. Timing: CUDA events around batches of back-to-back calls (about 1 ms of GPU work per batch,
as benchmark/gemm_runtime_bench.cpp does), `--reps` batches after `--warmup` calls, the median of
the batch means; no L2 flush unless --flush (then every call is timed alone after a 256 MB write).

Run on the H100 box (PyTorch in python3, no network), from the repository root:
    python3 benchmark/inductor_relu_mm.py                      # f16 and f32 at 4096^3 (~1-2 min)
    python3 benchmark/inductor_relu_mm.py --shapes all         # the 7 shapes of issue 10 (~28 compiles)
    python3 benchmark/inductor_relu_mm.py --shapes 4096,1024 --dtypes f16,bf16 --ops relu_mm
A shape is N (N^3) or MxNxK. --keep-cache reuses the Inductor cache of earlier runs (then the
compile column is a warm start, not a cold tune).
"""

import argparse
import math
import os
import statistics
import sys
import tempfile
import time

SEVEN = ["1024", "2048", "4096", "8192", "1000x3000x700", "4096x11008x4096", "8192x1024x8192"]
DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}


def parse_shape(text):
    parts = [int(p) for p in text.lower().split("x")]
    if len(parts) == 1:
        return (parts[0],) * 3
    if len(parts) != 3:
        raise SystemExit(f"inductor_relu_mm: shape '{text}': write N or MxNxK")
    return tuple(parts)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", default="4096", help="comma-separated N or MxNxK, or 'all' (the 7 of issue 10)")
    p.add_argument("--dtypes", default="f16,f32", help="comma-separated f16, bf16, f32")
    # relu_addmm first: the README job's compile is then the first of its shape and dtype (a cold tune,
    # not one that reuses the mm autotuning of relu_mm).
    p.add_argument("--ops", default="relu_addmm,relu_mm", help="relu_addmm (relu(mm + bias)), relu_mm")
    p.add_argument("--reps", type=int, default=30, help="timed batches per measurement")
    p.add_argument("--warmup", type=int, default=10, help="calls before timing")
    p.add_argument("--flush", action="store_true", help="flush L2 before every timed call (calls timed alone)")
    p.add_argument("--keep-cache", action="store_true", help="reuse the Inductor cache (no cold tune)")
    args = p.parse_args()
    args.shapes = [parse_shape(s) for s in (SEVEN if args.shapes == "all" else args.shapes.split(","))]
    args.dtypes = [d.strip() for d in args.dtypes.split(",")]
    for d in args.dtypes:
        if d not in DTYPES:
            raise SystemExit(f"inductor_relu_mm: dtype '{d}': use f16, bf16 or f32")
    args.ops = [o.strip() for o in args.ops.split(",")]
    for o in args.ops:
        if o not in ("relu_mm", "relu_addmm"):
            raise SystemExit(f"inductor_relu_mm: op '{o}': use relu_mm or relu_addmm")
    return args


def main():
    args = parse_args()
    if not args.keep_cache:
        # A fresh Inductor cache (FX graphs, autotune results, Triton kernels): the first call is a cold tune.
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor_relu_mm_")
        os.environ["TRITON_CACHE_DIR"] = os.path.join(os.environ["TORCHINDUCTOR_CACHE_DIR"], "triton")
    import torch  # after the cache variables

    if not torch.cuda.is_available():
        print("inductor_relu_mm: no CUDA device; nothing to time", file=sys.stderr)
        return 1
    # fp32 without TF32 on every side (rocmtpl's SIMT path and the cuBLAS baseline of issue 10).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(dev)}, CUDA {torch.version.cuda}; "
          f"reps {args.reps}, warmup {args.warmup}, L2 flush {'on' if args.flush else 'off'}, "
          f"Inductor cache {'kept' if args.keep_cache else 'fresh: ' + os.environ['TORCHINDUCTOR_CACHE_DIR']}",
          flush=True)
    flush_buf = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=dev) if args.flush else None

    def time_ms(fn):
        for _ in range(args.warmup):
            fn()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if flush_buf is not None:
            samples = []
            for _ in range(args.reps):
                flush_buf.zero_()
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                samples.append(start.elapsed_time(stop))
            return statistics.median(samples)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        inner = max(1, min(50, math.ceil(1.0 / max(start.elapsed_time(stop), 1e-3))))
        samples = []
        for _ in range(args.reps):
            start.record()
            for _ in range(inner):
                fn()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) / inner)
        return statistics.median(samples)

    rows = []
    readme_compile = None
    for (m, n, k) in args.shapes:
        for dname in args.dtypes:
            dt = getattr(torch, DTYPES[dname])
            g = torch.Generator(device=dev).manual_seed(m * 31 + n * 7 + k)
            x = (torch.rand(m, k, device=dev, generator=g, dtype=torch.float32) * 2 - 1).to(dt)
            w = (torch.rand(k, n, device=dev, generator=g, dtype=torch.float32) * 2 - 1).to(dt)
            bias = (torch.rand(n, device=dev, generator=g, dtype=torch.float32) * 2 - 1).to(dt)
            mm_ms = time_ms(lambda: torch.mm(x, w))
            for op in args.ops:
                if op == "relu_mm":
                    def f(a, b, c):
                        return torch.relu(torch.mm(a, b))
                else:
                    def f(a, b, c):
                        return torch.relu(torch.mm(a, b) + c)
                eager_ms = time_ms(lambda: f(x, w, bias))
                torch._dynamo.reset()
                compiled = torch.compile(f, mode="max-autotune", dynamic=False, fullgraph=True)
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                out = compiled(x, w, bias)
                torch.cuda.synchronize()
                compile_s = time.perf_counter() - t0
                ref = f(x.float(), w.float(), bias.float())
                err = ((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
                ind_ms = time_ms(lambda: compiled(x, w, bias))
                rows.append((m, n, k, dname, op, mm_ms, eager_ms, ind_ms, compile_s, err))
                if (m, n, k, dname, op) == (4096, 4096, 4096, "f16", "relu_addmm"):
                    readme_compile = compile_s
                print(f"  {dname} {m}x{n}x{k} {op}: inductor {ind_ms:.4f} ms, compile+tune {compile_s:.1f} s",
                      file=sys.stderr, flush=True)
            del x, w, bias

    flop = lambda r: 2.0 * r[0] * r[1] * r[2]
    print()
    print("| dtype | M x N x K | op | torch.mm (cuBLAS) ms | eager ms | Inductor max-autotune ms | Inductor TFLOP/s "
          "| Inductor / cuBLAS mm | compile+tune s | rel. error |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        m, n, k, dname, op, mm_ms, eager_ms, ind_ms, compile_s, err = r
        opname = "relu(mm)" if op == "relu_mm" else "relu(mm + bias)"
        print(f"| {dname} | {m}x{n}x{k} | {opname} | {mm_ms:.4f} | {eager_ms:.4f} | {ind_ms:.4f} | "
              f"{flop(r) / (ind_ms * 1e-3) / 1e12:.1f} | {mm_ms / ind_ms:.3f} | {compile_s:.1f} | {err:.1e} |")
    if readme_compile is not None:
        print(f"\nREADME main job (f16 4096^3 relu(mm + bias)): Inductor max-autotune compile + tune wall time "
              f"{readme_compile:.1f} s ({'warm cache' if args.keep_cache else 'cold: empty Inductor cache'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

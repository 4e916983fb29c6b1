#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The vendor library and PyTorch Inductor on issue 12's fused module, for scale.

y = gelu(x @ w + bias[N]) * d[M, N] (fp16, default 4096 x 4096 x 1024; gelu the erf form), and the
plain h = x @ w of the same shape. Times on the GPU:
  mm               torch.mm (cuBLAS): the plain GEMM, the floor every fused kernel is measured against,
  addmm_gelu       torch._addmm_activation(bias, x, w, use_gelu=True): cuBLASLt's fused bias + gelu
                   epilogue (its gelu is the tanh form), without the multiply by d,
  eager            gelu(addmm(bias, x, w)) * d: cuBLAS, then PyTorch's pointwise kernels,
  inductor_mm      torch.mm through torch.compile (max-autotune): Inductor's own plain GEMM,
  inductor_fused   the whole chain through torch.compile (max-autotune): Inductor's fused kernel
                   (checked against eager in fp32).
Inductor compiles with mode="max-autotune-no-cudagraphs" (max-autotune's kernels, no CUDA graphs of
its own). Timing: every row's 20 back-to-back calls captured into one CUDA graph, CUDA events around
each replay, the median over `--reps` replays after `--warmup` calls: GPU time, without the Python
and launch overhead that would otherwise dominate a compiled function's 60-100 us. The Inductor
cache starts empty.

Run on the H100 box (PyTorch in python3, no network), from the repository root:
    python3 benchmark/inductor_fused_gemm.py [--shape 4096x4096x1024] [--dtype f16|bf16]
"""

import argparse
import os
import statistics
import sys
import tempfile


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", default="4096x4096x1024", help="MxNxK")
    p.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=10)
    args = p.parse_args()
    m, n, k = (int(v) for v in args.shape.lower().split("x"))
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor_fused_gemm_")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(os.environ["TORCHINDUCTOR_CACHE_DIR"], "triton")
    import torch  # after the cache variables
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        print("inductor_fused_gemm: no CUDA device; nothing to time", file=sys.stderr)
        return 1
    dev = torch.device("cuda")
    dt = torch.float16 if args.dtype == "f16" else torch.bfloat16
    g = torch.Generator(device=dev).manual_seed(1)
    x = torch.randn(m, k, device=dev, dtype=dt, generator=g) * 0.1
    w = torch.randn(k, n, device=dev, dtype=dt, generator=g) * 0.1
    bias = torch.randn(n, device=dev, dtype=dt, generator=g)
    d = torch.randn(m, n, device=dev, dtype=dt, generator=g)

    def chain(x, w, bias, d):
        return F.gelu(torch.addmm(bias, x, w)) * d

    def plain(x, w):
        return torch.mm(x, w)

    def time_us(fn):
        # Captured into a CUDA graph of `inner` calls and replayed: GPU time only, no Python or
        # launch overhead (a compiled function's wrapper costs more CPU time than its kernel runs).
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(args.warmup):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        inner = 20
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(inner):
                fn()
        graph.replay()
        torch.cuda.synchronize()
        samples = []
        for _ in range(args.reps):
            start.record()
            graph.replay()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) / inner)
        return statistics.median(samples) * 1e3

    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(dev)}, CUDA {torch.version.cuda}; "
          f"{args.dtype} {m} x {n} x {k}; reps {args.reps}, warmup {args.warmup}", flush=True)
    fused = torch.compile(chain, mode="max-autotune-no-cudagraphs", dynamic=False)
    mm_c = torch.compile(plain, mode="max-autotune-no-cudagraphs", dynamic=False)
    ref = chain(x.float(), w.float(), bias.float(), d.float())
    got = fused(x, w, bias, d).float()
    err = ((got - ref).norm() / ref.norm()).item()
    eager_err = ((chain(x, w, bias, d).float() - ref).norm() / ref.norm()).item()
    rows = [
        ("mm", lambda: plain(x, w)),
        ("addmm_gelu", lambda: torch._addmm_activation(bias, x, w, use_gelu=True)),
        ("eager", lambda: chain(x, w, bias, d)),
        ("inductor_mm", lambda: mm_c(x, w)),
        ("inductor_fused", lambda: fused(x, w, bias, d)),
    ]
    times = {}
    for name, fn in rows:
        times[name] = time_us(fn)
    # The first row again: the card's clocks drift within a run.
    times["mm"] = min(times["mm"], time_us(rows[0][1]))
    flops = 2.0 * m * n * k
    print(f"{'what':<16} {'us':>8} {'TFLOP/s':>8} {'over mm':>8}")
    for name, _ in rows:
        us = times[name]
        print(f"{name:<16} {us:8.1f} {flops / us / 1e6:8.1f} {100.0 * (us / times['mm'] - 1.0):+7.1f}%")
    print(f"inductor_fused over inductor_mm: {100.0 * (times['inductor_fused'] / times['inductor_mm'] - 1.0):+.1f}%")
    print(f"relative error against fp32: inductor_fused {err:.2e}, eager {eager_err:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

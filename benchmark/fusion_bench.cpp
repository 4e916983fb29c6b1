// SPDX-License-Identifier: MIT
// Epilogue fusion speed on the GPU (issue 12), in one program: the module
//   y = gelu(x @ w + bias[N]) * d[M, N]          (fp16, M = N = 4096, K = 1024)
// fused (one kernel: the GEMM applies the chain per output element) against the same module
// unfused (the GEMM, then a pointwise kernel over h), the plain GEMM module h = x @ w of the
// same shape and configuration (the cost floor of the fused kernel), and cuBLAS's h = x @ w
// (cublasGemmEx, dlopen'ed, fp32 accumulation) in the same process. The GEMM configuration is the
// autotuned winner of the plain GEMM (ROCMTPL_FUSION_CANDIDATES, default 8, first ranked
// configurations; on an H100 the Hopper ones lead), used by all three modules.
// Times: GPU events around batches of back-to-back module runs; Time is per run (manual time).
// Counters: TFLOP/s of the GEMM part; the summary prints fused/unfused speed-up and the fused
// overhead over the plain GEMM (issue 12's figures: >= 1.3x and <= 5%), and over cuBLAS's GEMM.
// Run: build/release/benchmark/fusion_bench
#include <rocmtpl/runtime.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/cublas.hpp"
#include "support/fusion.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
namespace fu = rocmtpl::test::fusion;

constexpr std::int64_t m_size = 4096, n_size = 4096, k_size = 1024;

struct prepared {
  std::string error;
  std::string config;
  std::optional<loaded_module> fused, unfused, plain;
  std::map<std::string, std::shared_ptr<device_buffer>> buffers;  // by graph name
  std::shared_ptr<device_buffer> workspace;
};

fu::gemm_problem problem() {
  fu::gemm_problem p;
  p.type = dtype::f16;
  p.m = sym_expr(m_size);
  p.n = sym_expr(n_size);
  p.k = sym_expr(k_size);
  p.hints = {};
  return p;
}

// The plain GEMM's autotuned configuration.
templates::gemm_config tune(const fu::gemm_problem& p) {
  rocm_template<templates::gemm_policy> t(
      templates::gemm_policy(),
      {buffer("x", layout::row_major(p.type, {p.m, p.k})), buffer("w", layout::row_major(p.type, {p.k, p.n}))},
      layout::row_major(p.type, {p.m, p.n}));
  autotune_options o;
  const char* env = std::getenv("ROCMTPL_FUSION_CANDIDATES");
  o.max_candidates = env != nullptr ? std::stoul(env) : 8;
  o.progress = false;
  o.verify = false;  // test/gpu/fusion_gpu_test.cpp verifies the paths
  const auto report = autotune(t, {}, o);
  if (report.best() == nullptr) throw std::runtime_error("no GEMM candidate ran: " + report.summary());
  const auto ranked = t.policy().configs(t.context(), {});
  return ranked.at(*report.winner);
}

module_source plain_module(const fu::gemm_problem& p) {
  const buffer x("x", layout::row_major(p.type, {p.m, p.k}));
  const buffer w("w", layout::row_major(p.type, {p.k, p.n}));
  rocm_template<templates::gemm_policy> t(templates::gemm_policy(p.options), {x, w},
                                          layout::row_major(p.type, {p.m, p.n}));
  module_graph g("plain_gemm");
  g.add_input(x).add_input(w);
  g.add_node("h", t.generate(p.config, p.hints).output_node());
  g.add_output("h");
  module_options o;
  o.standalone_runner = false;
  return emit_module(g, o);
}

prepared& setup() {
  static prepared s = [] {
    prepared out;
    try {
      auto p = problem();
      p.config = tune(p);
      out.config = p.config.name();
      const auto& rt = gpu_runtime::instance();
      const auto opts = compile_options_for(rt.properties(rt.current_device()));
      const auto cc = compiler::find(opts.platform);
      code_cache cache;
      const auto fused_src = fu::emit_chain_module("fusion_fused", p, {fu::bias_gelu_mul()}, p.type, true);
      if (fused_src.calls.size() != 1) throw std::runtime_error("not fused: " + fused_src.notes.at(0));
      out.fused.emplace(loaded_module::compile(fused_src, cc, opts, cache));
      out.unfused.emplace(loaded_module::compile(
          fu::emit_chain_module("fusion_unfused", p, {fu::bias_gelu_mul()}, p.type, false), cc, opts, cache));
      out.plain.emplace(loaded_module::compile(plain_module(p), cc, opts, cache));
      std::mt19937 rng(1);
      std::uniform_int_distribution<int> d(-64, 64);
      auto upload = [&](const buffer& b) {
        const auto n = static_cast<std::size_t>(b.get_layout().numel().evaluate({}));
        std::vector<std::uint16_t> h(n);
        for (auto& v : h) v = static_cast<std::uint16_t>(d(rng) == 0 ? 0 : 0x2000 + (d(rng) & 0x3ff));  // small f16
        auto buf = std::make_shared<device_buffer>(n * 2);
        buf->copy_from_host(h.data());
        return buf;
      };
      for (const auto& b : fused_src.inputs) {
        if (b.type() == dtype::f32) {
          const auto n = static_cast<std::size_t>(b.get_layout().numel().evaluate({}));
          std::vector<float> h(n, 0.25F);
          out.buffers[b.name()] = std::make_shared<device_buffer>(n * 4);
          out.buffers[b.name()]->copy_from_host(h.data());
        } else {
          out.buffers[b.name()] = upload(b);
        }
      }
      out.buffers["y"] = std::make_shared<device_buffer>(static_cast<std::size_t>(m_size * n_size) * 2);
      out.buffers["h"] = std::make_shared<device_buffer>(static_cast<std::size_t>(m_size * n_size) * 2);
      const std::size_t ws = std::max({out.fused->workspace_size({}), out.unfused->workspace_size({}),
                                       out.plain->workspace_size({}), std::size_t{1}});
      out.workspace = std::make_shared<device_buffer>(ws);
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    return out;
  }();
  return s;
}

std::map<std::string, double>& results() {
  static std::map<std::string, double> r;
  return r;
}

// Times `launch` on `st`: GPU events around 20 back-to-back launches per iteration; returns the
// mean per launch (ms) and sets the ms and TFLOP/s counters.
template <typename F>
double time_launches(benchmark::State& state, const runtime::stream& st, F&& launch) {
  event start, stop;
  launch();
  st.synchronize();
  constexpr int reps = 20;
  double total = 0;
  std::int64_t runs = 0;
  for (auto _ : state) {
    start.record(st.get());
    for (int r = 0; r < reps; ++r) launch();
    stop.record(st.get());
    const double ms = static_cast<double>(stop.elapsed_ms_since(start)) / reps;
    state.SetIterationTime(ms * 1e-3);
    total += ms;
    ++runs;
  }
  const double ms = total / static_cast<double>(std::max<std::int64_t>(runs, 1));
  state.counters["ms"] = ms;
  state.counters["TFLOP/s"] = 2.0 * m_size * n_size * k_size / (ms * 1e-3) / 1e12;
  return ms;
}

void run_module(benchmark::State& state, const std::string& which) {
  auto& s = setup();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  const loaded_module& mod = which == "fused" ? *s.fused : (which == "unfused" ? *s.unfused : *s.plain);
  std::vector<const void*> in{s.buffers["x"]->get(), s.buffers["w"]->get()};
  std::vector<void*> out{s.buffers["h"]->get()};
  if (which != "plain_gemm") {
    in.push_back(s.buffers["bias"]->get());
    in.push_back(s.buffers["d"]->get());
    out = {s.buffers["y"]->get()};
  }
  runtime::stream st;
  auto launch = [&] { mod.run(in, out, {}, s.workspace->get(), st.get()); };
  results()[which] = time_launches(state, st, launch);
  state.SetLabel(s.config);
}

// cuBLAS's h = x @ w on the same inputs, timed the same way.
void run_cublas(benchmark::State& state) {
  auto& s = setup();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  const auto& blas = test::cublas::instance();
  if (!blas.available()) {
    state.SkipWithError(blas.status().c_str());
    return;
  }
  runtime::stream st;
  blas.set_stream(st.get());
  int rc = 0;
  auto launch = [&] {
    rc |= blas.gemm_row_major(static_cast<int>(m_size), static_cast<int>(n_size), static_cast<int>(k_size),
                              s.buffers["x"]->get(), s.buffers["w"]->get(), s.buffers["h"]->get(),
                              test::cublas::cuda_r_16f);
  };
  const double ms = time_launches(state, st, launch);
  if (rc != 0) {
    state.SkipWithError("cublasGemmEx failed");
    return;
  }
  results()["cublas"] = ms;
}

}  // namespace

BENCHMARK(run_cublas)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_module, plain_gemm, std::string("plain_gemm"))->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_module, fused, std::string("fused"))->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_module, unfused, std::string("unfused"))->UseManualTime()->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  auto& r = results();
  if (r.count("fused") && r.count("unfused") && r.count("plain_gemm")) {
    std::printf("\nfusion (fp16 %lld x %lld x %lld, config %s): plain GEMM %.1f us, fused %.1f us, unfused %.1f us\n",
                static_cast<long long>(m_size), static_cast<long long>(n_size), static_cast<long long>(k_size),
                setup().config.c_str(), r["plain_gemm"] * 1e3, r["fused"] * 1e3, r["unfused"] * 1e3);
    std::printf(
        "fused speed-up over unfused: %.2fx (target >= 1.3x); fused overhead over plain GEMM: %+.1f%% "
        "(target <= 5%%)\n",
        r["unfused"] / r["fused"], (r["fused"] / r["plain_gemm"] - 1.0) * 100.0);
    if (r.count("cublas")) {
      std::printf("cuBLAS GEMM %.1f us: plain GEMM module %.3fx its time, fused %+.1f%% over it\n", r["cublas"] * 1e3,
                  r["plain_gemm"] / r["cublas"], (r["fused"] / r["cublas"] - 1.0) * 100.0);
    }
  }
  return 0;
}

// SPDX-License-Identifier: MIT
// Rendered kernel sources per second for the GEMM policy (issue: foundation; goal >= 50,000/s on one core).
// Run: build/release/benchmark/codegen_bench --benchmark_min_time=1
#include <rocmtpl/rocm_template.hpp>

#include <benchmark/benchmark.h>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::sym_expr;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_policy;

rocmtpl::rocm_template<gemm_policy> static_problem() {
  return {gemm_policy(),
          {buffer("x", layout::row_major(dtype::f16, {4096, 4096})),
           buffer("w", layout::row_major(dtype::f16, {4096, 4096}))},
          layout::row_major(dtype::f16, {4096, 4096})};
}

rocmtpl::rocm_template<gemm_policy> symbolic_problem() {
  const auto m = sym_expr::symbol("M");
  const auto n = sym_expr::symbol("N");
  const auto k = sym_expr::symbol("K");
  return {gemm_policy({rocmtpl::templates::activation::gelu}),
          {buffer("x", layout::row_major(dtype::bf16, {m, k})), buffer("w", layout::col_major(dtype::bf16, {k, n})),
           buffer("bias", layout::row_major(dtype::f32, {n}))},
          layout::row_major(dtype::bf16, {m, n})};
}

// One full choice: render the source and build the benchmark request (what the autotuner does per config).
void generate(benchmark::State& state, const rocmtpl::rocm_template<gemm_policy>& t, const rocmtpl::size_hints& hints) {
  const auto configs = t.policy().configs();
  std::size_t i = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto caller = t.generate(configs[i++ % configs.size()], hints);
    bytes += caller.source().size();
    benchmark::DoNotOptimize(caller);
  }
  state.counters["renders_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["source_bytes"] = static_cast<double>(bytes) / static_cast<double>(state.iterations());
}

void BM_GenerateStaticF16(benchmark::State& state) { generate(state, static_problem(), {}); }
void BM_GenerateSymbolicBf16BiasGelu(benchmark::State& state) {
  generate(state, symbolic_problem(), {{"M", 4096}, {"N", 4096}, {"K", 4096}});
}

// Rendering alone (no benchmark request), through the make_kernel_render closure.
void BM_RenderPlaceholder(benchmark::State& state) {
  auto node = static_problem().generate(gemm_config{}).output_node();
  for (auto _ : state) {
    auto r = node.make_kernel_render();
    benchmark::DoNotOptimize(r.render().str());
  }
  state.counters["renders_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Enumerating the search space (range-v3 cartesian product + validity filter).
void BM_EnumerateConfigs(benchmark::State& state) {
  gemm_policy p;
  for (auto _ : state) benchmark::DoNotOptimize(p.configs());
}
}  // namespace

BENCHMARK(BM_GenerateStaticF16);
BENCHMARK(BM_GenerateSymbolicBf16BiasGelu);
BENCHMARK(BM_RenderPlaceholder);
BENCHMARK(BM_EnumerateConfigs);
BENCHMARK_MAIN();

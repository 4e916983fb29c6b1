// SPDX-License-Identifier: MIT
// 03_autotune_gemm: let the autotuner pick the fastest GEMM configuration for a problem.
//
// It compiles the candidates in parallel, benchmarks each one on the GPU as its compile finishes,
// verifies it against the template's reference kernel, and stores every measurement and the
// winner in the tuning database (<cache>/tuning.sqlite3): the same problem later is answered from
// there, with no compile and no benchmark. Without a GPU it compiles for AMD targets and shows what
// the compiler says about each candidate's resources (registers, LDS, occupancy, spills).
//
// Usage: 03_autotune_gemm [candidates]   (default 4: the policy's first 4 ranked configurations)
#include <rocmtpl/runtime.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  using namespace rocmtpl;
  using namespace rocmtpl::runtime;
  try {
    // Y[M, 256] = gelu(X[M, 512] @ W[512, 256] + bias) in fp16, M symbolic (tuned for M = 1000).
    const auto m = sym_expr::symbol("M");
    const rocm_template<templates::gemm_policy> gemm(
        templates::gemm_policy(templates::gemm_options{templates::activation::gelu, 1.0F}),
        {buffer("x", layout::row_major(dtype::f16, {m, 512})), buffer("w", layout::col_major(dtype::f16, {512, 256})),
         buffer("bias", layout::row_major(dtype::f16, {256}))},
        layout::row_major(dtype::f16, {m, 256}));

    autotune_options options;
    options.max_candidates = argc > 1 ? static_cast<std::size_t>(std::strtoul(argv[1], nullptr, 10)) : 4;
    options.amd_archs = {"gfx90a"};  // targets compiled for when there is no GPU
    options.bench.budget_ms = 5;     // GPU time spent timing each candidate
    // options.isolate = true;        // benchmark in rocmtpl-bench-worker: survives crashing candidates

    const autotune_report report = autotune(gemm, {{"M", 1000}}, options);
    if (!report.gpu) {
      std::size_t compiled = 0;
      for (const auto& c : report.candidates) {
        if (c.result.status != candidate_status::compile_failed) ++compiled;
        std::cout << c.config << (c.compile_cached ? "  (cached)" : "") << '\n';
        if (c.result.status == candidate_status::compile_failed) {
          std::cout << "  compile failed: " << c.result.reason.substr(0, c.result.reason.find('\n')) << '\n';
        }
        for (const auto& usage : c.resources) std::cout << "  " << to_string(usage) << '\n';
      }
      std::cout << "benchmarking needs a GPU: " << report.gpu_status << '\n';
      return compiled > 0 ? 0 : 1;
    }

    report.print_table(std::cout);
    const candidate_report* best = report.best();
    if (best == nullptr) {
      std::cerr << "03_autotune_gemm: no candidate ran and verified\n";
      return 1;
    }
    std::cout << "winner: " << best->config << ", " << best->result.min_ms << " ms"
              << (report.from_database ? " (from the tuning database)" : "") << '\n';

    // The same problem again: answered from the database.
    const autotune_report again = autotune(gemm, {{"M", 1000}}, options);
    std::cout << "second tune: " << (again.from_database ? "from the database" : "measured again") << ", "
              << again.compiled << " compiles, " << again.benchmarked << " benchmarks\n";
    return again.from_database && again.best() != nullptr && again.best()->id == best->id ? 0 : 1;
  } catch (const compiler_not_found_error& e) {
    std::cout << "compiling needs hipcc or nvcc: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "03_autotune_gemm: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

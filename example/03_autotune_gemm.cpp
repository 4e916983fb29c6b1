// SPDX-License-Identifier: MIT
// 03_autotune_gemm: let the autotuner pick the fastest GEMM configuration for a problem.
//
// It compiles the candidates in parallel, benchmarks each one on the GPU as its compile finishes,
// verifies it against the template's reference kernel, and stores every measurement and the
// winner in the tuning database (<cache>/tuning.sqlite3): the same problem later is answered from
// there, with no compile and no benchmark. Without a GPU it compiles for AMD targets and shows what
// the compiler says about each candidate's resources (registers, LDS, occupancy, spills).
//
// The typed route comes first: the problem's buffers are types, and the winner comes back as a
// typed kernel, called as `(const half_t* X, const half_t* W, const half_t* Bias, half_t* Y,
// int64_t M, stream)` (checked at compile time): no function-pointer type, void* or argument count
// is written here. The runtime-value route (shapes learned at run time) follows: the same problem
// as runtime buffers is the same tune, answered from the database.
//
// Usage: 03_autotune_gemm [candidates]   (default 4: the policy's first 4 ranked configurations)
#include <rocmtpl/runtime.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <vector>

namespace {
using namespace rocmtpl;

// Y[M, 256] = gelu(X[M, 512] @ W[512, 256] + Bias) in fp16, W column-major, M symbolic.
using x_buffer = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<512>>>>;
using w_buffer = static_buffer<"W", static_layout<f16_t, dims<ext<512>, ext<256>>, dims<ext<1>, ext<512>>>>;
using bias_buffer = static_buffer<"Bias", row_major_layout<f16_t, dims<ext<256>>>>;
using y_buffer = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<256>>>>;
constexpr std::int64_t rows = 1000;  // the M tuned for and run

// An fp16 value on the host (zero and normal numbers: enough for the check below).
float to_float(half_t h) {
  const int exponent = (h.bits >> 10) & 0x1F;
  const float v = exponent == 0 ? 0.0F : std::ldexp(1.0F + static_cast<float>(h.bits & 0x3FF) / 1024.0F, exponent - 15);
  return (h.bits & 0x8000) != 0 ? -v : v;
}

// Runs the tuned kernel on X = 1, W = 2^-9, Bias = 0.5 (so X @ W + Bias = 1.5 exactly) and checks
// that every element of Y is gelu(1.5).
template <class Kernel>
bool run_and_check(const Kernel& kernel) {
  using namespace rocmtpl::runtime;
  const std::vector<half_t> x(rows * 512, half_t{0x3C00});  // 1.0
  const std::vector<half_t> w(512 * 256, half_t{0x1800});   // 2^-9
  const std::vector<half_t> bias(256, half_t{0x3800});      // 0.5
  std::vector<half_t> y(rows * 256);
  device_buffer dx(x.size() * sizeof(half_t));
  device_buffer dw(w.size() * sizeof(half_t));
  device_buffer db(bias.size() * sizeof(half_t));
  device_buffer dy(y.size() * sizeof(half_t));
  dx.copy_from_host(x.data());
  dw.copy_from_host(w.data());
  db.copy_from_host(bias.data());
  const std::size_t bytes = kernel.workspace_size(rows);  // sizes, then runtime arguments
  device_buffer workspace;
  if (bytes > 0) workspace = device_buffer(bytes);
  const stream s;
  kernel(static_cast<const half_t*>(dx.get()), static_cast<const half_t*>(dw.get()),
         static_cast<const half_t*>(db.get()), static_cast<half_t*>(dy.get()), rows,
         workspace_ref{workspace.get(), bytes}, s.get());
  s.synchronize();
  dy.copy_to_host(y.data());
  const double expected = 0.75 * (1.0 + std::erf(1.5 / std::sqrt(2.0)));  // gelu(1.5)
  std::size_t wrong = 0;
  for (const half_t v : y) {
    if (!(std::fabs(to_float(v) - expected) <= 2e-3 * expected)) ++wrong;
  }
  std::cout << "typed call: Y = gelu(1.5) = " << expected << " in " << y.size() - wrong << " of " << y.size()
            << " elements\n";
  return wrong == 0;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace rocmtpl::runtime;
  try {
    autotune_options options;
    options.max_candidates = argc > 1 ? static_cast<std::size_t>(std::strtoul(argv[1], nullptr, 10)) : 4;
    options.amd_archs = {"gfx90a"};  // targets compiled for when there is no GPU
    options.bench.budget_ms = 5;     // GPU time spent timing each candidate
    // options.isolate = true;        // benchmark in rocmtpl-bench-worker: survives crashing candidates

    // 1. The typed route: buffer types -> make_template -> autotune -> the winner as a typed kernel.
    const auto gemm = make_template(templates::gemm_policy(templates::gemm_options{templates::activation::gelu, 1.0F}),
                                    inputs<x_buffer, w_buffer, bias_buffer>{}, outputs<y_buffer>{});
    const auto tuned = autotune(gemm, hints<"M">{rows}, options);
    const autotune_report& report = tuned.report;
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
      if (compiled == 0) return 1;
    } else {
      report.print_table(std::cout);
      if (!tuned.kernel) {
        std::cerr << "03_autotune_gemm: no candidate ran and verified\n";
        return 1;
      }
      std::cout << "winner: " << report.best()->config << ", " << report.best()->result.min_ms << " ms"
                << (report.from_database ? " (from the tuning database)" : "") << '\n';
      if (!run_and_check(tuned.winner())) return 1;
    }

    // 2. The runtime-value route: the same problem as runtime buffers is the same tune (same key),
    //    answered from the database on a GPU; without one, every candidate is in the code cache.
    const auto m = sym_expr::symbol("M");
    const rocm_template<templates::gemm_policy> untyped(
        templates::gemm_policy(templates::gemm_options{templates::activation::gelu, 1.0F}),
        {buffer("X", layout::row_major(dtype::f16, {m, 512})), buffer("W", layout::col_major(dtype::f16, {512, 256})),
         buffer("Bias", layout::row_major(dtype::f16, {256}))},
        layout::row_major(dtype::f16, {m, 256}));
    const autotune_report again = autotune(untyped, {{"M", rows}}, options);
    std::cout << "runtime-value route: "
              << (again.from_database ? "from the database"
                  : report.gpu        ? "tuned again"
                                      : "compiled only")
              << ", " << again.compiled << " compiles, " << again.benchmarked << " benchmarks\n";
    const bool same = again.key == report.key && again.compiled == 0;
    return same && (!report.gpu ||
                    (again.from_database && again.best() != nullptr && again.best()->id == report.best()->id))
               ? 0
               : 1;
  } catch (const compiler_not_found_error& e) {
    std::cout << "compiling needs hipcc or nvcc: " << e.what() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "03_autotune_gemm: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

// SPDX-License-Identifier: MIT
// Typed autotune on a real GPU (label gpu; skips without one): a static fp16 GEMM made from buffer
// types is tuned (runtime/tune/typed_autotune.hpp), its winner is called through the exact function
// type (const half_t* X, const half_t* W, half_t* Y, stream: no size argument) and its result is
// compared with cuBLAS (with a double-precision host product where cuBLAS is missing); a second
// tune is answered from the tuning database and its winner, loaded from the same cache entry,
// writes the same bytes.
#include <rocmtpl/runtime.hpp>

#include "gpu/gemm_gpu_harness.hpp"
#include "support/cublas.hpp"
#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <type_traits>
#include <vector>

namespace {
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::cublas;
using rocmtpl::test::temp_dir;
namespace gg = rocmtpl::test::gemm_gpu;

// Y[256, 192] = X[256, 320] @ W[320, 192], fp16, every size static.
constexpr std::int64_t m = 256;
constexpr std::int64_t k = 320;
constexpr std::int64_t n = 192;
using x_t = static_buffer<"X", row_major_layout<f16_t, dims<ext<m>, ext<k>>>>;
using w_t = static_buffer<"W", row_major_layout<f16_t, dims<ext<k>, ext<n>>>>;
using y_t = static_buffer<"Y", row_major_layout<f16_t, dims<ext<m>, ext<n>>>>;

std::vector<std::uint16_t> random_half(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<std::uint16_t> out(count);
  for (auto& v : out) v = gg::to_half(dist(rng));
  return out;
}

// fp32 X @ W (row-major M x N): cuBLAS when it is there, else the host in double precision.
std::vector<float> reference(const device_buffer& dx, const device_buffer& dw, const std::vector<std::uint16_t>& x,
                             const std::vector<std::uint16_t>& w) {
  std::vector<float> out(static_cast<std::size_t>(m * n));
  auto& blas = cublas::instance();
  if (blas.available()) {
    // C (N x M column-major, = Y row-major) = W' (N x K column-major, ld N) X' (K x M, ld K).
    device_buffer c(out.size() * sizeof(float));
    const int rc = blas.gemm(cublas::op_n, cublas::op_n, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
                             dw.get(), cublas::cuda_r_16f, static_cast<int>(n), 0, dx.get(), cublas::cuda_r_16f,
                             static_cast<int>(k), 0, c.as<float>(), m * n, 1, false);
    gpu_runtime::instance().device_synchronize();
    if (rc == 0) {
      c.copy_to_host(out.data());
      std::cout << "[ typed autotune ] reference: cuBLAS\n";
      return out;
    }
    std::cerr << "cuBLAS returned " << rc << "; host product instead\n";
  }
  std::cout << "[ typed autotune ] reference: host (" << blas.status() << ")\n";
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t q = 0; q < k; ++q) {
        s += static_cast<double>(gg::from_half(x[static_cast<std::size_t>(i * k + q)])) *
             static_cast<double>(gg::from_half(w[static_cast<std::size_t>(q * n + j)]));
      }
      out[static_cast<std::size_t>(i * n + j)] = static_cast<float>(s);
    }
  }
  return out;
}

// Runs a typed kernel on poisoned output (NaN bytes) and returns Y's 16-bit values.
template <class Kernel>
std::vector<std::uint16_t> run(const Kernel& kernel, const device_buffer& dx, const device_buffer& dw) {
  device_buffer dy(static_cast<std::size_t>(m * n) * sizeof(std::uint16_t));
  const runtime::stream s;
  gpu_runtime::instance().memset(dy.get(), 0xFF, dy.size(), s.get());
  const std::size_t bytes = kernel.workspace_size();
  device_buffer ws;
  if (bytes > 0) ws = device_buffer(bytes);
  kernel(static_cast<const half_t*>(dx.get()), static_cast<const half_t*>(dw.get()), static_cast<half_t*>(dy.get()),
         workspace_ref{ws.get(), bytes}, s.get());
  s.synchronize();
  std::vector<std::uint16_t> y(static_cast<std::size_t>(m * n));
  dy.copy_to_host(y.data());
  return y;
}

TEST(TypedAutotuneGpu, StaticFp16GemmWinnerMatchesCublas) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  temp_dir dir{"rocmtpl-typed-autotune-gpu"};
  autotune_options o;
  o.max_candidates = 6;
  o.cache_dir = dir.path() / "kernels";
  o.database = dir.path() / "tuning.sqlite3";
  o.progress = false;
  o.bench.budget_ms = 5;
  const auto gemm = make_template(templates::gemm_policy{}, inputs<x_t, w_t>{}, outputs<y_t>{});

  const auto tuned = autotune(gemm, {}, o);
  ASSERT_TRUE(tuned.report.gpu) << tuned.report.gpu_status;
  tuned.report.print_table(std::cout);
  ASSERT_TRUE(tuned.kernel.has_value()) << tuned.report.summary();
  EXPECT_TRUE(tuned.report.best()->result.verified);
  const auto& kernel = tuned.winner();
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(kernel)>::function_type,
                               int(const std::uint16_t*, const std::uint16_t*, std::uint16_t*, std::size_t*,
                                   std::uint8_t*, void*)>,
                "a static problem's entry point takes no size argument");

  std::mt19937_64 rng(0x7e9ed);
  const auto x = random_half(static_cast<std::size_t>(m * k), rng);
  const auto w = random_half(static_cast<std::size_t>(k * n), rng);
  device_buffer dx(x.size() * sizeof(std::uint16_t));
  device_buffer dw(w.size() * sizeof(std::uint16_t));
  dx.copy_from_host(x.data());
  dw.copy_from_host(w.data());
  const auto y = run(kernel, dx, dw);
  const auto ref = reference(dx, dw, x, w);

  double max_ref = 0;
  double max_err = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double r = gg::round_to(dtype::f16, ref[i]);
    const double e = std::fabs(static_cast<double>(gg::from_half(y[i])) - r);
    max_ref = std::max(max_ref, std::fabs(r));
    if (!(e <= max_err)) {  // NaN (an element never written) counts as the largest error
      max_err = std::isnan(e) ? INFINITY : e;
      bad = i;
    }
  }
  EXPECT_LE(max_err, gg::tolerance(dtype::f16) * std::max(max_ref, 1e-3))
      << "winner " << tuned.report.best()->config << ": worst element " << bad << " (max |ref| " << max_ref << ")";

  // Warm: the database answers, the winner loads from the same cache entry and writes the same bytes.
  const auto warm = autotune(gemm, {}, o);
  EXPECT_TRUE(warm.report.from_database);
  EXPECT_EQ(warm.report.compiled, 0U);
  ASSERT_TRUE(warm.kernel.has_value());
  EXPECT_EQ(warm.report.best()->id, tuned.report.best()->id);
  EXPECT_EQ(fs::canonical(warm.winner().library()->path()), fs::canonical(kernel.library()->path()));
  EXPECT_EQ(run(warm.winner(), dx, dw), y);
}

}  // namespace

// SPDX-License-Identifier: MIT
// rocm_template_caller::benchmark() on a real GPU (label gpu; skips without one): the caller's own
// protocol times a split-K GEMM on the test's device tensors with GPU events, allocates the
// workspace the kernel asks for, and leaves the right product in the output.
#include <rocmtpl/runtime.hpp>

#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::scoped_env;
using rocmtpl::test::temp_dir;
using templates::gemm_config;
using templates::gemm_policy;

constexpr std::int64_t m = 200, n = 72, k = 160;

std::vector<float> random_values(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(rng);
  return v;
}

TEST(CallerGpu, BenchmarkTimesTheKernelOnTheGivenTensors) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  temp_dir dir{"rocmtpl-caller-gpu"};
  scoped_env cache("ROCMTPL_CACHE_DIR", dir.path().string());
  const auto ms_sym = sym_expr::symbol("M");
  rocm_template<gemm_policy> tpl(
      gemm_policy({.runtime_split_k = true}),
      {buffer("x", layout::row_major(dtype::f32, {ms_sym, k})), buffer("w", layout::row_major(dtype::f32, {k, n}))},
      layout::row_major(dtype::f32, {ms_sym, n}));
  const auto hx = random_values(static_cast<std::size_t>(m * k), 1);
  const auto hw = random_values(static_cast<std::size_t>(k * n), 2);
  std::vector<double> expected(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < k; ++p) acc += double(hx[std::size_t(i * k + p)]) * hw[std::size_t(p * n + j)];
      expected[std::size_t(i * n + j)] = acc;
    }
  }
  device_buffer x(hx.size() * sizeof(float)), w(hw.size() * sizeof(float)), y(expected.size() * sizeof(float));
  x.copy_from_host(hx.data());
  w.copy_from_host(hw.data());
  for (int split : {1, 3}) {
    const gemm_config c = gemm_config{}.with_split_k(split);
    auto caller = tpl.generate(c, {{"M", m}});
    caller.precompile(caller_runtime{});
    ASSERT_FALSE(caller.bmreq().library_path.empty());
    gpu_runtime::instance().memset(y.get(), 0xFF, y.size(), nullptr);  // NaN: the kernel must overwrite it
    gpu_runtime::instance().synchronize(nullptr);
    const double ms = caller.benchmark(caller_runtime{}, x.as<const float>(), w.as<const float>(), y.as<float>());
    EXPECT_GT(ms, 0.0) << "split_k " << split;
    EXPECT_TRUE(std::isfinite(ms));
    // The workspace it allocated is the one the template describes.
    ASSERT_TRUE(caller.bmreq().workspace_size);
    EXPECT_EQ(*caller.bmreq().workspace_size, split > 1 ? std::size_t(split * m * n * 4) : std::size_t{0});
    EXPECT_EQ(static_cast<std::int64_t>(*caller.bmreq().workspace_size),
              caller.bmreq().workspace_bytes->evaluate({{"M", m}}));
    std::vector<float> hy(expected.size());
    y.copy_to_host(hy.data());
    double worst = 0;
    for (std::size_t i = 0; i < hy.size(); ++i) worst = std::max(worst, std::abs(double(hy[i]) - expected[i]));
    EXPECT_LT(worst, 1e-3) << "split_k " << split;
    // The list form, with a wrong number of inputs, is refused before anything runs.
    EXPECT_THROW((void)caller.benchmark(caller_runtime{}, unchecked, std::vector<const void*>{x.get()}, y.get()),
                 invalid_argument_error);
  }
}

}  // namespace

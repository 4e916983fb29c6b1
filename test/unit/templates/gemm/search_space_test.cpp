// SPDX-License-Identifier: MIT
// templates/gemm/search_space.hpp: both spaces are valid and unique; a problem's list follows its
// dtypes, layouts and shape.
#include <rocmtpl/templates/gemm/search_space.hpp>

#include "unit/templates/gemm/support.hpp"

#include <gtest/gtest.h>

#include <set>

namespace {
using namespace gemm_test;
using rocmtpl::templates::gemm_matrix_core_configs;
using rocmtpl::templates::gemm_problem_configs;
using rocmtpl::templates::gemm_simt_configs;
using rocmtpl::templates::is_valid;

TEST(GemmSearchSpace, BothSpacesAreValidAndUnique) {
  const auto simt = gemm_simt_configs();
  const auto cores = gemm_matrix_core_configs();
  EXPECT_GT(simt.size(), 16U);
  EXPECT_GT(cores.size(), 16U);
  for (const auto& c : simt) {
    EXPECT_TRUE(is_valid(c)) << c.to_string();
    EXPECT_EQ(c.math, gemm_math::simt);
    EXPECT_EQ(c.threads() % 64, 0);
    EXPECT_LE(c.threads(), 256);
    EXPECT_LE(c.shared_bytes(), 64 * 1024);
  }
  for (const auto& c : cores) {
    EXPECT_TRUE(is_valid(c)) << c.to_string();
    EXPECT_EQ(c.math, gemm_math::matrix_core);
    EXPECT_GE(c.warps(), 4);
    EXPECT_LE(c.register_estimate(), 255) << c.name();
  }
  EXPECT_EQ(std::set<gemm_config>(simt.begin(), simt.end()).size(), simt.size());
  EXPECT_EQ(std::set<gemm_config>(cores.begin(), cores.end()).size(), cores.size());
  EXPECT_TRUE(std::find(simt.begin(), simt.end(), gemm_config{}) != simt.end());
}

TEST(GemmSearchSpace, PathFollowsTheDtypes) {
  const size_hints h{{"M", 512}, {"N", 512}, {"K", 512}};
  auto f16 = square(dtype::f16, M, N, K);
  for (const auto& c : gemm_problem_configs(f16.policy().view(f16.context()), false, h)) {
    EXPECT_EQ(c.math, gemm_math::matrix_core);
    EXPECT_EQ(c.vector, 8);
    EXPECT_EQ(c.split_k, 1);
  }
  auto f32 = square(dtype::f32, M, N, K);
  for (const auto& c : gemm_problem_configs(f32.policy().view(f32.context()), false, h)) {
    EXPECT_EQ(c.math, gemm_math::simt);
    EXPECT_EQ(c.vector, 4);
  }
  // Mixed f16 x bf16 stays on SIMT.
  rocmtpl::rocm_template<gemm_policy> mixed(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {8, 8})), buffer("w", layout::row_major(dtype::bf16, {8, 8}))},
      layout::row_major(dtype::f32, {8, 8}));
  for (const auto& c : gemm_problem_configs(mixed.policy().view(mixed.context()), false, {})) {
    EXPECT_EQ(c.math, gemm_math::simt);
  }
}

TEST(GemmSearchSpace, VectorWidthFollowsAlignment) {
  // Symbolic K, hinted 700 (divisible by 4): vector 4, so the tuned sizes take the fast path.
  auto t = square(dtype::f16, M, N, K);
  for (const auto& c : gemm_problem_configs(t.policy().view(t.context()), false, {{"M", 64}, {"N", 64}, {"K", 700}})) {
    EXPECT_EQ(c.vector, 4);
  }
  // Static odd K and N: nothing can be vectorised.
  auto odd = square(dtype::f16, 64, 33, 33);
  for (const auto& c : gemm_problem_configs(odd.policy().view(odd.context()), false, {})) EXPECT_EQ(c.vector, 1);
}

TEST(GemmSearchSpace, RankingFollowsTheShape) {
  auto big = square(dtype::f16, M, N, K);
  const auto v = big.policy().view(big.context());
  const auto large = gemm_problem_configs(v, false, {{"M", 8192}, {"N", 8192}, {"K", 8192}});
  const auto small = gemm_problem_configs(v, false, {{"M", 128}, {"N", 128}, {"K", 4096}});
  ASSERT_FALSE(large.empty());
  ASSERT_FALSE(small.empty());
  EXPECT_GE(large.front().block_m * large.front().block_n, 128 * 128) << large.front().name();
  EXPECT_LE(small.front().block_m * small.front().block_n, 64 * 128) << small.front().name();
  EXPECT_NE(large, small);
  // With split-K allowed, a small output with a long K prefers splitting; a large one does not.
  const auto ranked = gemm_problem_configs(v, true, {{"M", 128}, {"N", 128}, {"K", 16384}});
  EXPECT_GT(ranked.front().split_k, 1) << ranked.front().name();
  const auto no_split = gemm_problem_configs(v, true, {{"M", 8192}, {"N", 8192}, {"K", 1024}});
  EXPECT_EQ(no_split.front().split_k, 1) << no_split.front().name();
  // Without it, nothing splits.
  for (const auto& c : small) EXPECT_EQ(c.split_k, 1);
  const std::set<gemm_config> unique(ranked.begin(), ranked.end());
  EXPECT_EQ(unique.size(), ranked.size());
}
}  // namespace

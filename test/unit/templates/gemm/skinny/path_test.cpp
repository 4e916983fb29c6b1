// SPDX-License-Identifier: MIT
// templates/gemm/skinny/path.hpp (issue 10 part 2): the skinny (fp32 FMA) path as a unit: its
// search space (streaming and dot tiles), memory-bound cost model and FMA bound, per-problem
// candidates (none unless M or N is at most 64), serialised form in the legacy field names, shape.
#include <rocmtpl/templates/gemm/skinny/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

namespace {
using namespace gemm_test;
using rocmtpl::templates::gemm_config_fields;
using rocmtpl::templates::gemm_path_family;
using rocmtpl::templates::skinny_path;

static_assert(rocmtpl::templates::gemm_path<skinny_path>);
static_assert(skinny_path::name == "skinny" && skinny_path::family == gemm_path_family::skinny);
static_assert(skinny_path::splits_k_statically);

skinny_config tile(skinny_side side, int rows, int kt, int pt, int pu = 1, int ks = 8, int vector = 8, int split = 1) {
  return {.side = side,
          .rows = rows,
          .k_threads = kt,
          .p_threads = pt,
          .p_units = pu,
          .k_step = ks,
          .vector = vector,
          .split_k = split};
}

// The tiles are valid and unique, on side m, whole K, and suit both kernels.
TEST(GemmSkinnyPath, SearchSpaceHoldsStreamingAndDotTiles) {
  const auto space = skinny_path::search_space();
  EXPECT_GE(space.size(), 30U);
  int streaming = 0;
  int dot = 0;
  for (const auto& c : space) {
    EXPECT_FALSE(c.invalid_reason().has_value()) << c.name_text().view();
    EXPECT_EQ(c.side, skinny_side::m);
    EXPECT_EQ(c.split_k, 1);
    EXPECT_GE(c.vector, 4) << c.name_text().view();
    streaming += c.p_threads >= 32 ? 1 : 0;
    dot += c.k_threads >= 8 ? 1 : 0;
  }
  EXPECT_GE(streaming, 15);
  EXPECT_GE(dot, 15);
  EXPECT_EQ(std::set<skinny_config>(space.begin(), space.end()).size(), space.size());
}

// The estimate is memory-bound at few rows: K slices pay off when the output alone leaves SMs idle,
// the Q tiles re-read W, 16-byte loads beat narrower ones, and FMAs take over as Q grows.
TEST(GemmSkinnyPath, CostSplitsKWhenTheOutputCannotFillTheGpu) {
  const auto cost = [](const skinny_config& c, std::int64_t m, std::int64_t n) {
    return skinny_path::estimate_cost(c, m, n, 8192, 1);
  };
  const auto one = tile(skinny_side::m, 1, 8, 32);
  auto split = one;
  split.split_k = 8;
  EXPECT_LT(cost(split, 1, 8192), cost(one, 1, 8192));
  // 64 rows in tiles of 8 already make 256 blocks: eight slices only add partials.
  const auto eight = tile(skinny_side::m, 8, 8, 32);
  auto eight_split = eight;
  eight_split.split_k = 8;
  EXPECT_LT(cost(eight, 64, 32768), cost(eight_split, 64, 32768));
  // Narrow loads (vector 1 of 16-bit values) cost more than 16-byte ones.
  auto narrow = split;
  narrow.vector = 1;
  EXPECT_GT(cost(narrow, 1, 8192), cost(split, 1, 8192));
  // More rows cost more; side n reads the sizes the other way round.
  EXPECT_GT(cost(eight_split, 64, 8192), cost(eight_split, 8, 8192));
  auto n_side = eight;
  n_side.side = skinny_side::n;
  EXPECT_DOUBLE_EQ(cost(n_side, 8192, 8), cost(eight, 8, 8192));
  const double c = skinny_path::estimate_cost(one, 0, 0, 0, 0);
  EXPECT_GT(c, 0.0);
  EXPECT_LT(c, 1e12);
}

// FMA-bound configurations: f32 (16-byte vectors of 4) from 32 rows on, 16-bit from 16 rows on;
// the two sides agree.
TEST(GemmSkinnyPath, IsFmaBoundFromAboutThirtyTwoF32Rows) {
  const auto f32 = tile(skinny_side::m, 8, 1, 256, 1, 8, 4);
  const auto f16 = tile(skinny_side::m, 8, 1, 256, 1, 8, 8);
  EXPECT_FALSE(skinny_path::fma_bound(f32, 8, 8192, 8192, 1));
  EXPECT_TRUE(skinny_path::fma_bound(f32, 32, 8192, 8192, 1));
  EXPECT_TRUE(skinny_path::fma_bound(f32, 64, 8192, 8192, 1));
  EXPECT_FALSE(skinny_path::fma_bound(tile(skinny_side::m, 1, 8, 32, 1, 8, 4), 1, 8192, 8192, 1));
  EXPECT_FALSE(skinny_path::fma_bound(tile(skinny_side::m, 4, 1, 256), 4, 8192, 8192, 1));
  EXPECT_TRUE(skinny_path::fma_bound(f16, 16, 8192, 8192, 1));
  auto n_side = f32;
  n_side.side = skinny_side::n;
  EXPECT_TRUE(skinny_path::fma_bound(n_side, 8192, 32, 8192, 1));
  EXPECT_FALSE(skinny_path::fma_bound(n_side, 8192, 8, 8192, 1));
}

TEST(GemmSkinnyPath, ProblemConfigsOnlyForFewRowsOrColumns) {
  const auto configs = [](const rocmtpl::rocm_template<gemm_policy>& t, const size_hints& h) {
    const auto v = t.policy().view(t.context());
    return skinny_path::problem_configs(v, rank_request(v, h));
  };
  auto f16 = square(dtype::f16, M, N, K);
  // Neither M nor N at most 64: none.
  EXPECT_TRUE(configs(f16, {{"M", 512}, {"N", 512}, {"K", 512}}).empty());
  EXPECT_TRUE(configs(f16, {{"M", 65}, {"N", 8192}, {"K", 8192}}).empty());
  // Few rows: side m, the streaming tiles (W is contiguous along N), small tiles up to the next
  // power of two of M, K slices where each keeps two steps, ordered by cost.
  const auto few_rows = configs(f16, {{"M", 8}, {"N", 8192}, {"K", 8192}});
  ASSERT_FALSE(few_rows.empty());
  for (const auto& [cost, c] : few_rows) {
    EXPECT_EQ(c.side, skinny_side::m);
    EXPECT_GE(c.p_threads, 32) << c.name_text().view();
    EXPECT_LE(c.rows, 8) << c.name_text().view();
    EXPECT_GE(c.vector, 4) << c.name_text().view();  // 16-byte loads where the tile allows them
    EXPECT_GE(8192 / c.split_k, 2 * c.k_threads * c.k_step) << c.name_text().view();
    EXPECT_FALSE(c.invalid_reason().has_value());
    EXPECT_DOUBLE_EQ(cost, skinny_path::estimate_cost(c, 8, 8192, 8192, 1));
  }
  EXPECT_TRUE(
      std::is_sorted(few_rows.begin(), few_rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; }));
  EXPECT_TRUE(std::any_of(few_rows.begin(), few_rows.end(), [](const auto& e) { return e.second.split_k > 1; }));
  // Few columns: side n, the dot tiles (X is contiguous along K); f32: vectors of 4.
  for (const auto& [cost, c] : configs(square(dtype::f32, M, N, K), {{"M", 8192}, {"N", 4}, {"K", 4096}})) {
    EXPECT_EQ(c.side, skinny_side::n);
    EXPECT_GE(c.k_threads, 8) << c.name_text().view();
    EXPECT_LE(c.vector, 4) << c.name_text().view();
  }
}

TEST(GemmSkinnyPath, SerialisesTheLegacyFieldsAndRendersEveryProblem) {
  const auto c = tile(skinny_side::n, 4, 8, 32, 2, 4, 4, 3);
  const gemm_config_fields d{{"math", "skinny_n"}, {"block_m", "4"}, {"block_n", "64"}, {"block_k", "4"},
                             {"warp_m", "8"},      {"warp_n", "32"}, {"thread_n", "2"}, {"group_m", "1"},
                             {"stages", "1"},      {"vector", "4"},  {"split_k", "3"}};
  EXPECT_EQ(skinny_path::describe(c), d);
  EXPECT_EQ(skinny_path::parse(d), c);
  EXPECT_FALSE(skinny_path::parse({{"math", "simt"}}).has_value());
  // stages 2: the matrix-core kernel's fields (skinny_mma_path).
  auto mma = d;
  mma[8].second = "2";
  EXPECT_FALSE(skinny_path::parse(mma).has_value());
  // block_n is p_threads * p_units, not a field of its own.
  auto wrong = d;
  wrong[2].second = "32";
  try {
    (void)skinny_path::parse(wrong);
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "skinny config field block_n=32 is not warp_n * thread_n")) << e.what();
  }
  const auto f16 = square(dtype::f16, M, N, K);
  EXPECT_FALSE(skinny_path::unsupported(c, f16.policy().view(f16.context()), {}).has_value());
}

TEST(GemmSkinnyPath, ShapeIsWhatTheSkinnyWritersRead) {
  const auto s = skinny_path::shape(tile(skinny_side::n, 4, 8, 32, 2, 4, 4, 3));
  EXPECT_FALSE(s.q_is_m);
  EXPECT_FALSE(s.mma);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.k_threads, 8);
  EXPECT_EQ(s.p_threads, 32);
  EXPECT_EQ(s.p_units, 2);
  EXPECT_EQ(s.k_step, 4);
  EXPECT_EQ(s.split_k, 3);
  EXPECT_EQ(s.threads, 256);
  EXPECT_EQ(s.units, 64);
  EXPECT_EQ(s.vector, 4);
}
}  // namespace

// SPDX-License-Identifier: MIT
// templates/gemm/skinny_mma/path.hpp (issue 10): the skinny matrix-core path as a unit: its tiles,
// memory-bound cost model, per-problem candidates (16-bit X and W, the large operand contiguous
// along its large dimension, at most four), refusals, serialised form and shape.
#include <rocmtpl/templates/gemm/skinny_mma/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace {
using namespace gemm_test;
using rocmtpl::templates::gemm_config_fields;
using rocmtpl::templates::gemm_path_family;
using rocmtpl::templates::skinny_mma_path;

static_assert(rocmtpl::templates::gemm_path<skinny_mma_path>);
static_assert(skinny_mma_path::name == "skinny_mma" && skinny_mma_path::family == gemm_path_family::skinny);
static_assert(skinny_mma_path::splits_k_statically);

TEST(GemmSkinnyMmaPath, SearchSpaceIsValidAndUnique) {
  const auto tiles = skinny_mma_path::search_space();
  EXPECT_GE(tiles.size(), 6U);
  for (const auto& c : tiles) {
    EXPECT_FALSE(c.invalid_reason().has_value()) << c.name_text().view();
    EXPECT_EQ(c.side, skinny_side::m);
    EXPECT_EQ(c.split_k, 1);
  }
  EXPECT_EQ(std::set<skinny_mma_config>(tiles.begin(), tiles.end()).size(), tiles.size());
}

// The estimate streams W like the fp32 kernels: K slices pay off where the output leaves SMs idle,
// tiles of fewer rows re-read W; the two sides agree.
TEST(GemmSkinnyMmaPath, CostIsMemoryBoundAndSplitsK) {
  const skinny_mma_config mma{.rows = 8, .k_warps = 4, .p_warps = 1};
  auto split = mma;
  split.split_k = 4;
  EXPECT_LT(skinny_mma_path::estimate_cost(split, 8, 8192, 8192, 1),
            skinny_mma_path::estimate_cost(mma, 8, 8192, 8192, 1));
  auto tall = mma;
  tall.rows = 32;
  EXPECT_LT(skinny_mma_path::estimate_cost(tall, 64, 8192, 8192, 1),
            skinny_mma_path::estimate_cost(mma, 64, 8192, 8192, 1));
  auto n_side = split;
  n_side.side = skinny_side::n;
  EXPECT_DOUBLE_EQ(skinny_mma_path::estimate_cost(n_side, 8192, 8, 8192, 1),
                   skinny_mma_path::estimate_cost(split, 8, 8192, 8192, 1));
}

TEST(GemmSkinnyMmaPath, ProblemConfigsOnlyForSixteenBitStreaming) {
  const auto configs = [](const rocmtpl::rocm_template<gemm_policy>& t, const size_hints& h) {
    const auto v = t.policy().view(t.context());
    return skinny_mma_path::problem_configs(v, rank_request(v, h));
  };
  const size_hints rows{{"M", 8}, {"N", 8192}, {"K", 8192}};
  for (dtype d : {dtype::f16, dtype::bf16}) {
    const auto ranked = configs(square(d, M, N, K), rows);
    EXPECT_GE(ranked.size(), 2U);
    EXPECT_LE(ranked.size(), 4U);
    for (const auto& [cost, c] : ranked) {
      EXPECT_EQ(c.side, skinny_side::m);
      EXPECT_EQ(c.rows, 8) << c.name_text().view();  // tiles up to the next multiple of 8 rows
      EXPECT_DOUBLE_EQ(cost, skinny_mma_path::estimate_cost(c, 8, 8192, 8192, 1));
    }
  }
  // f32, M and N above 64, W rows not 16-byte aligned, W contiguous along K, X contiguous along K
  // for few columns: none.
  EXPECT_TRUE(configs(square(dtype::f32, M, N, K), rows).empty());
  EXPECT_TRUE(configs(square(dtype::f16, M, N, K), {{"M", 512}, {"N", 512}, {"K", 512}}).empty());
  EXPECT_TRUE(configs(square(dtype::f16, M, N, K), {{"M", 8}, {"N", 1001}, {"K", 8192}}).empty());
  const rocmtpl::rocm_template<gemm_policy> linear(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {M, K})), buffer("w", layout::col_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {M, N}));
  EXPECT_TRUE(configs(linear, rows).empty());
  EXPECT_TRUE(configs(square(dtype::f16, M, N, K), {{"M", 8192}, {"N", 8}, {"K", 8192}}).empty());
}

TEST(GemmSkinnyMmaPath, RefusesWhatItCannotServeAndSerialisesItsFields) {
  const skinny_mma_config c{.side = skinny_side::n, .rows = 16, .k_warps = 2, .p_warps = 2, .k_step = 4, .split_k = 5};
  const auto f16 = square(dtype::f16, M, N, K);
  const auto why = skinny_mma_path::unsupported(c, f16.policy().view(f16.context()), {});
  ASSERT_TRUE(why.has_value());  // side n: X is the large operand, contiguous along K
  EXPECT_EQ(*why,
            "rocmtpl: gemm: skinny mma config skn_mma_bm16_bn128_bk4_wm2_wn2_sk5 needs X and W of one dtype, "
            "float16 or bfloat16, and the large operand (X) contiguous along M; use a skinny (FMA) config");
  auto m_side = c;
  m_side.side = skinny_side::m;
  EXPECT_FALSE(skinny_mma_path::unsupported(m_side, f16.policy().view(f16.context()), {}).has_value());
  const gemm_config_fields d{{"math", "skinny_n"}, {"block_m", "16"}, {"block_n", "128"}, {"block_k", "4"},
                             {"warp_m", "2"},      {"warp_n", "2"},   {"thread_n", "1"},  {"group_m", "1"},
                             {"stages", "2"},      {"vector", "8"},   {"split_k", "5"}};
  EXPECT_EQ(skinny_mma_path::describe(c), d);
  EXPECT_EQ(skinny_mma_path::parse(d), c);
  // stages 1: the FMA kernels' fields (skinny_path); other maths: not this path's.
  auto fma = d;
  fma[8].second = "1";
  EXPECT_FALSE(skinny_mma_path::parse(fma).has_value());
  EXPECT_FALSE(skinny_mma_path::parse({{"math", "wgmma"}, {"stages", "2"}}).has_value());
  // block_n is 64 * p_warps; vector and thread_n are fixed.
  auto wrong = d;
  wrong[2].second = "64";
  try {
    (void)skinny_mma_path::parse(wrong);
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "skinny mma config field block_n=64 is not 64 * warp_n")) << e.what();
  }
  auto narrow = d;
  narrow[9].second = "4";
  EXPECT_THROW((void)skinny_mma_path::parse(narrow), rocmtpl::invalid_argument_error);
  auto units = d;
  units[6].second = "2";
  EXPECT_THROW((void)skinny_mma_path::parse(units), rocmtpl::invalid_argument_error);
}

TEST(GemmSkinnyMmaPath, ShapeIsWhatTheSkinnyWritersRead) {
  const auto s = skinny_mma_path::shape({.side = skinny_side::n, .rows = 16, .k_warps = 2, .p_warps = 4, .k_step = 4});
  EXPECT_FALSE(s.q_is_m);
  EXPECT_TRUE(s.mma);
  EXPECT_EQ(s.rows, 16);
  EXPECT_EQ(s.k_threads, 2);  // warps along K
  EXPECT_EQ(s.p_threads, 4);  // warps along P
  EXPECT_EQ(s.p_units, 1);
  EXPECT_EQ(s.k_step, 4);
  EXPECT_EQ(s.threads, 256);
  EXPECT_EQ(s.units, 256);  // elements of P
  EXPECT_EQ(s.vector, 8);
}
}  // namespace

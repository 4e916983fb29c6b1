// SPDX-License-Identifier: MIT
// templates/gemm/mma/path.hpp: the matrix-core path (mma.sync / MFMA) as a unit: its search space,
// cost model, per-problem candidates (only f16 or bf16 X and W of one dtype), refusals, serialised
// form and block tile.
#include <rocmtpl/templates/gemm/mma/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {
using namespace gemm_test;
using rocmtpl::templates::gemm_config_fields;
using rocmtpl::templates::gemm_path_family;
using rocmtpl::templates::mma_path;

static_assert(rocmtpl::templates::gemm_path<mma_path>);
static_assert(mma_path::name == "mma" && mma_path::family == gemm_path_family::tiled);
static_assert(!mma_path::splits_k_statically);  // K slices only with gemm_options::runtime_split_k

const mma_config mma128{.block_m = 128, .block_n = 128, .block_k = 32, .warp_m = 64, .warp_n = 64, .stages = 4};

TEST(GemmMmaPath, SearchSpaceIsValidAndUnique) {
  const auto space = mma_path::search_space();
  EXPECT_GT(space.size(), 16U);
  for (const auto& c : space) {
    EXPECT_FALSE(c.invalid_reason().has_value()) << c.name_text().view();
    EXPECT_GE(c.warps(), 4);
    EXPECT_LE(c.register_estimate(), 255) << c.name_text().view();
    EXPECT_EQ(c.split_k, 1);
    EXPECT_EQ(c.vector, 8);
  }
  EXPECT_EQ(std::set<mma_config>(space.begin(), space.end()).size(), space.size());
}

TEST(GemmMmaPath, CostCountsWavesAndPadding) {
  // A 129-row problem pads to two block rows: more cost than 128 rows.
  EXPECT_GT(mma_path::estimate_cost(mma128, 129 * 132, 128, 1024, 1),
            mma_path::estimate_cost(mma128, 128 * 132, 128, 1024, 1));
  // Cost grows with K and with the batch.
  EXPECT_GT(mma_path::estimate_cost(mma128, 4096, 4096, 8192, 1), mma_path::estimate_cost(mma128, 4096, 4096, 4096, 1));
  EXPECT_GT(mma_path::estimate_cost(mma128, 1024, 1024, 1024, 8), mma_path::estimate_cost(mma128, 1024, 1024, 1024, 1));
  // Measured on an H100: block_k 64 with 3 stages beat block_k 32.
  auto deep = mma128;
  deep.block_k = 64;
  deep.stages = 3;
  EXPECT_LT(mma_path::estimate_cost(deep, 4096, 4096, 4096, 1), mma_path::estimate_cost(mma128, 4096, 4096, 4096, 1));
}

TEST(GemmMmaPath, SplitKPaysOffOnlyForSmallOutputsWithLongK) {
  auto split = mma128;
  split.split_k = 8;
  EXPECT_LT(mma_path::estimate_cost(split, 128, 128, 16384, 1), mma_path::estimate_cost(mma128, 128, 128, 16384, 1));
  EXPECT_GT(mma_path::estimate_cost(split, 8192, 8192, 1024, 1), mma_path::estimate_cost(mma128, 8192, 8192, 1024, 1));
}

TEST(GemmMmaPath, ProblemConfigsOnlyForSixteenBitPairs) {
  const size_hints h{{"M", 512}, {"N", 512}, {"K", 512}};
  const auto f32 = square(dtype::f32, M, N, K);
  const auto fv = f32.policy().view(f32.context());
  EXPECT_TRUE(mma_path::problem_configs(fv, rank_request(fv, h)).empty());
  // Mixed f16 x bf16: no matrix cores either.
  rocmtpl::rocm_template<gemm_policy> mixed(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {M, K})), buffer("w", layout::row_major(dtype::bf16, {K, N}))},
      layout::row_major(dtype::f32, {M, N}));
  const auto mv = mixed.policy().view(mixed.context());
  EXPECT_TRUE(mma_path::problem_configs(mv, rank_request(mv, h)).empty());
  for (dtype d : {dtype::f16, dtype::bf16}) {
    const auto t = square(d, M, N, K);
    const auto v = t.policy().view(t.context());
    const auto ranked = mma_path::problem_configs(v, rank_request(v, h));
    ASSERT_EQ(ranked.size(), mma_path::search_space().size());
    for (const auto& [cost, c] : ranked) {
      EXPECT_EQ(c.vector, 8);
      EXPECT_DOUBLE_EQ(cost, mma_path::estimate_cost(c, 512, 512, 512, 1));
    }
    // K hinted 700 (a multiple of 4, not 8): vector 4.
    const size_hints k700{{"M", 512}, {"N", 512}, {"K", 700}};
    for (const auto& [cost, c] : mma_path::problem_configs(v, rank_request(v, k700))) EXPECT_EQ(c.vector, 4);
    // Split-K variants when asked for.
    EXPECT_GT(mma_path::problem_configs(v, rank_request(v, h, true)).size(), ranked.size());
  }
}

TEST(GemmMmaPath, RefusesOtherDtypesAndSerialisesItsFields) {
  const auto f32 = square(dtype::f32, M, N, K);
  const auto why = mma_path::unsupported(mma128, f32.policy().view(f32.context()), {});
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "rocmtpl: gemm: matrix-core config mma_bm128_bn128_bk32_wm64_wn64_g8_s4_v8 needs X and W of one dtype, "
            "float16 or bfloat16; got float32 and float32; use a simt config");
  const auto bf16 = square(dtype::bf16, M, N, K);
  EXPECT_FALSE(mma_path::unsupported(mma128, bf16.policy().view(bf16.context()), {}).has_value());
  auto c = mma128;
  c.split_k = 2;
  const gemm_config_fields d{{"math", "matrix_core"}, {"block_m", "128"}, {"block_n", "128"}, {"block_k", "32"},
                             {"warp_m", "64"},        {"warp_n", "64"},   {"group_m", "8"},   {"stages", "4"},
                             {"vector", "8"},         {"split_k", "2"}};
  EXPECT_EQ(mma_path::describe(c), d);
  EXPECT_EQ(mma_path::parse(d), c);
  EXPECT_FALSE(mma_path::parse({{"math", "simt"}}).has_value());
  EXPECT_THROW((void)mma_path::parse({{"math", "matrix_core"}, {"thread_m", "4"}}), rocmtpl::invalid_argument_error);
}

TEST(GemmMmaPath, BlockTileRunsOneBlockPerSmOnWaves) {
  const auto t = mma_path::tile({.block_m = 64, .block_n = 64, .block_k = 32, .warp_m = 32, .warp_n = 32, .stages = 3});
  EXPECT_TRUE(t.matrix_cores);
  EXPECT_EQ(t.min_blocks, 1);
  EXPECT_EQ(t.threads, 128);      // 4 warps of 32 threads (NVIDIA)
  EXPECT_EQ(t.amd_threads, 256);  // 4 waves of 64 threads (AMD)
  EXPECT_EQ(t.stages, 3);
  EXPECT_FALSE(t.simt_prefetch);
  EXPECT_EQ(t.constants, (std::vector<std::pair<std::string, int>>{{"warp_m", 32}, {"warp_n", 32}}));
}
}  // namespace

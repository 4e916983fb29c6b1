// SPDX-License-Identifier: MIT
// templates/gemm/cost_model.hpp: the estimate counts waves, padding, K and the split-K traffic.
#include <rocmtpl/templates/gemm/cost_model.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace {
using gemm_test::hopper;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_estimate_cost;
using rocmtpl::templates::gemm_math;
using rocmtpl::templates::gemm_skinny_fma_bound;

const gemm_config mma128 = gemm_test::mma(128, 128, 32, 64, 64, 4);

TEST(GemmCostModel, CountsWavesAndPadding) {
  // A 129-row problem pads to two block rows: more cost than 128 rows.
  EXPECT_GT(gemm_estimate_cost(mma128, 129 * 132, 128, 1024, 1), gemm_estimate_cost(mma128, 128 * 132, 128, 1024, 1));
  // Cost grows with K and with the batch.
  EXPECT_GT(gemm_estimate_cost(mma128, 4096, 4096, 8192, 1), gemm_estimate_cost(mma128, 4096, 4096, 4096, 1));
  EXPECT_GT(gemm_estimate_cost(mma128, 1024, 1024, 1024, 8), gemm_estimate_cost(mma128, 1024, 1024, 1024, 1));
}

TEST(GemmCostModel, SplitKPaysOffOnlyForSmallOutputsWithLongK) {
  auto split = mma128;
  split.split_k = 8;
  EXPECT_LT(gemm_estimate_cost(split, 128, 128, 16384, 1), gemm_estimate_cost(mma128, 128, 128, 16384, 1));
  EXPECT_GT(gemm_estimate_cost(split, 8192, 8192, 1024, 1), gemm_estimate_cost(mma128, 8192, 8192, 1024, 1));
}

TEST(GemmCostModel, HopperBeatsMmaSyncOnLargeProblemsAndSmallTilesWinSmallOnes) {
  const auto big = hopper(128, 256, 4);
  const auto small = hopper(128, 64, 8);
  // NOTES.md: wgmma ran 2.0-2.3x the throughput of mma.sync at 4096^3 and 8192^3.
  for (const std::int64_t s : {2048, 4096, 8192}) {
    const double ratio = gemm_estimate_cost(mma128, s, s, s, 1) / gemm_estimate_cost(big, s, s, s, 1);
    EXPECT_GT(ratio, 1.8) << s;
    EXPECT_LT(ratio, 4.0) << s;
    EXPECT_LT(gemm_estimate_cost(big, s, s, s, 1), gemm_estimate_cost(small, s, s, s, 1)) << s;
  }
  // 128x256 and 256x128 tie; 128x128 trails them on large problems.
  EXPECT_DOUBLE_EQ(gemm_estimate_cost(big, 4096, 4096, 4096, 1),
                   gemm_estimate_cost(hopper(256, 128, 4), 4096, 4096, 4096, 1));
  EXPECT_LT(gemm_estimate_cost(big, 8192, 8192, 8192, 1), gemm_estimate_cost(hopper(128, 128, 6), 8192, 8192, 8192, 1));
  // 1024^3 and 64 x 8192 x 8192: too few 128x256 tiles for 132 SMs; 128x64 won there.
  EXPECT_LT(gemm_estimate_cost(small, 1024, 1024, 1024, 1), gemm_estimate_cost(big, 1024, 1024, 1024, 1));
  EXPECT_LT(gemm_estimate_cost(small, 64, 8192, 8192, 1), gemm_estimate_cost(big, 64, 8192, 8192, 1));
}

// Hopper split-K: the fp32 partials and the reduction launch cost more than they save on a large
// square problem, and less on one output tile with a long K.
TEST(GemmCostModel, HopperSplitKPaysOffOnlyForFewTilesWithLongK) {
  const auto tile = hopper(128, 128, 6);
  auto split = tile;
  split.split_k = 8;
  EXPECT_LT(gemm_estimate_cost(split, 128, 128, 16384, 1), gemm_estimate_cost(tile, 128, 128, 16384, 1));
  EXPECT_GT(gemm_estimate_cost(split, 4096, 4096, 4096, 1), gemm_estimate_cost(tile, 4096, 4096, 4096, 1));
}

TEST(GemmCostModel, DegenerateSizesStayFinite) {
  const double c = gemm_estimate_cost(gemm_config{}, 0, 0, 0, 0);
  EXPECT_GT(c, 0.0);
  EXPECT_LT(c, 1e12);
  const double h = gemm_estimate_cost(hopper(128, 256, 4), 0, 0, 0, 0);
  EXPECT_GT(h, 0.0);
  EXPECT_LT(h, 1e12);
}
}  // namespace

namespace {
using gemm_test::skinny;

// Issue 10 part 2: the skinny estimate is memory-bound at few rows: K slices pay off when the
// output alone leaves SMs idle, the Q tiles re-read W, 16-byte loads beat narrower ones, and FMAs
// take over as the small dimension grows.
TEST(GemmCostModel, SkinnySplitsKWhenTheOutputCannotFillTheGpu) {
  const auto one = skinny(gemm_math::skinny_m, 1, 8, 32);
  auto split = one;
  split.split_k = 8;
  EXPECT_LT(gemm_estimate_cost(split, 1, 8192, 8192, 1), gemm_estimate_cost(one, 1, 8192, 8192, 1));
  // 64 rows in tiles of 8 already make 256 blocks: eight slices only add partials.
  const auto eight = skinny(gemm_math::skinny_m, 8, 8, 32);
  auto eight_split = eight;
  eight_split.split_k = 8;
  EXPECT_LT(gemm_estimate_cost(eight, 64, 32768, 8192, 1), gemm_estimate_cost(eight_split, 64, 32768, 8192, 1));
  // Narrow loads (vector 1 of 16-bit values) cost more than 16-byte ones.
  auto narrow = split;
  narrow.vector = 1;
  EXPECT_GT(gemm_estimate_cost(narrow, 1, 8192, 8192, 1), gemm_estimate_cost(split, 1, 8192, 8192, 1));
  // More rows cost more; skinny_n reads the sizes the other way round.
  EXPECT_GT(gemm_estimate_cost(eight_split, 64, 8192, 8192, 1), gemm_estimate_cost(eight_split, 8, 8192, 8192, 1));
  auto n_side = eight;
  n_side.math = gemm_math::skinny_n;
  EXPECT_DOUBLE_EQ(gemm_estimate_cost(n_side, 8192, 8, 8192, 1), gemm_estimate_cost(eight, 8, 8192, 8192, 1));
  const double c = gemm_estimate_cost(one, 0, 0, 0, 0);
  EXPECT_GT(c, 0.0);
  EXPECT_LT(c, 1e12);
}

// FMA-bound skinny configurations (gemm_skinny_fma_bound()): f32 (16-byte vectors of 4) from 32
// rows on, 16-bit from 16 rows on; the two sides agree; other paths never.
TEST(GemmCostModel, SkinnyIsFmaBoundFromAboutThirtyTwoF32Rows) {
  const auto f32 = skinny(gemm_math::skinny_m, 8, 1, 256, 1, 8, 4);
  const auto f16 = skinny(gemm_math::skinny_m, 8, 1, 256, 1, 8, 8);
  EXPECT_FALSE(gemm_skinny_fma_bound(f32, 8, 8192, 8192, 1));
  EXPECT_TRUE(gemm_skinny_fma_bound(f32, 32, 8192, 8192, 1));
  EXPECT_TRUE(gemm_skinny_fma_bound(f32, 64, 8192, 8192, 1));
  EXPECT_FALSE(gemm_skinny_fma_bound(skinny(gemm_math::skinny_m, 1, 8, 32, 1, 8, 4), 1, 8192, 8192, 1));
  EXPECT_FALSE(gemm_skinny_fma_bound(skinny(gemm_math::skinny_m, 4, 1, 256, 1, 8, 8), 4, 8192, 8192, 1));
  EXPECT_TRUE(gemm_skinny_fma_bound(f16, 16, 8192, 8192, 1));
  auto n_side = f32;
  n_side.math = gemm_math::skinny_n;
  EXPECT_TRUE(gemm_skinny_fma_bound(n_side, 8192, 32, 8192, 1));
  EXPECT_FALSE(gemm_skinny_fma_bound(n_side, 8192, 8, 8192, 1));
  EXPECT_FALSE(gemm_skinny_fma_bound(gemm_config{}, 64, 8192, 8192, 1));
}

// Issue 10: the skinny matrix-core estimate streams W like the fp32 kernels (K slices pay off
// where the output leaves SMs idle; tiles of fewer rows re-read W) and is never FMA-bound.
TEST(GemmCostModel, SkinnyMmaIsMemoryBoundAndSplitsK) {
  auto mma = skinny(gemm_math::skinny_m, 8, 4, 1);
  mma.block_n = 64;
  mma.stages = 2;
  ASSERT_TRUE(rocmtpl::templates::is_valid(mma));
  auto split = mma;
  split.split_k = 4;
  EXPECT_LT(gemm_estimate_cost(split, 8, 8192, 8192, 1), gemm_estimate_cost(mma, 8, 8192, 8192, 1));
  auto tall = mma;
  tall.block_m = 32;
  EXPECT_LT(gemm_estimate_cost(tall, 64, 8192, 8192, 1), gemm_estimate_cost(mma, 64, 8192, 8192, 1));
  EXPECT_FALSE(gemm_skinny_fma_bound(tall, 64, 8192, 8192, 1));
  auto n_side = split;
  n_side.math = gemm_math::skinny_n;
  EXPECT_DOUBLE_EQ(gemm_estimate_cost(n_side, 8192, 8, 8192, 1), gemm_estimate_cost(split, 8, 8192, 8192, 1));
}

}  // namespace

// SPDX-License-Identifier: MIT
// templates/gemm/cost_model.hpp: what the paths' cost models share: the tile counts of a problem
// and the block-tiled estimate of the SIMT and matrix-core paths (waves, padding, residency, K,
// the split-K traffic). Each path's own terms are tested in templates/gemm/<path>/path_test.cpp.
#include <rocmtpl/templates/gemm/cost_model.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace {
namespace td = rocmtpl::templates::detail;

static_assert(td::gemm_cost_sms == 132);  // an H100 SXM

TEST(GemmCostModel, TileCountsPadEveryDimension) {
  const auto t = td::gemm_tiles(128, 64, 32, 4, 129, 64, 1000, 3);
  EXPECT_DOUBLE_EQ(t.tiles_mn, 2 * 1 * 3);  // 129 rows pad to two block rows; three batches
  EXPECT_DOUBLE_EQ(t.tiles, 2 * 1 * 3 * 4);
  EXPECT_DOUBLE_EQ(t.k_steps, 8);  // ceil(ceil(1000 / 32) / 4)
  // Empty sizes count as one (the estimate stays finite).
  const auto empty = td::gemm_tiles(64, 64, 16, 1, 0, 0, 0, 0);
  EXPECT_DOUBLE_EQ(empty.tiles, 1);
  EXPECT_DOUBLE_EQ(empty.k_steps, 1);
}

// A 128 x 128 matrix-core tile of 4 warps, 4 stages (the shape mma_path::estimate_cost() passes).
td::gemm_block_shape mma128(int split_k = 1) {
  return {.block_m = 128,
          .block_n = 128,
          .block_k = 32,
          .stages = 4,
          .split_k = split_k,
          .threads = 128,
          .shared_bytes = 4 * 256 * 32 * 2,
          .registers = 208,
          .efficiency = 1.0};
}

TEST(GemmCostModel, BlockTiledCostCountsWavesPaddingAndK) {
  const auto cost = [](const td::gemm_block_shape& s, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t b = 1) { return td::gemm_block_tiled_cost(s, m, n, k, b); };
  // A 129-row problem pads to two block rows: more cost than 128 rows.
  EXPECT_GT(cost(mma128(), 129 * 132, 128, 1024), cost(mma128(), 128 * 132, 128, 1024));
  // Cost grows with K and with the batch.
  EXPECT_GT(cost(mma128(), 4096, 4096, 8192), cost(mma128(), 4096, 4096, 4096));
  EXPECT_GT(cost(mma128(), 1024, 1024, 1024, 8), cost(mma128(), 1024, 1024, 1024));
  // A more efficient tile shape costs less, in proportion.
  auto better = mma128();
  better.efficiency = 2.0;
  EXPECT_DOUBLE_EQ(cost(better, 4096, 4096, 4096) * 2, cost(mma128(), 4096, 4096, 4096));
  const double degenerate = cost(mma128(), 0, 0, 0, 0);
  EXPECT_GT(degenerate, 0.0);
  EXPECT_LT(degenerate, 1e12);
}

TEST(GemmCostModel, SplitKPaysOffOnlyForSmallOutputsWithLongK) {
  EXPECT_LT(td::gemm_block_tiled_cost(mma128(8), 128, 128, 16384, 1),
            td::gemm_block_tiled_cost(mma128(), 128, 128, 16384, 1));
  EXPECT_GT(td::gemm_block_tiled_cost(mma128(8), 8192, 8192, 1024, 1),
            td::gemm_block_tiled_cost(mma128(), 8192, 8192, 1024, 1));
}
}  // namespace

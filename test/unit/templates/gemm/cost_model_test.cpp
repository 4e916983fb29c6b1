// SPDX-License-Identifier: MIT
// templates/gemm/cost_model.hpp: the estimate counts waves, padding, K and the split-K traffic.
#include <rocmtpl/templates/gemm/cost_model.hpp>

#include <gtest/gtest.h>

namespace {
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_estimate_cost;
using rocmtpl::templates::gemm_math;

const gemm_config mma128{.block_m = 128,
                         .block_n = 128,
                         .block_k = 32,
                         .thread_m = 0,
                         .thread_n = 0,
                         .group_m = 8,
                         .math = gemm_math::matrix_core,
                         .warp_m = 64,
                         .warp_n = 64,
                         .stages = 4,
                         .vector = 8,
                         .split_k = 1};

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

TEST(GemmCostModel, DegenerateSizesStayFinite) {
  const double c = gemm_estimate_cost(gemm_config{}, 0, 0, 0, 0);
  EXPECT_GT(c, 0.0);
  EXPECT_LT(c, 1e12);
}
}  // namespace

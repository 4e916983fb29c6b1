// SPDX-License-Identifier: MIT
// templates/gemm/simt/path.hpp: the SIMT path as a unit: its search space, cost model, per-problem
// candidates (none for 16-bit X and W), serialised form, launch bounds and operand prefetch.
#include <rocmtpl/templates/gemm/simt/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {
using namespace gemm_test;
using rocmtpl::templates::gemm_config_fields;
using rocmtpl::templates::gemm_path_family;
using rocmtpl::templates::simt_path;

static_assert(rocmtpl::templates::gemm_path<simt_path>);
static_assert(simt_path::name == "simt" && simt_path::family == gemm_path_family::tiled);
static_assert(simt_path::splits_k_statically);

TEST(GemmSimtPath, SearchSpaceIsValidUniqueAndHoldsTheDefault) {
  const auto space = simt_path::search_space();
  EXPECT_GT(space.size(), 16U);
  for (const auto& c : space) {
    EXPECT_FALSE(c.invalid_reason().has_value()) << c.name_text().view();
    EXPECT_EQ(c.threads() % 64, 0);
    EXPECT_LE(c.threads(), 256);
    EXPECT_LE(c.shared_bytes(), 64 * 1024);
    EXPECT_EQ(c.split_k, 1);
  }
  EXPECT_EQ(std::set<simt_config>(space.begin(), space.end()).size(), space.size());
  EXPECT_TRUE(std::find(space.begin(), space.end(), simt_config{}) != space.end());
}

TEST(GemmSimtPath, CostFavoursLargerTilesAndSplitsKOnlyForFewTilesWithLongK) {
  // Measured on an H100: 16 x 8 thread tiles on 256 x 128 blocks beat 8 x 8 on 128 x 128.
  const simt_config big{256, 128, 16, 16, 8, 8};
  const simt_config mid{128, 128, 16, 8, 8, 8};
  EXPECT_LT(simt_path::estimate_cost(big, 8192, 8192, 8192, 1), simt_path::estimate_cost(mid, 8192, 8192, 8192, 1));
  // Longer K steps save barriers (the 16 x 8 tiles run one block per SM either way).
  EXPECT_LT(simt_path::estimate_cost(big, 4096, 4096, 4096, 1),
            simt_path::estimate_cost({256, 128, 8, 16, 8, 8}, 4096, 4096, 4096, 1));
  auto split = mid;
  split.split_k = 8;
  EXPECT_LT(simt_path::estimate_cost(split, 128, 128, 16384, 1), simt_path::estimate_cost(mid, 128, 128, 16384, 1));
  EXPECT_GT(simt_path::estimate_cost(split, 8192, 8192, 1024, 1), simt_path::estimate_cost(mid, 8192, 8192, 1024, 1));
  const double degenerate = simt_path::estimate_cost(simt_config{}, 0, 0, 0, 0);
  EXPECT_GT(degenerate, 0.0);
  EXPECT_LT(degenerate, 1e12);
}

TEST(GemmSimtPath, ProblemConfigsServeEveryDtypeButSixteenBitPairs) {
  const size_hints h{{"M", 4096}, {"N", 4096}, {"K", 512}};  // every tile count reaches the SMs
  // f16 X and W: the matrix-core paths serve them.
  const auto f16 = square(dtype::f16, M, N, K);
  const auto fv = f16.policy().view(f16.context());
  EXPECT_TRUE(simt_path::problem_configs(fv, rank_request(fv, h)).empty());
  // f32: the whole space, vector 4 (16 bytes), each with its cost.
  const auto f32 = square(dtype::f32, M, N, K);
  const auto v = f32.policy().view(f32.context());
  const auto ranked = simt_path::problem_configs(v, rank_request(v, h));
  ASSERT_EQ(ranked.size(), simt_path::search_space().size());
  for (const auto& [cost, c] : ranked) {
    EXPECT_EQ(c.vector, 4) << c.name_text().view();
    EXPECT_EQ(c.split_k, 1);
    EXPECT_DOUBLE_EQ(cost, simt_path::estimate_cost(c, 4096, 4096, 512, 1));
  }
  // Odd K and N: neither operand can take vectors.
  const auto odd = square(dtype::f32, 512, 33, 33);
  const auto ov = odd.policy().view(odd.context());
  const size_hints none;
  for (const auto& [cost, c] : simt_path::problem_configs(ov, rank_request(ov, none))) {
    EXPECT_EQ(c.vector, 1) << c.name_text().view();
  }
  // Split variants (2 to 16 slices) where each slice keeps two K steps.
  const size_hints long_k{{"M", 128}, {"N", 128}, {"K", 16384}};
  const auto split = simt_path::problem_configs(v, rank_request(v, long_k, true));
  EXPECT_GT(split.size(), ranked.size());
  for (const auto& [cost, c] : split) EXPECT_GE(16384 / c.split_k, 2 * c.block_k) << c.name_text().view();
  EXPECT_TRUE(std::any_of(split.begin(), split.end(), [](const auto& e) { return e.second.split_k == 16; }));
}

TEST(GemmSimtPath, RendersEveryProblemAndSerialisesItsFields) {
  const auto f16 = square(dtype::f16, M, N, K);
  EXPECT_FALSE(simt_path::unsupported(simt_config{}, f16.policy().view(f16.context()), {}).has_value());
  const simt_config c{128, 64, 8, 8, 4, 2, 2, 3};
  const gemm_config_fields d{{"math", "simt"},  {"block_m", "128"}, {"block_n", "64"}, {"block_k", "8"},
                             {"thread_m", "8"}, {"thread_n", "4"},  {"group_m", "2"},  {"stages", "2"},
                             {"vector", "2"},   {"split_k", "3"}};
  EXPECT_EQ(simt_path::describe(c), d);
  EXPECT_EQ(simt_path::parse(d), c);
  EXPECT_FALSE(simt_path::parse({{"math", "matrix_core"}, {"block_m", "128"}}).has_value());
  EXPECT_FALSE(simt_path::parse({}).has_value());
  // Fields left out keep their defaults; a stages other than 2 is not a SIMT field value.
  EXPECT_EQ(simt_path::parse({{"math", "simt"}, {"block_k", "8"}}), (simt_config{.block_k = 8}));
  EXPECT_THROW((void)simt_path::parse({{"math", "simt"}, {"stages", "3"}}), rocmtpl::invalid_argument_error);
}

TEST(GemmSimtPath, LaunchBoundsAllowTwoBlocksWhereTheRegistersLeaveRoom) {
  EXPECT_EQ(simt_path::min_blocks({128, 128, 8, 8, 8, 8}), 2);  // 128 registers x 256 threads
  EXPECT_EQ(simt_path::min_blocks({128, 256, 16, 16, 8, 8}), 1);
  const auto t = simt_path::tile({128, 128, 8, 8, 8, 8});
  EXPECT_EQ(t.min_blocks, 2);
  EXPECT_FALSE(t.matrix_cores);
  EXPECT_EQ(t.threads, 256);
  EXPECT_EQ(t.stages, 2);
  EXPECT_EQ(t.constants, (std::vector<std::pair<std::string, int>>{{"thread_m", 8}, {"thread_n", 8}}));
}

TEST(GemmSimtPath, OperandPrefetchWhereTheLaunchBoundsLeaveRoom) {
  // 128x128 of 8 x 8 runs two blocks per SM (128 registers): no room for a second operand set.
  EXPECT_FALSE(simt_path::prefetch({128, 128, 8, 8, 8, 8}));
  // One block per SM (the measured 256x128 / 128x256 winners) and 128-thread small tiles have room.
  EXPECT_TRUE(simt_path::prefetch({128, 256, 16, 16, 8, 8}));
  EXPECT_TRUE(simt_path::prefetch({64, 128, 16, 8, 8, 8}));
  // 128 accumulators on 64 threads: at 255 registers either way, and the second set spilled less.
  EXPECT_TRUE(simt_path::prefetch({128, 64, 16, 8, 16, 8}));
  EXPECT_TRUE(simt_path::tile({128, 64, 16, 8, 16, 8}).simt_prefetch);
  // The rendered constant follows it.
  auto t = make();
  EXPECT_TRUE(contains(t.generate(simt_config{128, 256, 16, 16, 8, 8}, {{"M", 256}}).source(),
                       "constexpr bool simt_prefetch = true;"));
  EXPECT_TRUE(contains(t.generate(simt_config{128, 128, 8, 8, 8, 8}, {{"M", 256}}).source(),
                       "constexpr bool simt_prefetch = false;"));
}
}  // namespace

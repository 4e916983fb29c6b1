// SPDX-License-Identifier: MIT
// templates/gemm/search_space.hpp: a problem's list of candidates merges every path's (each path's
// own space is tested in templates/gemm/<path>/path_test.cpp) and follows the problem's dtypes,
// layouts and shape.
#include <rocmtpl/templates/gemm/search_space.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace {
using namespace gemm_test;
using rocmtpl::templates::gemm_problem_configs;
using rocmtpl::templates::wgmma_path;

// block_m * block_n of a tiled configuration (SIMT, matrix cores, Hopper); 0 for a skinny one.
int tile_area(const gemm_config& c) {
  return c.visit([](const auto& x) {
    if constexpr (requires { x.block_m + x.block_n; }) {
      return x.block_m * x.block_n;
    } else {
      return 0;
    }
  });
}

// The K step of a tiled configuration; 0 for a skinny one.
int block_k_of(const gemm_config& c) {
  return c.visit([](const auto& x) {
    if constexpr (requires { x.block_k; }) {
      return static_cast<int>(x.block_k);
    } else {
      return 0;
    }
  });
}

TEST(GemmSearchSpace, PathFollowsTheDtypes) {
  const size_hints h{{"M", 512}, {"N", 512}, {"K", 512}};
  auto f16 = square(dtype::f16, M, N, K);
  for (const auto& c : gemm_problem_configs(f16.policy().view(f16.context()), false, h)) {
    EXPECT_TRUE(c.holds<mma_config>() || c.holds<wgmma_config>()) << c.name();
    EXPECT_EQ(vector_of(c), 8);
    // 512 x 512 leaves SMs idle: the Hopper tiles also come with static K slices; mma splits
    // only at run time.
    if (c.holds<mma_config>()) {
      EXPECT_EQ(c.split_k(), 1) << c.name();
    }
  }
  auto f32 = square(dtype::f32, M, N, K);
  for (const auto& c : gemm_problem_configs(f32.policy().view(f32.context()), false, h)) {
    EXPECT_TRUE(c.holds<simt_config>()) << c.name();
    EXPECT_EQ(vector_of(c), 4);
  }
  // Mixed f16 x bf16 stays on SIMT.
  rocmtpl::rocm_template<gemm_policy> mixed(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {8, 8})), buffer("w", layout::row_major(dtype::bf16, {8, 8}))},
      layout::row_major(dtype::f32, {8, 8}));
  // (8 x 8 x 8 is skinny: those configurations come first and serve any dtypes.)
  const auto mixed_list = gemm_problem_configs(mixed.policy().view(mixed.context()), false, {});
  ASSERT_FALSE(mixed_list.empty());
  EXPECT_TRUE(mixed_list.front().holds<skinny_config>()) << mixed_list.front().name();  // the FMA kernels
  EXPECT_EQ(side_of(mixed_list.front()), skinny_side::m);
  for (const auto& c : mixed_list) {
    if (!is_skinny(c)) {
      EXPECT_TRUE(c.holds<simt_config>()) << c.name();
    }
  }
}

TEST(GemmSearchSpace, VectorWidthFollowsAlignment) {
  // Symbolic K, hinted 700 (divisible by 4): vector 4, so the tuned sizes take the fast path.
  auto t = square(dtype::f16, M, N, K);
  // (The skinny configurations of this 64 x 64 problem stream W, whose rows of 64 allow 8.)
  for (const auto& c : gemm_problem_configs(t.policy().view(t.context()), false, {{"M", 64}, {"N", 64}, {"K", 700}})) {
    EXPECT_EQ(vector_of(c), is_skinny(c) ? std::min(vector_of(c), 8) : 4) << c.name();
    if (is_skinny(c)) {
      EXPECT_GE(vector_of(c), 4) << c.name();
    }
  }
  // Static odd K and N: nothing can be vectorised (the skinny_n configurations stream X's rows of 33).
  auto odd = square(dtype::f16, 64, 33, 33);
  for (const auto& c : gemm_problem_configs(odd.policy().view(odd.context()), false, {})) EXPECT_EQ(vector_of(c), 1);
}

TEST(GemmSearchSpace, RankingFollowsTheShape) {
  auto big = square(dtype::f16, M, N, K);
  const auto v = big.policy().view(big.context());
  const auto large = gemm_problem_configs(v, false, {{"M", 8192}, {"N", 8192}, {"K", 8192}});
  const auto small = gemm_problem_configs(v, false, {{"M", 128}, {"N", 128}, {"K", 4096}});
  ASSERT_FALSE(large.empty());
  ASSERT_FALSE(small.empty());
  EXPECT_GE(tile_area(large.front()), 128 * 128) << large.front().name();
  EXPECT_LE(tile_area(small.front()), 64 * 128) << small.front().name();
  EXPECT_GT(tile_area(small.front()), 0) << small.front().name();
  EXPECT_NE(large, small);
  // With split-K allowed, a small output with a long K prefers splitting; a large one does not.
  const auto ranked = gemm_problem_configs(v, true, {{"M", 128}, {"N", 128}, {"K", 16384}});
  EXPECT_GT(ranked.front().split_k(), 1) << ranked.front().name();
  const auto no_split = gemm_problem_configs(v, true, {{"M", 8192}, {"N", 8192}, {"K", 1024}});
  EXPECT_EQ(no_split.front().split_k(), 1) << no_split.front().name();
  // Without it, only the paths that split K statically (Hopper here) split the few tiles.
  for (const auto& c : small) {
    if (c.split_k() > 1) {
      EXPECT_TRUE(c.holds<wgmma_config>()) << c.name();
    }
  }
  const std::set<gemm_config> unique(ranked.begin(), ranked.end());
  EXPECT_EQ(unique.size(), ranked.size());
}

// The README's main job: fp16 4096^3 + bias[N] + relu, static shapes.
TEST(GemmSearchSpace, HopperRanksFirstForLargeF16AndBf16Problems) {
  for (dtype d : {dtype::f16, dtype::bf16}) {
    rocmtpl::rocm_template<gemm_policy> t(
        gemm_policy({.act = activation::relu}),
        {buffer("x", layout::row_major(d, {4096, 4096})), buffer("w", layout::row_major(d, {4096, 4096})),
         buffer("bias", layout::row_major(d, {4096}))},
        layout::row_major(d, {4096, 4096}));
    const auto ranked = gemm_problem_configs(t.policy().view(t.context()), false, {});
    ASSERT_FALSE(ranked.empty());
    EXPECT_EQ(ranked.front().name(), "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8");
    // Every Hopper config comes before every mma.sync one, and both paths are there (all Hopper
    // tilings but 128 x 192 and 128 x 160, which are for problems with few tiles).
    const auto first_mma =
        std::find_if(ranked.begin(), ranked.end(), [](const gemm_config& c) { return c.holds<mma_config>(); });
    ASSERT_NE(first_mma, ranked.end());
    EXPECT_EQ(first_mma - ranked.begin(), static_cast<std::ptrdiff_t>(wgmma_path::search_space().size() - 2));
  }
  // Small problems: the 128x64 tile first.
  auto small = square(dtype::f16, 1024, 1024, 1024);
  EXPECT_EQ(gemm_problem_configs(small.policy().view(small.context()), false, {}).front().name(),
            "wgmma_bm128_bn64_bk64_wm64_wn64_g8_s8_v8");
}

// Problems the Hopper path cannot serve never get its configurations.
TEST(GemmSearchSpace, HopperConfigsStayOffProblemsTheyCannotServe) {
  const auto has_wgmma = [](const rocmtpl::rocm_template<gemm_policy>& t, const size_hints& h, bool split = false) {
    const auto ranked = gemm_problem_configs(t.policy().view(t.context()), split, h);
    return std::any_of(ranked.begin(), ranked.end(), [](const gemm_config& c) { return c.holds<wgmma_config>(); });
  };
  const size_hints h{{"M", 512}, {"N", 512}, {"K", 512}};
  EXPECT_TRUE(has_wgmma(square(dtype::f16, M, N, K), h));
  EXPECT_TRUE(has_wgmma(square(dtype::bf16, M, N, K), h));
  // Sizes neither static nor hinted: only the paths that serve every size.
  EXPECT_FALSE(has_wgmma(square(dtype::bf16, M, N, K), {}));
  EXPECT_FALSE(has_wgmma(square(dtype::f16, M, N, K), {{"M", 512}, {"N", 512}}));
  EXPECT_FALSE(has_wgmma(square(dtype::f32, M, N, K), h));
  // K or N not a multiple of 8 (statically or by the hints): TMA row pitches and 8-column stores.
  EXPECT_FALSE(has_wgmma(square(dtype::f16, 1000, 3000, 700), {}));
  EXPECT_FALSE(has_wgmma(square(dtype::f16, 64, 36, 64), {}));
  EXPECT_FALSE(has_wgmma(square(dtype::f16, M, N, K), {{"M", 512}, {"N", 512}, {"K", 700}}));
  EXPECT_TRUE(has_wgmma(square(dtype::f16, 1000, 3000, 712), {}));
  // Column-major W or X, an f32 output, a batch.
  const auto with = [](layout x, layout w, layout y) {
    return rocmtpl::rocm_template<gemm_policy>(gemm_policy(), {buffer("x", std::move(x)), buffer("w", std::move(w))},
                                               std::move(y));
  };
  EXPECT_FALSE(has_wgmma(with(layout::row_major(dtype::f16, {M, K}), layout::col_major(dtype::f16, {K, N}),
                              layout::row_major(dtype::f16, {M, N})),
                         h));
  EXPECT_FALSE(has_wgmma(with(layout::col_major(dtype::f16, {M, K}), layout::row_major(dtype::f16, {K, N}),
                              layout::row_major(dtype::f16, {M, N})),
                         h));
  EXPECT_FALSE(has_wgmma(with(layout::row_major(dtype::f16, {M, K}), layout::row_major(dtype::f16, {K, N}),
                              layout::row_major(dtype::f32, {M, N})),
                         h));
  EXPECT_TRUE(has_wgmma(with(layout::row_major(dtype::f16, {M, K}), layout::row_major(dtype::f16, {K, N}),
                             layout::row_major(dtype::bf16, {M, N})),
                        h));
  // A batch folds into M where W is shared and X, Y hold their batches back to back (issue 10);
  // a W with batches of its own (bmm), a padded X batch, a Bias along M shared by the batches do not.
  const auto b = sym_expr::symbol("B");
  EXPECT_TRUE(has_wgmma(with(layout::row_major(dtype::f16, {2, M, K}), layout::row_major(dtype::f16, {K, N}),
                             layout::row_major(dtype::f16, {2, M, N})),
                        h));
  const auto batched = with(layout::row_major(dtype::f16, {b, M, K}), layout::row_major(dtype::f16, {K, N}),
                            layout::row_major(dtype::f16, {b, M, N}));
  EXPECT_TRUE(has_wgmma(batched, {{"B", 4}, {"M", 512}, {"N", 512}, {"K", 512}}));
  EXPECT_TRUE(has_wgmma(batched, {{"B", 1}, {"M", 512}, {"N", 512}, {"K", 512}}));
  EXPECT_FALSE(has_wgmma(batched, {{"M", 512}, {"N", 512}, {"K", 512}}));  // batch not known
  EXPECT_FALSE(has_wgmma(with(layout::row_major(dtype::f16, {2, M, K}), layout::row_major(dtype::f16, {2, K, N}),
                              layout::row_major(dtype::f16, {2, M, N})),
                         h));
  EXPECT_FALSE(has_wgmma(with(layout(dtype::f16, {2, M, K}, {M * K + 64, K, 1}), layout::row_major(dtype::f16, {K, N}),
                              layout::row_major(dtype::f16, {2, M, N})),
                         h));
  rocmtpl::rocm_template<gemm_policy> bias_m(
      gemm_policy({.bias_along = rocmtpl::templates::bias_dim::m}),
      {buffer("x", layout::row_major(dtype::f16, {2, M, K})), buffer("w", layout::row_major(dtype::f16, {K, N})),
       buffer("bias", layout::row_major(dtype::f32, {M}))},
      layout::row_major(dtype::f16, {2, M, N}));
  EXPECT_FALSE(has_wgmma(bias_m, h));
  // Bias: along N it must be 16-bit; along M any dtype; a full [M, N] bias is not served.
  const auto biased = [](dtype bias, std::vector<sym_expr> sizes, gemm_options o = {}) {
    return rocmtpl::rocm_template<gemm_policy>(
        gemm_policy(o),
        {buffer("x", layout::row_major(dtype::f16, {M, K})), buffer("w", layout::row_major(dtype::f16, {K, N})),
         buffer("bias", layout::row_major(bias, std::move(sizes)))},
        layout::row_major(dtype::f16, {M, N}));
  };
  EXPECT_TRUE(has_wgmma(biased(dtype::f16, {N}), h));
  EXPECT_FALSE(has_wgmma(biased(dtype::f32, {N}), h));
  EXPECT_TRUE(has_wgmma(biased(dtype::f32, {M}, {.bias_along = rocmtpl::templates::bias_dim::m}), h));
  EXPECT_FALSE(has_wgmma(biased(dtype::f16, {M, N}), h));
}

// Runtime split-K on the Hopper path (issue 10): split variants of every Hopper config whose slices
// keep at least two K steps; one output tile with a long K ranks a split Hopper config first; a
// large square problem (3.9 waves of 128x256 tiles) keeps the unsplit one first.
TEST(GemmSearchSpace, HopperSplitKVariantsFillTheMachineWhereTilesAreFew) {
  const auto split = square(dtype::f16, M, N, K, {.runtime_split_k = true});
  const auto view = split.policy().view(split.context());
  const auto ranked = gemm_problem_configs(view, true, {{"M", 128}, {"N", 128}, {"K", 16384}});
  ASSERT_FALSE(ranked.empty());
  EXPECT_TRUE(ranked.front().holds<wgmma_config>()) << ranked.front().name();
  EXPECT_GT(ranked.front().split_k(), 1) << ranked.front().name();
  for (const auto& c : ranked) EXPECT_GE(16384 / c.split_k(), 2 * block_k_of(c)) << c.name();
  const auto hopper_splits = [](const std::vector<gemm_config>& list) {
    return std::count_if(list.begin(), list.end(),
                         [](const gemm_config& c) { return c.holds<wgmma_config>() && c.split_k() > 1; });
  };
  // Every tiling but 256 x 128, whose last m64 blocks lie past M = 128, x {2, 4, 8, 16}.
  const auto tilings = static_cast<std::ptrdiff_t>(wgmma_path::search_space().size()) - 1;
  EXPECT_EQ(hopper_splits(ranked), tilings * 4);
  EXPECT_TRUE(std::none_of(ranked.begin(), ranked.end(), [](const gemm_config& c) {
    const auto* w = c.get_if<wgmma_config>();
    return w != nullptr && w->block_m == 256;
  }));
  // K = 512: 8 steps of 64, so only 2 and 4 slices.
  EXPECT_EQ(hopper_splits(gemm_problem_configs(view, true, {{"M", 128}, {"N", 128}, {"K", 512}})), tilings * 2);
  const auto big = gemm_problem_configs(view, true, {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  EXPECT_TRUE(big.front().holds<wgmma_config>()) << big.front().name();
  EXPECT_EQ(big.front().split_k(), 1) << big.front().name();
  // Without runtime split-K the same variants come as static K slices (one tile: fewer than the
  // SMs), and a split one still ranks first; with many tiles there are none.
  const auto static_ranked = gemm_problem_configs(view, false, {{"M", 128}, {"N", 128}, {"K", 16384}});
  EXPECT_EQ(hopper_splits(static_ranked), tilings * 4);
  EXPECT_GT(static_ranked.front().split_k(), 1) << static_ranked.front().name();
  EXPECT_EQ(hopper_splits(gemm_problem_configs(view, false, {{"M", 8192}, {"N", 8192}, {"K", 4096}})), 0);
}
}  // namespace

namespace {

// The benchmark's skinny shapes (M in {1, 8, 32, 64}, N = K = 8192) and their transposes rank a
// skinny configuration first, splitting K where the output alone cannot fill the GPU; wider
// problems have none.
TEST(GemmSearchSpace, SkinnyRanksFirstForFewRowsOrColumns) {
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    auto t = square(d, M, N, K);
    const auto v = t.policy().view(t.context());
    for (std::int64_t m : {1, 8, 32, 64}) {
      for (bool split : {false, true}) {
        const auto ranked = gemm_problem_configs(v, split, {{"M", m}, {"N", 8192}, {"K", 8192}});
        ASSERT_FALSE(ranked.empty());
        const auto& top = ranked.front();
        EXPECT_EQ(side_of(top), skinny_side::m) << name(d) << " M " << m << ": " << top.name();
        EXPECT_EQ(vector_of(top) * static_cast<int>(element_size(d)), 16) << top.name();
        if (m == 1) {
          EXPECT_GT(top.split_k(), 1) << top.name();
        }
        if (d == dtype::f32) {
          const auto* fma = top.get_if<skinny_config>();
          ASSERT_NE(fma, nullptr) << top.name();
          EXPECT_GE(fma->p_threads, 32) << top.name();  // the streaming kernel: W is contiguous along N
          EXPECT_LE(fma->rows, m == 1 ? 1 : 16) << top.name();
        } else {
          // Matrix cores (W contiguous along N): tiles of 8 rows, at most the rows there are.
          const auto* mma = top.get_if<skinny_mma_config>();
          ASSERT_NE(mma, nullptr) << top.name();
          EXPECT_LE(mma->rows, std::max<std::int64_t>(m, 8)) << top.name();
        }
      }
      const auto transposed = gemm_problem_configs(v, false, {{"M", 8192}, {"N", m}, {"K", 8192}});
      EXPECT_EQ(side_of(transposed.front()), skinny_side::n) << transposed.front().name();
      const auto* dot = transposed.front().get_if<skinny_config>();
      ASSERT_NE(dot, nullptr) << transposed.front().name();
      EXPECT_GE(dot->k_threads, 8) << transposed.front().name();  // the dot kernel: X is K-contiguous
    }
    for (const auto& c : gemm_problem_configs(v, true, {{"M", 65}, {"N", 8192}, {"K", 8192}})) {
      EXPECT_FALSE(is_skinny(c)) << c.name();
    }
  }
}

// Issue 10: a 16-bit problem whose large operand is contiguous along its large dimension ranks at most four of them
// first (the fp32 skinny kernels follow: AMD refuses the matrix-core ones), others none.
TEST(GemmSearchSpace, SkinnyMmaLeadsSixteenBitStreamingProblems) {
  const auto leading_mma = [](const std::vector<gemm_config>& ranked) {
    std::size_t n = 0;
    while (n < ranked.size() && ranked[n].holds<skinny_mma_config>()) ++n;
    EXPECT_EQ(
        std::count_if(ranked.begin(), ranked.end(), [](const gemm_config& c) { return c.holds<skinny_mma_config>(); }),
        static_cast<std::ptrdiff_t>(n));
    return n;
  };
  for (dtype d : {dtype::f16, dtype::bf16}) {
    auto t = square(d, M, N, K);
    const auto v = t.policy().view(t.context());
    for (std::int64_t m : {1, 8, 32, 64}) {
      const auto ranked = gemm_problem_configs(v, false, {{"M", m}, {"N", 8192}, {"K", 8192}});
      const auto n = leading_mma(ranked);
      EXPECT_GE(n, 2U) << m;
      EXPECT_LE(n, 4U) << m;
      ASSERT_LT(n, ranked.size());
      EXPECT_TRUE(ranked[n].holds<skinny_config>()) << ranked[n].name();
    }
    // N = 1001 (rows of W not 16-byte aligned): none.
    EXPECT_EQ(leading_mma(gemm_problem_configs(v, false, {{"M", 8}, {"N", 1001}, {"K", 8192}})), 0U);
    // Few columns: X (row-major) is the large operand, contiguous along K: none.
    EXPECT_EQ(leading_mma(gemm_problem_configs(v, false, {{"M", 8192}, {"N", 8}, {"K", 8192}})), 0U);
    // Few columns of a column-major X (X contiguous along M): matrix cores, W^T read element by
    // element, so without the heaviest tiles (they spilled there).
    rocmtpl::rocm_template<gemm_policy> col_x(
        gemm_policy(), {buffer("x", layout::col_major(d, {M, K})), buffer("w", layout::row_major(d, {K, N}))},
        layout::row_major(d, {M, N}));
    const auto n_side =
        gemm_problem_configs(col_x.policy().view(col_x.context()), false, {{"M", 8192}, {"N", 64}, {"K", 8192}});
    EXPECT_GE(leading_mma(n_side), 2U);
    EXPECT_EQ(side_of(n_side.front()), skinny_side::n) << n_side.front().name();
    for (std::size_t i = 0; i < leading_mma(n_side); ++i)
      EXPECT_LT(n_side[i].register_estimate(), 200) << n_side[i].name();
    // nn.Linear weights (W contiguous along K): none.
    rocmtpl::rocm_template<gemm_policy> linear(
        gemm_policy(), {buffer("x", layout::row_major(d, {M, K})), buffer("w", layout::col_major(d, {K, N}))},
        layout::row_major(d, {M, N}));
    EXPECT_EQ(leading_mma(gemm_problem_configs(linear.policy().view(linear.context()), false,
                                               {{"M", 8}, {"N", 8192}, {"K", 8192}})),
              0U);
  }
  auto f32 = square(dtype::f32, M, N, K);
  EXPECT_EQ(
      leading_mma(gemm_problem_configs(f32.policy().view(f32.context()), false, {{"M", 8}, {"N", 8192}, {"K", 8192}})),
      0U);
}

// 16-bit problems with more than 16 rows, and f32 ones whose best skinny configuration is
// FMA-bound: the best tiled configurations follow the eight best skinny ones (matrix cores or the
// SIMT tiles may beat the skinny kernels' fp32 FMAs there); not for 16 rows or fewer.
TEST(GemmSearchSpace, SixteenBitSkinnyKeepsTiledConfigsInTheTop16) {
  const auto tiled_in_top16 = [](dtype d, std::int64_t m) {
    auto t = square(d, M, N, K);
    const auto ranked = gemm_problem_configs(t.policy().view(t.context()), false, {{"M", m}, {"N", 8192}, {"K", 8192}});
    int tiled = 0;
    for (std::size_t i = 0; i < 16 && i < ranked.size(); ++i) tiled += is_skinny(ranked[i]) ? 0 : 1;
    EXPECT_TRUE(is_skinny(ranked.front())) << ranked.front().name();
    if (tiled > 0) {
      EXPECT_TRUE(std::all_of(ranked.begin(), ranked.begin() + 8, [](const gemm_config& c) { return is_skinny(c); }));
    }
    return tiled;
  };
  EXPECT_EQ(tiled_in_top16(dtype::f16, 64), 8);
  EXPECT_EQ(tiled_in_top16(dtype::bf16, 32), 8);
  EXPECT_EQ(tiled_in_top16(dtype::f16, 16), 0);
  // f32: where the cost model finds the best skinny configuration FMA-bound (32 rows and more;
  // on the H100 the SIMT and split-K tiles were not measured at M = 32 and 64, and the skinny
  // kernels ran at 0.67x and 0.36x of cuBLAS).
  EXPECT_EQ(tiled_in_top16(dtype::f32, 64), 8);
  EXPECT_EQ(tiled_in_top16(dtype::f32, 32), 8);
  EXPECT_EQ(tiled_in_top16(dtype::f32, 16), 0);
  EXPECT_EQ(tiled_in_top16(dtype::f32, 8), 0);
}

// 16-bit, 24-64 x 8192 x 8192: W streams from DRAM. Tuning every configuration on the H200 found
// the ping-pong 64 x 64 tile fastest, unsplit (128 blocks, each a 64-column strip of W over the
// whole of K, as cuBLAS does): 0.0460 ms at 32 rows against 0.0485 for the best K split of the
// 64 x 256 tile, which had won before it existed. The cost model's memory bound ranks it first
// among the Hopper tilings there (behind the skinny kernels, which rank on FMA-free bandwidth).
TEST(GemmSearchSpace, StreamingProblemsRankThe64x64TileFirstOfTheHopperTiles) {
  auto t = square(dtype::f16, M, N, K);
  for (const std::int64_t m : {24, 32, 48, 64}) {
    const auto ranked = gemm_problem_configs(t.policy().view(t.context()), false, {{"M", m}, {"N", 8192}, {"K", 8192}});
    const auto first = std::find_if(ranked.begin(), ranked.end(),
                                    [](const gemm_config& c) { return c.holds<rocmtpl::templates::wgmma_config>(); });
    ASSERT_NE(first, ranked.end()) << m;
    EXPECT_EQ(first->name(), "wgmma_bm64_bn64_bk64_wm64_wn64_g8_s12_v8_pp") << m << " rows";
    EXPECT_LT(first - ranked.begin(), 16) << m << " rows";
  }
}

// Tilings whose last m64 blocks lie wholly past M are not offered: M <= 64 keeps the 64-row tilings
// (ping-pong 64 x 64 and 64 x 256), M <= 192 drops 256 x 128; a batch folds into M.
TEST(GemmSearchSpace, HopperTilingsWithRowsPastMAreNotOffered) {
  const auto block_ms = [](const rocmtpl::rocm_template<gemm_policy>& t, const size_hints& h) {
    std::vector<int> out;
    for (const auto& c : gemm_problem_configs(t.policy().view(t.context()), false, h)) {
      if (const auto* w = c.get_if<wgmma_config>(); w != nullptr) out.push_back(w->block_m);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  auto t = square(dtype::f16, M, N, K);
  EXPECT_EQ(block_ms(t, {{"M", 48}, {"N", 8192}, {"K", 8192}}), (std::vector<int>{64}));
  EXPECT_EQ(block_ms(t, {{"M", 64}, {"N", 4096}, {"K", 4096}}), (std::vector<int>{64}));
  EXPECT_EQ(block_ms(t, {{"M", 65}, {"N", 8192}, {"K", 8192}}), (std::vector<int>{64, 128}));
  EXPECT_EQ(block_ms(t, {{"M", 192}, {"N", 8192}, {"K", 8192}}), (std::vector<int>{64, 128}));
  EXPECT_EQ(block_ms(t, {{"M", 193}, {"N", 8192}, {"K", 8192}}), (std::vector<int>{64, 128, 256}));
  const auto b = sym_expr::symbol("B");
  const rocmtpl::rocm_template<gemm_policy> batched(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {b, M, K})), buffer("w", layout::row_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {b, M, N}));
  EXPECT_EQ(block_ms(batched, {{"B", 2}, {"M", 48}, {"N", 4096}, {"K", 4096}}), (std::vector<int>{64, 128}));
  EXPECT_EQ(block_ms(batched, {{"B", 8}, {"M", 48}, {"N", 4096}, {"K", 4096}}), (std::vector<int>{64, 128, 256}));
}

// f32 with 32 or 64 rows and no runtime split-K: the tiled SIMT configurations that compete there
// split K statically (N / 64 tiles alone leave most SMs idle); 16-bit problems and wide ones do not.
TEST(GemmSearchSpace, FewRowsF32SplitsTheSimtTilesStatically) {
  const auto split_in_top16 = [](dtype d, std::int64_t m, std::int64_t n) {
    auto t = square(d, M, N, K);
    const auto ranked = gemm_problem_configs(t.policy().view(t.context()), false, {{"M", m}, {"N", n}, {"K", 8192}});
    int split = 0;
    for (std::size_t i = 0; i < 16 && i < ranked.size(); ++i) {
      const auto& c = ranked[i];
      if (c.split_k() == 1 || is_skinny(c)) continue;
      EXPECT_TRUE(c.holds<simt_config>() || c.holds<wgmma_config>()) << c.name();
      EXPECT_GE(8192 / c.split_k(), 2 * block_k_of(c)) << c.name();
      ++split;
    }
    return split;
  };
  EXPECT_GE(split_in_top16(dtype::f32, 32, 8192), 4);
  EXPECT_GE(split_in_top16(dtype::f32, 64, 8192), 4);
  EXPECT_EQ(split_in_top16(dtype::f32, 8, 8192), 0);
  EXPECT_EQ(split_in_top16(dtype::f32, 4096, 4096), 0);
  // 16-bit: the Hopper tiles split K statically where they are fewer than the SMs (64 x 8192:
  // 64 tiles of 128 x 128); SIMT does not serve 16-bit pairs.
  EXPECT_GE(split_in_top16(dtype::f16, 64, 8192), 1);
}

// fp32 with 65 to 255 rows (issue 25): no skinny kernel serves them, and the SIMT tiles alone leave
// SMs idle, so their static split-K variants rank among the first 16.
TEST(GemmSearchSpace, MidRowsF32RanksStaticSplitKVariants) {
  for (const std::int64_t m : {96, 128, 200, 255}) {
    auto t = square(dtype::f32, M, N, K);
    const auto ranked = gemm_problem_configs(t.policy().view(t.context()), false, {{"M", m}, {"N", 8192}, {"K", 8192}});
    const auto top = ranked.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(16, ranked.size()));
    EXPECT_TRUE(std::any_of(ranked.begin(), top, [](const gemm_config& c) { return c.split_k() > 1; })) << m;
  }
}

// With runtime split-K, the tiled paths' split variants stay in a skinny problem's space, after
// the skinny ones, and the best tiled one splits K.
TEST(GemmSearchSpace, SkinnySpaceKeepsTheTiledSplitK) {
  for (dtype d : {dtype::f32, dtype::f16}) {
    auto t = square(d, M, N, K);
    const auto ranked = gemm_problem_configs(t.policy().view(t.context()), true, {{"M", 8}, {"N", 8192}, {"K", 8192}});
    const auto first_tiled = std::find_if(
        ranked.begin(), ranked.end(), [](const gemm_config& c) { return !is_skinny(c) && !c.holds<wgmma_config>(); });
    ASSERT_NE(first_tiled, ranked.end());
    EXPECT_TRUE(std::all_of(ranked.begin(), first_tiled,
                            [](const gemm_config& c) { return is_skinny(c) || c.holds<wgmma_config>(); }));
    EXPECT_GT(first_tiled->split_k(), 1) << first_tiled->name();
    EXPECT_TRUE(std::any_of(first_tiled, ranked.end(), [](const gemm_config& c) { return c.split_k() == 1; }));
  }
}

}  // namespace

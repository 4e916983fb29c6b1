// SPDX-License-Identifier: MIT
// templates/gemm/wgmma/path.hpp: the Hopper path as a unit: its search space (the measured
// configurations), cost model against the matrix-core path, per-problem candidates (none for
// problems it cannot serve), refusals, run-time requirements and serialised form.
#include <rocmtpl/templates/gemm/wgmma/path.hpp>

#include <rocmtpl/templates/gemm/mma/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {
using namespace gemm_test;
using rocmtpl::launch_requirement_kind;
using rocmtpl::templates::gemm_config_fields;
using rocmtpl::templates::gemm_path_family;
using rocmtpl::templates::mma_path;
using rocmtpl::templates::wgmma_path;

static_assert(rocmtpl::templates::gemm_path<wgmma_path>);
static_assert(wgmma_path::name == "wgmma" && wgmma_path::family == gemm_path_family::tiled);
static_assert(wgmma_path::splits_k_statically);  // static K slices for few-tile problems

wgmma_config hopper_tile(int bm, int bn, int stages) { return {.block_m = bm, .block_n = bn, .stages = stages}; }

TEST(GemmWgmmaPath, SearchSpaceHoldsTheMeasuredConfigsWithTheMostStages) {
  std::vector<std::string> names;
  for (const auto& c : wgmma_path::search_space()) {
    EXPECT_FALSE(c.invalid_reason().has_value()) << c.name_text().view();
    auto more = c;
    ++more.stages;
    EXPECT_TRUE(c.stages == 8 || c.stages == 16 || more.invalid_reason().has_value()) << c.name_text().view();
    names.push_back(c.name_text().str());
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8", "wgmma_bm256_bn128_bk64_wm128_wn128_g8_s4_v8",
                       "wgmma_bm128_bn128_bk64_wm64_wn128_g8_s6_v8", "wgmma_bm128_bn64_bk64_wm64_wn64_g8_s8_v8",
                       "wgmma_bm128_bn192_bk64_wm64_wn192_g8_s5_v8", "wgmma_bm128_bn160_bk64_wm64_wn160_g8_s5_v8",
                       "wgmma_bm128_bn128_bk64_wm128_wn128_g8_s6_v8_pp", "wgmma_bm64_bn256_bk64_wm64_wn256_g8_s5_v8_pp",
                       "wgmma_bm64_bn64_bk64_wm64_wn64_g8_s12_v8_pp"}));
}

// Ping-pong hides the epilogue, not the main loop: the cooperative 128 x 256 tile still ranks
// above it on large problems, and the 64-row ping-pong tile above every 128-row one at 32 rows
// (the 128-row tiles compute four times the rows asked for).
TEST(GemmWgmmaPath, PingPongWinsFewRowsAndTrailsOnLargeProblems) {
  const auto big = hopper_tile(128, 256, 4);
  wgmma_config pp64 = hopper_tile(64, 256, 5);
  pp64.pingpong = 1;
  wgmma_config pp128 = hopper_tile(128, 128, 6);
  pp128.pingpong = 1;
  for (const std::int64_t s : {4096, 8192}) {
    EXPECT_LT(wgmma_path::estimate_cost(big, s, s, s, 1), wgmma_path::estimate_cost(pp128, s, s, s, 1)) << s;
    EXPECT_LT(wgmma_path::estimate_cost(big, s, s, s, 1), wgmma_path::estimate_cost(pp64, s, s, s, 1)) << s;
  }
  // Same tile, same main loop: ping-pong only drops the exposed epilogue.
  EXPECT_LT(wgmma_path::estimate_cost(pp128, 4096, 4096, 4096, 1),
            wgmma_path::estimate_cost(hopper_tile(128, 128, 6), 4096, 4096, 4096, 1));
  // The best K split of each tiling at 32 x 8192 x 8192: the 64-row ping-pong tile's beats every
  // 128-row tiling's (their rows are three quarters padding).
  const auto best = [](wgmma_config c) {
    double cost = wgmma_path::estimate_cost(c, 32, 8192, 8192, 1);
    for (int split : {2, 4, 8, 16}) {
      c.split_k = split;
      cost = std::min(cost, wgmma_path::estimate_cost(c, 32, 8192, 8192, 1));
    }
    return cost;
  };
  for (const auto& c : wgmma_path::search_space()) {
    if (c.block_m > 64) {
      EXPECT_LT(best(pp64), best(c)) << c.name_text().view();
    }
  }
}

TEST(GemmWgmmaPath, BeatsMmaSyncOnLargeProblemsAndSmallTilesWinSmallOnes) {
  const mma_config mma128{.block_m = 128, .block_n = 128, .block_k = 32, .warp_m = 64, .warp_n = 64, .stages = 4};
  const auto big = hopper_tile(128, 256, 4);
  const auto small = hopper_tile(128, 64, 8);
  const auto cost = [](const wgmma_config& c, std::int64_t m, std::int64_t n, std::int64_t k) {
    return wgmma_path::estimate_cost(c, m, n, k, 1);
  };
  // NOTES.md: wgmma ran 2.0-2.3x the throughput of mma.sync at 4096^3 and 8192^3.
  for (const std::int64_t s : {2048, 4096, 8192}) {
    const double ratio = mma_path::estimate_cost(mma128, s, s, s, 1) / cost(big, s, s, s);
    EXPECT_GT(ratio, 1.8) << s;
    EXPECT_LT(ratio, 4.0) << s;
    EXPECT_LT(cost(big, s, s, s), cost(small, s, s, s)) << s;
  }
  // 128x256 and 256x128 tie; 128x128 trails them on large problems.
  EXPECT_DOUBLE_EQ(cost(big, 4096, 4096, 4096), cost(hopper_tile(256, 128, 4), 4096, 4096, 4096));
  EXPECT_LT(cost(big, 8192, 8192, 8192), cost(hopper_tile(128, 128, 6), 8192, 8192, 8192));
  // 1024^3 and 64 x 8192 x 8192: too few 128x256 tiles for 132 SMs; 128x64 won there.
  EXPECT_LT(cost(small, 1024, 1024, 1024), cost(big, 1024, 1024, 1024));
  EXPECT_LT(cost(small, 64, 8192, 8192), cost(big, 64, 8192, 8192));
  const double degenerate = wgmma_path::estimate_cost(big, 0, 0, 0, 0);
  EXPECT_GT(degenerate, 0.0);
  EXPECT_LT(degenerate, 1e12);
}

// The fp32 partials and the reduction launch cost more than they save on a large square problem,
// and less on one output tile with a long K.
TEST(GemmWgmmaPath, SplitKPaysOffOnlyForFewTilesWithLongK) {
  const auto tile = hopper_tile(128, 128, 6);
  auto split = tile;
  split.split_k = 8;
  EXPECT_LT(wgmma_path::estimate_cost(split, 128, 128, 16384, 1), wgmma_path::estimate_cost(tile, 128, 128, 16384, 1));
  EXPECT_GT(wgmma_path::estimate_cost(split, 4096, 4096, 4096, 1),
            wgmma_path::estimate_cost(tile, 4096, 4096, 4096, 1));
}

// Stream-K: offered for every tiling of a problem with few tiles (with the fewest blocks per tile
// that cover the SMs), ranked above the unsplit tile there, absent with many tiles or runtime
// split-K; its workspace holds the counters and tiles x (stream_k + 1) fp32 tiles.
TEST(GemmWgmmaPath, StreamKWhereTilesAreFew) {
  const auto f16 = square(dtype::f16, M, N, K);
  const auto v = f16.policy().view(f16.context());
  const auto stream = [](const std::vector<std::pair<double, wgmma_config>>& list) {
    std::vector<wgmma_config> out;
    for (const auto& [cost, c] : list) {
      if (c.stream_k != 0) out.push_back(c);
    }
    return out;
  };
  const size_hints few{{"M", 3072}, {"N", 768}, {"K", 4096}};  // 72 tiles of 128 x 256
  const auto ranked = wgmma_path::problem_configs(v, rank_request(v, few, false));
  const auto sk = stream(ranked);
  ASSERT_EQ(sk.size(), 7U);  // every tiling but 128 x 64 (288 tiles: two waves)
  EXPECT_EQ(std::count_if(sk.begin(), sk.end(), [](const wgmma_config& c) { return c.pingpong != 0; }), 2);
  for (const auto& c : sk) {
    EXPECT_FALSE(c.invalid_reason().has_value()) << c.name_text().view();
    const double tiles = std::ceil(3072.0 / c.block_m) * std::ceil(768.0 / c.block_n);
    EXPECT_GE(tiles * c.stream_k, 132) << c.name_text().view();
    EXPECT_TRUE(c.stream_k == 2 || tiles * c.stream_k / 2 < 132) << c.name_text().view();  // the fewest
  }
  EXPECT_EQ(sk.front(), (wgmma_config{.block_m = 128, .block_n = 256, .stages = 4, .stream_k = 2}));
  EXPECT_LT(wgmma_path::estimate_cost(sk.front(), 3072, 768, 4096, 1),
            wgmma_path::estimate_cost(hopper_tile(128, 256, 4), 3072, 768, 4096, 1));
  EXPECT_TRUE(
      stream(wgmma_path::problem_configs(v, rank_request(v, {{"M", 4096}, {"N", 4096}, {"K", 4096}}, false))).empty());
  // The 128 x 160 tiling ranks first at 3072 x 768 and 1536 x 1536 (whole tiles): 120 tiles on 132
  // SMs, where 128 x 192 fills 96, 128 x 256 72 and 128 x 128 takes two waves of 144. 128 x 256
  // stays first at 4096^3.
  const auto best = [&](const size_hints& h) {
    auto list = wgmma_path::problem_configs(v, rank_request(v, h, false));
    return std::min_element(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; })
        ->second;
  };
  const wgmma_config wide{.block_m = 128, .block_n = 160, .stages = 5};
  EXPECT_EQ(best(few), wide) << best(few).name_text().view();
  EXPECT_EQ(best({{"M", 1536}, {"N", 1536}, {"K", 6144}}), wide);
  EXPECT_EQ(best({{"M", 4096}, {"N", 4096}, {"K", 4096}}), hopper_tile(128, 256, 4));
  EXPECT_TRUE(stream(wgmma_path::problem_configs(v, rank_request(v, few, true))).empty());
  // 32 rows (issue 25 item 4): the ping-pong 64 x 256 tile, 32 tiles, 8 blocks a tile.
  const auto rows =
      stream(wgmma_path::problem_configs(v, rank_request(v, {{"M", 32}, {"N", 8192}, {"K", 8192}}, false)));
  EXPECT_NE(std::find(rows.begin(), rows.end(),
                      wgmma_config{.block_m = 64, .block_n = 256, .stages = 5, .pingpong = 1, .stream_k = 8}),
            rows.end());
  EXPECT_TRUE(wgmma_path::unsupported(sk.front(), v, {.runtime_split_k = true}).has_value());
  EXPECT_FALSE(wgmma_path::unsupported(sk.front(), v, {}).has_value());
  // 72 tiles: 72 x 4 counter bytes (one 256-byte line... two), then 72 x 3 tiles of 128 x 256 floats.
  const auto bytes = wgmma_path::workspace_bytes(sk.front(), v);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(bytes->evaluate(few), 512 + 72 * 3 * 128 * 256 * 4);
  EXPECT_FALSE(wgmma_path::workspace_bytes(hopper_tile(128, 256, 4), v).has_value());
  // The serialised form keeps it.
  EXPECT_EQ(wgmma_path::parse(wgmma_path::describe(sk.front())), sk.front());
}

TEST(GemmWgmmaPath, ProblemConfigsOnlyWhereThePathServes) {
  const size_hints h{{"M", 512}, {"N", 512}, {"K", 512}};
  const auto configs = [&](const rocmtpl::rocm_template<gemm_policy>& t, const size_hints& hints, bool split = false) {
    const auto v = t.policy().view(t.context());
    return wgmma_path::problem_configs(v, rank_request(v, hints, split));
  };
  const auto f16 = square(dtype::f16, M, N, K);
  // 512 x 512 has fewer tiles than SMs for every tile: static 2 and 4 slices of K = 512 (8 steps
  // of 64) per configuration.
  const auto ranked = configs(f16, h);
  const auto tilings = wgmma_path::search_space().size();
  ASSERT_EQ(ranked.size(), tilings * 4);  // and a stream-K variant of each tiling
  for (const auto& [cost, c] : ranked) {
    EXPECT_DOUBLE_EQ(cost, wgmma_path::estimate_cost(c, 512, 512, 512, 1));
  }
  // 4096 x 4096 has enough for each, so no variants; nor 128 x 192 and 128 x 160, which are for few tiles.
  const auto many = configs(f16, {{"M", 4096}, {"N", 4096}, {"K", 512}});
  EXPECT_EQ(many.size(), tilings - 2);
  EXPECT_TRUE(std::none_of(many.begin(), many.end(),
                           [](const auto& e) { return e.second.block_n == 192 || e.second.block_n == 160; }));
  // Runtime split-K: the same slices, whatever the tile count.
  EXPECT_EQ(configs(f16, h, true).size(), tilings * 3);
  EXPECT_EQ(configs(f16, {{"M", 4096}, {"N", 4096}, {"K", 512}}, true).size(), (tilings - 2) * 3);
  // f32, sizes neither static nor hinted, K not a multiple of 8, a column-major W: none.
  EXPECT_TRUE(configs(square(dtype::f32, M, N, K), h).empty());
  EXPECT_TRUE(configs(f16, {}).empty());
  EXPECT_TRUE(configs(f16, {{"M", 512}, {"N", 512}, {"K", 700}}).empty());
  const rocmtpl::rocm_template<gemm_policy> col_w(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {M, K})), buffer("w", layout::col_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {M, N}));
  EXPECT_TRUE(configs(col_w, h).empty());
}

TEST(GemmWgmmaPath, RefusesWhatItCannotServeAndSerialisesItsFields) {
  const auto c = hopper_tile(128, 128, 6);
  const auto f32 = square(dtype::f32, M, N, K);
  const auto why = wgmma_path::unsupported(c, f32.policy().view(f32.context()), {});
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(contains(*why, "rocmtpl: gemm: wgmma config wgmma_bm128_bn128_bk64_wm64_wn128_g8_s6_v8: ")) << *why;
  EXPECT_TRUE(contains(*why, "; use a matrix_core or simt config")) << *why;
  const auto f16 = square(dtype::f16, M, N, K);
  EXPECT_FALSE(wgmma_path::unsupported(c, f16.policy().view(f16.context()), {}).has_value());
  auto s = c;
  s.split_k = 4;
  const gemm_config_fields d{{"math", "wgmma"}, {"block_m", "128"}, {"block_n", "128"}, {"block_k", "64"},
                             {"warp_m", "64"},  {"warp_n", "128"},  {"group_m", "8"},   {"stages", "6"},
                             {"vector", "8"},   {"split_k", "4"}};
  EXPECT_EQ(wgmma_path::describe(s), d);
  EXPECT_EQ(wgmma_path::parse(d), s);
  EXPECT_FALSE(wgmma_path::parse({{"math", "matrix_core"}}).has_value());
  // The derived and fixed fields must be the ones the configuration implies.
  EXPECT_THROW((void)wgmma_path::parse({{"math", "wgmma"}, {"block_m", "128"}, {"warp_m", "128"}}),
               rocmtpl::invalid_argument_error);
  EXPECT_THROW((void)wgmma_path::parse({{"math", "wgmma"}, {"block_k", "32"}}), rocmtpl::invalid_argument_error);
  EXPECT_THROW((void)wgmma_path::parse({{"math", "wgmma"}, {"vector", "4"}}), rocmtpl::invalid_argument_error);
}

// What the entry checks at run time: nothing statically true. Static 4096^3 row-major f16 needs
// only its pointers aligned; symbolic sizes add N and the row pitches as multiples of 8 and int32
// bounds.
TEST(GemmWgmmaPath, RequirementsLeaveOutWhatIsStaticallyTrue) {
  const auto kinds = [](const rocmtpl::rocm_template<gemm_policy>& t) {
    rocmtpl::rocm_template_kernel kernel("rocm_gemm");
    (void)rocmtpl::templates::detail::make_gemm_plan(kernel, t.context(),
                                                     rocmtpl::templates::detail::plan_config(hopper(128, 128, 6)), {},
                                                     t.policy().view(t.context()));
    return wgmma_path::requirements(kernel, t.policy().view(t.context()));
  };
  const auto fixed = kinds(square(dtype::f16, 4096, 4096, 4096));
  ASSERT_EQ(fixed.size(), 3U);  // X, W, Y aligned to 16 bytes
  for (const auto& r : fixed) {
    EXPECT_EQ(r.kind, launch_requirement_kind::aligned_pointer);
    EXPECT_EQ(r.value, 16);
  }
  const auto symbolic = kinds(square(dtype::f16, M, N, K));
  EXPECT_EQ(std::count_if(symbolic.begin(), symbolic.end(),
                          [](const auto& r) { return r.kind == launch_requirement_kind::aligned_pointer; }),
            3);
  EXPECT_TRUE(std::any_of(symbolic.begin(), symbolic.end(), [](const auto& r) {
    return r.kind == launch_requirement_kind::multiple_of && r.expr == N && r.value == 8;
  }));
  EXPECT_TRUE(std::any_of(symbolic.begin(), symbolic.end(), [](const auto& r) {
    return r.kind == launch_requirement_kind::at_most && r.expr == K && r.value == 2147483647;
  }));
}
}  // namespace

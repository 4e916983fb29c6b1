// SPDX-License-Identifier: MIT
// templates/gemm/paths.hpp: the list of GEMM paths and gemm_config, the variant over their
// configurations: conversions, access, the path's name and text forms, split_k, order; the free
// checks (invalid_reason, is_valid, validate); describe() and parse_gemm_config() (every
// configuration of every path's space reads back; what does not is refused with the reason); the
// cost and FMA-bound dispatch; what a plan and the renderer take of a configuration.
#include <rocmtpl/templates/gemm/paths.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
using namespace gemm_test;
namespace tpl = rocmtpl::templates;
using tpl::describe;
using tpl::gemm_config_fields;
using tpl::gemm_path_list;
using tpl::parse_gemm_config;

static_assert(gemm_path_list::has_config<tpl::simt_config> && gemm_path_list::has_config<tpl::skinny_mma_config>);
static_assert(!gemm_path_list::has_config<int>);
static_assert(std::is_same_v<gemm_path_list::path_of<tpl::wgmma_config>, tpl::wgmma_path>);
static_assert(std::is_same_v<gemm_path_list::path_of<tpl::skinny_config>, tpl::skinny_path>);
static_assert(std::is_convertible_v<tpl::mma_config, gemm_config>);
static_assert(!std::is_convertible_v<int, gemm_config>);
static_assert([] {
  const gemm_config c;
  return c.holds<simt_config>() && *c.get_if<simt_config>() == simt_config{};
}());

TEST(GemmPaths, ListOrderIsTheRankingTieOrder) {
  std::vector<std::string_view> names;
  gemm_path_list::for_each([&](auto p) { names.push_back(decltype(p)::type::name); });
  EXPECT_EQ(names, (std::vector<std::string_view>{"wgmma", "mma", "simt", "skinny_mma", "skinny"}));
}

TEST(GemmConfig, HoldsOnePathsConfiguration) {
  const wgmma_config w{.block_m = 256, .block_n = 128, .stages = 4};
  const gemm_config c = w;
  EXPECT_TRUE(c.holds<wgmma_config>());
  EXPECT_FALSE(c.holds<mma_config>());
  ASSERT_NE(c.get_if<wgmma_config>(), nullptr);
  EXPECT_EQ(*c.get_if<wgmma_config>(), w);
  EXPECT_EQ(c.get_if<simt_config>(), nullptr);
  EXPECT_EQ(c.variant().index(), 0U);  // gemm_path_list order
  EXPECT_EQ(c.path(), "wgmma");
  EXPECT_EQ(c.name(), w.name_text().view());
  EXPECT_EQ(c.name_text(), w.name_text());
  EXPECT_EQ(c.threads(), 384);
  EXPECT_EQ(c.shared_bytes(), w.shared_bytes());
  EXPECT_EQ(c.register_estimate(), w.register_estimate());
  EXPECT_EQ(c.visit([](const auto& x) { return x.threads(); }), 384);
  EXPECT_EQ(c.visit_path(
                [](auto p, const auto& x) { return std::string(decltype(p)::type::name) + " " + x.name_text().str(); }),
            "wgmma " + c.name());
  // Each path's name, through the conversion from its configuration.
  EXPECT_EQ(gemm_config(mma_config{}).path(), "mma");
  EXPECT_EQ(gemm_config(simt_config{}).path(), "simt");
  EXPECT_EQ(gemm_config(skinny_mma_config{}).path(), "skinny_mma");
  EXPECT_EQ(gemm_config(skinny_config{}).path(), "skinny");
  EXPECT_EQ(gemm_config(skinny_config{}).variant().index(), 4U);
}

TEST(GemmConfig, SplitKIsThePathsField) {
  for (const auto& c : every_space_config()) {
    EXPECT_EQ(c.split_k(), 1) << c.name();
    const auto s = c.with_split_k(4);
    EXPECT_EQ(s.split_k(), 4);
    EXPECT_EQ(s.path(), c.path());
    EXPECT_NE(s, c);
    EXPECT_EQ(s.with_split_k(1), c);
    EXPECT_EQ(s.name(), c.name() + "_sk4");
  }
}

TEST(GemmConfig, EqualWithinAPathOrderedByPathThenFields) {
  // The same values in two paths are two configurations.
  EXPECT_NE(gemm_config(skinny_config{.side = skinny_side::m}), gemm_config(skinny_config{.side = skinny_side::n}));
  EXPECT_NE(gemm_config(mma_config{}), gemm_config(simt_config{}));
  EXPECT_EQ(gemm_config(mma_config{}), gemm_config(mma_config{}));
  EXPECT_LT(gemm_config(wgmma_config{}), gemm_config(mma_config{}));
  EXPECT_LT(gemm_config(mma_config{}), gemm_config(simt_config{}));
  EXPECT_LT(gemm_config(simt_config{}), gemm_config(skinny_mma_config{}));
  EXPECT_LT(gemm_config(skinny_mma_config{}), gemm_config(skinny_config{}));
  EXPECT_LT(gemm_config(simt_config{.block_m = 32}), gemm_config(simt_config{.block_m = 64}));
  // Every configuration of every space is distinct (a std::set keeps them all).
  const auto all = every_space_config();
  EXPECT_EQ(std::set<gemm_config>(all.begin(), all.end()).size(), all.size());
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const gemm_config& a, const gemm_config& b) {
    return a.variant().index() < b.variant().index();
  }));
}

TEST(GemmConfig, TextFormsAreTheConstantOnes) {
  auto all = every_space_config();
  ASSERT_GT(all.size(), 60U);
  all.emplace_back(simt_config{-1, 2147483647, -2147483647 - 1, 0, 0, 0, 0, 12});
  for (const auto& c : all) {
    for (int split : {1, 3}) {
      const auto s = c.with_split_k(split);
      EXPECT_EQ(s.name(), s.name_text().view());
      EXPECT_EQ(s.to_string(), s.to_text().view());
      EXPECT_EQ(s.name_text(), s.visit([](const auto& x) { return x.name_text(); }));
      EXPECT_TRUE(s.to_string().starts_with(std::string(s.path()) + "_config{.")) << s.to_string();
    }
  }
  EXPECT_EQ(gemm_config(skinny_mma_config{}).to_string(),
            "skinny_mma_config{.rows = 8, .k_warps = 4, .p_warps = 1, .k_step = 8, .split_k = 1, "
            ".side = skinny_side::m}");
}

TEST(GemmConfig, InvalidConfigsAreExplainedByTheirPath) {
  EXPECT_EQ(tpl::invalid_reason(simt_config{64, 64, 16, 12, 4, 1}), "block_m must be a multiple of thread_m");
  EXPECT_EQ(tpl::invalid_reason(mma_config{.warp_m = 48}), "warp_m and warp_n must be multiples of 32");
  EXPECT_EQ(tpl::invalid_reason(wgmma_config{.block_n = 96}), "wgmma block_n must be 64, 128, 160, 192 or 256");
  EXPECT_EQ(tpl::invalid_reason(skinny_config{.rows = 3}),
            "skinny rows (of the small dimension) must be 1, 2, 4, 8 or 16");
  EXPECT_EQ(tpl::invalid_reason(skinny_mma_config{.rows = 4}),
            "skinny mma rows (of the small dimension) must be 8, 16, 32 or 64");
  for (const auto& c : every_space_config()) {
    EXPECT_TRUE(tpl::is_valid(c)) << c.name();
    EXPECT_TRUE(c.is_valid());
    EXPECT_FALSE(c.invalid_reason().has_value());
  }
}

TEST(GemmConfig, ValidateThrowsATypedErrorCarryingTheReason) {
  const gemm_config bad = simt_config{64, 64, 16, 12, 4, 1};
  try {
    tpl::validate(bad);
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::config_error& e) {
    EXPECT_EQ(e.reason(), "block_m must be a multiple of thread_m");
    EXPECT_EQ(e.config(), bad.to_string());
    EXPECT_EQ(std::string(e.what()), "rocmtpl: gemm: invalid config " + bad.to_string() + ": " + e.reason());
  }
  // config_error is an invalid_argument_error: existing handlers keep working.
  EXPECT_THROW(tpl::validate(bad), rocmtpl::invalid_argument_error);
  EXPECT_THROW(tpl::validate(skinny_mma_config{.split_k = 65}), rocmtpl::config_error);
  EXPECT_NO_THROW(tpl::validate(gemm_config{}));
}

// describe() is each path's serialised form (the legacy field names, math first); parse_gemm_config()
// reads it back for every configuration of every path's space, on both skinny sides, split or not.
TEST(GemmConfig, DescribeReadsBackForEveryConfiguration) {
  std::vector<gemm_config> all;
  for (const auto& c : every_space_config()) {
    for (int split : {1, 2, 16}) {
      const auto s = c.with_split_k(split);
      all.push_back(s);
      if (side_of(s)) all.push_back(with_side(s, skinny_side::n));
    }
  }
  ASSERT_GT(all.size(), 200U);
  for (const auto& c : all) {
    const auto fields = describe(c);
    ASSERT_FALSE(fields.empty());
    EXPECT_EQ(fields.front().first, "math");
    EXPECT_EQ(fields, c.visit_path([](auto p, const auto& x) { return decltype(p)::type::describe(x); }));
    EXPECT_EQ(parse_gemm_config(fields), c) << c.to_string();
  }
  // The math names of the serialised form.
  const auto math = [](const gemm_config& c) { return describe(c).front().second; };
  EXPECT_EQ(math(simt_config{}), "simt");
  EXPECT_EQ(math(mma_config{}), "matrix_core");
  EXPECT_EQ(math(wgmma_config{}), "wgmma");
  EXPECT_EQ(math(skinny_config{.side = skinny_side::n}), "skinny_n");
  EXPECT_EQ(math(skinny_mma_config{.side = skinny_side::m}), "skinny_m");
}

// The skinny maths name two paths: stages 2 reads as the matrix-core one, stages 1 (or none) as
// the FMA one.
TEST(GemmConfig, ParseRoutesSkinnyFieldsByStages) {
  const auto mma = parse_gemm_config({{"math", "skinny_n"}, {"block_m", "16"}, {"stages", "2"}, {"warp_m", "2"}});
  ASSERT_TRUE(mma.holds<skinny_mma_config>()) << mma.to_string();
  EXPECT_EQ(*mma.get_if<skinny_mma_config>(), (skinny_mma_config{.side = skinny_side::n, .rows = 16, .k_warps = 2}));
  const auto fma = parse_gemm_config({{"math", "skinny_m"}, {"block_m", "4"}, {"stages", "1"}});
  ASSERT_TRUE(fma.holds<skinny_config>()) << fma.to_string();
  EXPECT_EQ(*fma.get_if<skinny_config>(), (skinny_config{.side = skinny_side::m, .rows = 4}));
  EXPECT_TRUE(parse_gemm_config({{"math", "skinny_m"}}).holds<skinny_config>());
  // Fields left out keep the defaults of the path.
  EXPECT_EQ(parse_gemm_config({{"math", "simt"}, {"block_m", "128"}}), gemm_config(simt_config{.block_m = 128}));
  EXPECT_EQ(parse_gemm_config({{"math", "wgmma"}}), gemm_config(wgmma_config{}));
}

TEST(GemmConfig, ParseRefusesWhatNoPathWrote) {
  const auto refused = [](const gemm_config_fields& fields) -> std::string {
    try {
      const auto c = parse_gemm_config(fields);
      return "accepted as " + c.to_string();
    } catch (const rocmtpl::invalid_argument_error& e) {
      return e.what();
    }
  };
  EXPECT_EQ(refused({}), "rocmtpl: gemm: a configuration's fields start with its math");
  EXPECT_EQ(refused({{"block_m", "64"}, {"math", "simt"}}),
            "rocmtpl: gemm: a configuration's fields start with its math");
  EXPECT_EQ(refused({{"math", "tensor"}, {"block_m", "64"}}), "rocmtpl: gemm: unknown gemm math 'tensor'");
  EXPECT_EQ(refused({{"math", "simt"}, {"block_q", "3"}}),
            "rocmtpl: gemm: 'block_q=3' is not a field value of a simt configuration; the record was written by "
            "another template version");
  EXPECT_TRUE(contains(refused({{"math", "simt"}, {"block_m", "x"}}), "'block_m=x' is not a field value of a simt"));
  EXPECT_TRUE(contains(refused({{"math", "simt"}, {"block_m", "64 "}}), "'block_m=64 ' is not a field value"));
  // Fields of another path.
  EXPECT_TRUE(contains(refused({{"math", "simt"}, {"warp_m", "64"}}), "'warp_m=64' is not a field value of a simt"));
  EXPECT_TRUE(contains(refused({{"math", "simt"}, {"stages", "3"}}), "'stages=3' is not a field value of a simt"));
  EXPECT_TRUE(
      contains(refused({{"math", "matrix_core"}, {"thread_m", "4"}}), "'thread_m=4' is not a field value of a mma"));
  EXPECT_TRUE(contains(refused({{"math", "wgmma"}, {"thread_n", "4"}}), "is not a field value of a wgmma"));
  EXPECT_TRUE(contains(refused({{"math", "skinny_m"}, {"warp_m", "8"}, {"group_m", "8"}}),
                       "'group_m=8' is not a field value of a skinny configuration"));
  EXPECT_TRUE(contains(refused({{"math", "skinny_m"}, {"stages", "2"}, {"thread_n", "2"}}),
                       "'thread_n=2' is not a field value of a skinny_mma configuration"));
  // Derived and fixed fields that disagree with the configuration.
  EXPECT_TRUE(contains(refused({{"math", "wgmma"}, {"block_m", "128"}, {"warp_m", "128"}, {"warp_n", "256"}}),
                       "are not block_m / 2 and block_n"));
  EXPECT_TRUE(
      contains(refused({{"math", "wgmma"}, {"block_k", "32"}}), "'block_k=32' is not a field value of a wgmma"));
  EXPECT_TRUE(contains(refused({{"math", "wgmma"}, {"vector", "4"}}), "'vector=4' is not a field value of a wgmma"));
  EXPECT_TRUE(contains(refused({{"math", "skinny_m"}, {"stages", "1"}, {"warp_n", "32"}, {"block_n", "64"}}),
                       "block_n=64 is not warp_n * thread_n"));
  EXPECT_TRUE(contains(refused({{"math", "skinny_m"}, {"stages", "2"}, {"warp_n", "2"}, {"block_n", "64"}}),
                       "block_n=64 is not 64 * warp_n"));
  EXPECT_TRUE(contains(refused({{"math", "skinny_n"}, {"stages", "2"}, {"vector", "4"}}),
                       "'vector=4' is not a field value of a skinny_mma"));
  // A skinny stage count of neither kernel: no path wrote it.
  EXPECT_EQ(refused({{"math", "skinny_m"}, {"stages", "3"}}), "rocmtpl: gemm: unknown gemm math 'skinny_m'");
}

TEST(GemmConfig, CostAndFmaBoundAreThePathsOwn) {
  for (const auto& c : every_space_config()) {
    for (const std::int64_t m : {8, 4096}) {
      const double path_cost =
          c.visit_path([m](auto p, const auto& x) { return decltype(p)::type::estimate_cost(x, m, 4096, 8192, 1); });
      EXPECT_DOUBLE_EQ(tpl::gemm_estimate_cost(c, m, 4096, 8192, 1), path_cost) << c.name();
    }
    const auto* fma = c.get_if<skinny_config>();
    EXPECT_EQ(tpl::gemm_skinny_fma_bound(c, 64, 8192, 8192, 1),
              fma != nullptr && tpl::skinny_path::fma_bound(*fma, 64, 8192, 8192, 1))
        << c.name();
  }
  // The matrix-core skinny kernel is never FMA-bound; an FMA one at 64 f32 rows is.
  EXPECT_FALSE(tpl::gemm_skinny_fma_bound(skinny_mma_config{.rows = 64, .k_step = 4}, 64, 8192, 8192, 1));
  EXPECT_TRUE(tpl::gemm_skinny_fma_bound(skinny_config{.rows = 8, .vector = 4}, 64, 8192, 8192, 1));
}

// What a plan takes of a configuration: its name, K slices, vector width and how it splits K.
TEST(GemmConfig, PlanConfigFollowsThePath) {
  const auto plan = [](const gemm_config& c) { return tpl::detail::plan_config(c); };
  const auto simt = plan(simt_config{.vector = 2, .split_k = 3});
  EXPECT_EQ(simt.name, "bm64_bn64_bk16_tm4_tn4_g8_s2_v2_sk3");
  EXPECT_EQ(simt.split_k, 3);
  EXPECT_EQ(simt.vector, 2);
  EXPECT_TRUE(simt.splits_k_statically);
  EXPECT_FALSE(simt.static_slices);
  EXPECT_FALSE(plan(mma_config{}).splits_k_statically);
  EXPECT_EQ(plan(wgmma_config{}).vector, 8);
  EXPECT_TRUE(plan(wgmma_config{}).splits_k_statically);
  EXPECT_TRUE(plan(skinny_config{}).static_slices);
  EXPECT_EQ(plan(skinny_mma_config{}).vector, 8);
  EXPECT_TRUE(plan(skinny_mma_config{}).static_slices);
  EXPECT_TRUE(plan(skinny_mma_config{}).splits_k_statically);
}

// A split_k above 1 needs gemm_options::runtime_split_k on the paths that split K only at run time;
// the workspace follows.
TEST(GemmConfig, RenderableSplitsAndTheirWorkspace) {
  auto t = square(dtype::f16, M, N, K);
  const auto v = t.policy().view(t.context());
  try {
    tpl::detail::check_gemm_renderable(mma(64, 64, 32, 32, 32, 3).with_split_k(2), v, {});
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "rocmtpl: gemm: config mma_bm64_bn64_bk32_wm32_wn32_g8_s3_v8_sk2 splits K but "
              "gemm_options::runtime_split_k is off; turn it on (the wgmma, simt, skinny_mma, skinny paths split K "
              "statically)");
  }
  EXPECT_NO_THROW(tpl::detail::check_gemm_renderable(hopper(128, 128, 6).with_split_k(2), v, {}));  // static slices
  EXPECT_NO_THROW(
      tpl::detail::check_gemm_renderable(hopper(128, 128, 6).with_split_k(2), v, {.runtime_split_k = true}));
  EXPECT_NO_THROW(tpl::detail::check_gemm_renderable(gemm_config{}.with_split_k(2), v, {}));
  EXPECT_NO_THROW(tpl::detail::check_gemm_renderable(skinny(skinny_side::m, 2, 8, 32, 1, 8, 8, 4), v, {}));
  // The path's own refusal comes first.
  auto f32 = square(dtype::f32, M, N, K);
  EXPECT_THROW(tpl::detail::check_gemm_renderable(mma(64, 64, 32, 32, 32, 3), f32.policy().view(f32.context()), {}),
               rocmtpl::invalid_argument_error);
  // Workspace: split_k fp32 slices of M x N where K is split (statically or at run time), else none.
  const sym_expr slices4 = sym_expr(16) * M * N;
  EXPECT_EQ(tpl::detail::gemm_workspace_bytes(v, gemm_config{}.with_split_k(4), {}), slices4);
  EXPECT_EQ(tpl::detail::gemm_workspace_bytes(v, skinny(skinny_side::n, 2, 8, 32, 1, 8, 8, 4), {}), slices4);
  EXPECT_EQ(tpl::detail::gemm_workspace_bytes(v, mma(64, 64, 32, 32, 32, 3).with_split_k(4), {}), sym_expr(0));
  EXPECT_EQ(tpl::detail::gemm_workspace_bytes(v, mma(64, 64, 32, 32, 32, 3).with_split_k(4), {.runtime_split_k = true}),
            slices4);
  EXPECT_EQ(tpl::detail::gemm_workspace_bytes(v, hopper(128, 128, 6), {.runtime_split_k = true}), sym_expr(0));
}
}  // namespace

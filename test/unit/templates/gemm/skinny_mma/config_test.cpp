// SPDX-License-Identifier: MIT
// templates/gemm/skinny_mma/config.hpp (issue 10): the skinny matrix-core tiles: 32 threads per
// warp, 64 elements of the large dimension per warp along it, the K warps' shared-memory
// reduction, their names on both sides, members and rules.
#include <rocmtpl/templates/gemm/skinny_mma/config.hpp>

#include <rocmtpl/templates/gemm/skinny_mma/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using gemm_test::contains;
using rocmtpl::templates::skinny_mma_config;
using rocmtpl::templates::skinny_side;

std::string reason(const skinny_mma_config& c) { return std::string(c.invalid_reason().value_or("")); }

static_assert(!skinny_mma_config{}.invalid_reason().has_value());
static_assert(skinny_mma_config::vector == 8 && skinny_mma_config::stages == 2);
static_assert(skinny_mma_config{.side = skinny_side::n}.math() == "skinny_n");

const skinny_mma_config base{.side = skinny_side::m, .rows = 8, .k_warps = 4, .p_warps = 2, .k_step = 8, .split_k = 16};

TEST(GemmSkinnyMmaConfig, DerivedValuesAndNames) {
  EXPECT_FALSE(base.invalid_reason().has_value()) << reason(base);
  EXPECT_EQ(base.name_text().view(), "skm_mma_bm8_bn128_bk8_wm4_wn2_sk16");
  EXPECT_EQ(base.columns(), 128);
  EXPECT_EQ(base.threads(), 256);
  EXPECT_EQ(base.warps(), 8);
  EXPECT_EQ(base.shared_bytes(), 4 * 8 * 128 * 4);  // the K warps' sums, 8 rows at a time
  EXPECT_EQ(base.register_estimate(), 2 * 8 + 8 * 8 + 8 / 8 * 8 + 40);
  auto one_k_warp = base;
  one_k_warp.k_warps = 1;
  EXPECT_EQ(one_k_warp.shared_bytes(), 0);
  auto n_side = base;
  n_side.side = skinny_side::n;
  n_side.split_k = 1;
  EXPECT_EQ(n_side.name_text().view(), "skn_mma_bm8_bn128_bk8_wm4_wn2");
}

TEST(GemmSkinnyMmaConfig, VisitsEveryIntegerMemberInOrder) {
  const skinny_mma_config c{skinny_side::n, 1, 2, 3, 4, 5};
  std::vector<std::pair<std::string, int>> fields;
  c.visit_fields([&](std::string_view name, int v) { fields.emplace_back(name, v); });
  EXPECT_EQ(fields, (std::vector<std::pair<std::string, int>>{
                        {"rows", 1}, {"k_warps", 2}, {"p_warps", 3}, {"k_step", 4}, {"split_k", 5}}));
}

// The name as it was written with std::string before name_text().
std::string string_name(const skinny_mma_config& c) {
  auto i = [](int v) { return std::to_string(v); };
  std::string s = c.side == skinny_side::m ? "skm_mma_" : "skn_mma_";
  s += "bm" + i(c.rows) + "_bn" + i(64 * c.p_warps) + "_bk" + i(c.k_step) + "_wm" + i(c.k_warps) + "_wn" + i(c.p_warps);
  if (c.split_k != 1) s += "_sk" + i(c.split_k);
  return s;
}

TEST(GemmSkinnyMmaConfig, ConstantNameIsTheStringOne) {
  auto all = rocmtpl::templates::skinny_mma_path::search_space();
  ASSERT_GE(all.size(), 6U);
  all.push_back({skinny_side::m, -1, 0, 33554431, -3, 12});
  for (auto c : all) {
    for (auto side : {skinny_side::m, skinny_side::n}) {
      for (int split : {1, 3}) {
        c.side = side;
        c.split_k = split;
        EXPECT_EQ(c.name_text().view(), string_name(c));
      }
    }
  }
}

TEST(GemmSkinnyMmaConfig, InvalidTilingsAreExplained) {
  const auto broken = [](auto edit) {
    auto b = base;
    edit(b);
    return reason(b);
  };
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.rows = 4; }), "rows"));
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.k_warps = 8; }), "k_warps"));
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.k_warps = 3; }), "k_warps"));
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.p_warps = 8; }), "p_warps"));
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.k_step = 16; }), "k_step"));
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.split_k = 128; }), "split_k"));
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.split_k = 0; }), "positive"));
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) {
                         b.k_warps = 1;
                         b.p_warps = 1;
                       }),
                       "two warps"));
  // 64 rows with 8 K elements per step: 8 tiles of accumulators and two steps of operands.
  EXPECT_TRUE(contains(broken([](skinny_mma_config& b) { b.rows = 64; }), "registers"));
  auto big = base;
  big.rows = 64;
  big.k_step = 4;
  EXPECT_FALSE(big.invalid_reason().has_value()) << reason(big);
}
}  // namespace

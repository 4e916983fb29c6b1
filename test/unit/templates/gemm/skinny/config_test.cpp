// SPDX-License-Identifier: MIT
// templates/gemm/skinny/config.hpp (issue 10 part 2): skinny_config's derived values, its names on
// both sides (the bytes kernel names, golden files and tuning keys depend on), its members in
// order, and its rules.
#include <rocmtpl/templates/gemm/skinny/config.hpp>

#include <rocmtpl/templates/gemm/skinny/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using gemm_test::contains;
using rocmtpl::templates::gemm_skinny_max_small;
using rocmtpl::templates::skinny_config;
using rocmtpl::templates::skinny_side;

// A skinny tile as gemm_test::skinny() writes it: rows, threads along K and P, units per thread,
// K step, vector, K slices.
skinny_config tile(skinny_side side, int rows, int kt, int pt, int pu = 1, int ks = 8, int vector = 8, int split = 1) {
  return {.side = side,
          .rows = rows,
          .k_threads = kt,
          .p_threads = pt,
          .p_units = pu,
          .k_step = ks,
          .vector = vector,
          .split_k = split};
}

std::string reason(const skinny_config& c) { return std::string(c.invalid_reason().value_or("")); }

static_assert(gemm_skinny_max_small == 64);
static_assert(!skinny_config{}.invalid_reason().has_value());
static_assert(skinny_config{}.math() == "skinny_m" && skinny_config{.side = skinny_side::n}.math() == "skinny_n");

TEST(GemmSkinnyConfig, DerivedValuesAndNamesOnBothSides) {
  const auto c = tile(skinny_side::m, 8, 8, 32, 1, 8, 8, 4);
  EXPECT_EQ(c.name_text().view(), "skm_bm8_bn32_bk8_wm8_wn32_tn1_v8_sk4");
  EXPECT_EQ(c.units(), 32);
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.warps(), 8);
  EXPECT_EQ(c.shared_bytes(), 256 * 8 * 4);  // the streaming kernel's K reduction
  EXPECT_EQ(c.register_estimate(), 8 * 1 * 8 + 8 * 4 + 8 * 8 + 40);
  EXPECT_FALSE(c.invalid_reason().has_value()) << reason(c);
  // The dot kernel's staged small operand can be the larger buffer.
  EXPECT_EQ(tile(skinny_side::m, 16, 32, 8, 1, 8, 2).shared_bytes(), 16 * 8 * 32 * 4);
  EXPECT_EQ(tile(skinny_side::m, 1, 1, 256).shared_bytes(), 1 * 8 * 1 * 4);  // no K reduction
  EXPECT_EQ(tile(skinny_side::n, 4, 32, 8, 4).name_text().view(), "skn_bm4_bn32_bk8_wm32_wn8_tn4_v8");
  EXPECT_EQ(tile(skinny_side::n, 4, 32, 8, 4).math(), "skinny_n");
}

TEST(GemmSkinnyConfig, VisitsEveryIntegerMemberInOrder) {
  const skinny_config c{skinny_side::n, 1, 2, 3, 4, 5, 6, 7};
  std::vector<std::pair<std::string, int>> fields;
  c.visit_fields([&](std::string_view name, int v) { fields.emplace_back(name, v); });
  EXPECT_EQ(fields, (std::vector<std::pair<std::string, int>>{{"rows", 1},
                                                              {"k_threads", 2},
                                                              {"p_threads", 3},
                                                              {"p_units", 4},
                                                              {"k_step", 5},
                                                              {"vector", 6},
                                                              {"split_k", 7}}));
}

// The name as it was written with std::string before name_text(): bn the units, bk the K step, wm
// the threads along K, wn along P, tn the units per thread.
std::string string_name(const skinny_config& c) {
  auto i = [](int v) { return std::to_string(v); };
  std::string s = c.side == skinny_side::m ? "skm_" : "skn_";
  s += "bm" + i(c.rows) + "_bn" + i(c.p_threads * c.p_units) + "_bk" + i(c.k_step) + "_wm" + i(c.k_threads) + "_wn" +
       i(c.p_threads) + "_tn" + i(c.p_units) + "_v" + i(c.vector);
  if (c.split_k != 1) s += "_sk" + i(c.split_k);
  return s;
}

TEST(GemmSkinnyConfig, ConstantNameIsTheStringOne) {
  auto all = rocmtpl::templates::skinny_path::search_space();
  ASSERT_GE(all.size(), 30U);
  all.push_back(tile(skinny_side::m, -1, 0, 2147483647, 0, -3, 0, 12));
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

TEST(GemmSkinnyConfig, InvalidTilingsAreExplained) {
  const auto m = skinny_side::m;
  // K is split statically: no runtime split-K needed, but at most 64 slices.
  EXPECT_TRUE(contains(reason(tile(m, 1, 8, 32, 1, 8, 8, 128)), "split_k above 64"));
  EXPECT_TRUE(contains(reason(tile(m, 32, 8, 32)), "rows"));
  EXPECT_TRUE(contains(reason(tile(m, 3, 8, 32)), "rows"));
  EXPECT_TRUE(contains(reason(tile(m, 8, 64, 8)), "k_threads"));
  EXPECT_TRUE(contains(reason(tile(m, 8, 3, 32)), "k_threads"));
  EXPECT_TRUE(contains(reason(tile(m, 8, 1, 32)), "threads per block"));
  EXPECT_TRUE(contains(reason(tile(m, 8, 8, 128)), "threads per block"));
  EXPECT_TRUE(contains(reason(tile(m, 8, 8, 24)), "p_threads"));
  EXPECT_TRUE(contains(reason(tile(m, 8, 8, 32, 3)), "p_units"));
  EXPECT_TRUE(contains(reason(tile(m, 1, 8, 32, 1, 16)), "k_step"));
  EXPECT_TRUE(contains(reason(tile(m, 1, 8, 32, 1, 4, 8)), "vector above k_step"));
  EXPECT_TRUE(contains(reason(tile(m, 1, 8, 32, 1, 8, 3)), "vector must be 1, 2, 4 or 8"));
  EXPECT_TRUE(contains(reason(tile(m, 16, 8, 32, 1, 8, 8)), "accumulators"));
  EXPECT_FALSE(tile(m, 16, 8, 32, 1, 4, 4).invalid_reason().has_value()) << reason(tile(m, 16, 8, 32, 1, 4, 4));
  EXPECT_TRUE(contains(reason(tile(m, 16, 8, 32, 1, 8, 4)), "registers"));
  EXPECT_TRUE(contains(reason(tile(skinny_side::n, 16, 32, 16, 4, 8, 2)), "accumulators"));
  EXPECT_TRUE(contains(reason(tile(m, 0, 8, 32)), "positive"));
  EXPECT_TRUE(contains(reason(tile(m, 1, 8, 32, 1, 8, 8, 0)), "positive"));
}
}  // namespace

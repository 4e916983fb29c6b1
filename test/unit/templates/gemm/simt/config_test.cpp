// SPDX-License-Identifier: MIT
// templates/gemm/simt/config.hpp: simt_config's derived values, its name (the bytes kernel names,
// golden files and tuning keys depend on), its members in order, and its rules (invalid_reason(),
// constexpr and non-throwing).
#include <rocmtpl/templates/gemm/simt/config.hpp>

#include <rocmtpl/templates/gemm/simt/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using gemm_test::contains;
using rocmtpl::templates::simt_config;

std::string reason(const simt_config& c) { return std::string(c.invalid_reason().value_or("")); }

// The constraints are constant expressions: a tiling can be checked at compile time.
static_assert(!simt_config{}.invalid_reason().has_value());
static_assert(simt_config{64, 64, 16, 12, 4, 1}.invalid_reason() == "block_m must be a multiple of thread_m");
static_assert(simt_config::stages == 2 && simt_config::math == "simt");

TEST(GemmSimtConfig, DerivedValuesAndName) {
  const simt_config c{128, 64, 8, 8, 4, 1};
  EXPECT_EQ(c.name_text().view(), "bm128_bn64_bk8_tm8_tn4_g1_s2_v4");
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.warps(), 8);
  EXPECT_EQ(c.shared_bytes(), 2 * 4 * 8 * (128 + 4 + 64 + 4));  // two padded fp32 buffers
  EXPECT_EQ(c.amd_lds_bytes(), c.shared_bytes());
  // Accumulators, one K step of operands, staged loads, addressing, block_k.
  EXPECT_EQ(c.register_estimate(), 8 * 4 + 8 + 4 + (128 + 64) * 8 / 256 + 32 + 8);
  auto split = c;
  split.split_k = 4;
  EXPECT_EQ(split.name_text().view(), "bm128_bn64_bk8_tm8_tn4_g1_s2_v4_sk4");
  EXPECT_EQ(simt_config{}, (simt_config{64, 64, 16, 4, 4, 8, 4, 1}));  // the default tiling
  EXPECT_EQ(simt_config{.thread_m = 0}.threads(), 0);
}

TEST(GemmSimtConfig, VisitsEveryMemberInOrder) {
  const simt_config c{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<std::pair<std::string, int>> fields;
  c.visit_fields([&](std::string_view name, int v) { fields.emplace_back(name, v); });
  EXPECT_EQ(fields, (std::vector<std::pair<std::string, int>>{{"block_m", 1},
                                                              {"block_n", 2},
                                                              {"block_k", 3},
                                                              {"thread_m", 4},
                                                              {"thread_n", 5},
                                                              {"group_m", 6},
                                                              {"vector", 7},
                                                              {"split_k", 8}}));
}

// The name as it was written with std::string before name_text() (kernel names, golden files and
// tuning keys depend on the bytes).
std::string string_name(const simt_config& c) {
  auto i = [](int v) { return std::to_string(v); };
  std::string s = "bm" + i(c.block_m) + "_bn" + i(c.block_n) + "_bk" + i(c.block_k) + "_tm" + i(c.thread_m) + "_tn" +
                  i(c.thread_n) + "_g" + i(c.group_m) + "_s2_v" + i(c.vector);
  if (c.split_k != 1) s += "_sk" + i(c.split_k);
  return s;
}

TEST(GemmSimtConfig, ConstantNameIsTheStringOne) {
  auto all = rocmtpl::templates::simt_path::search_space();
  ASSERT_GT(all.size(), 16U);
  all.push_back({-1, INT_MAX, INT_MIN, 0, 0, 0, 12, 12});
  for (auto c : all) {
    for (int split : {1, 3}) {
      if (split != 1) c.split_k = split;
      EXPECT_EQ(c.name_text().view(), string_name(c));
    }
  }
}

TEST(GemmSimtConfig, InvalidTilingsAreExplained) {
  EXPECT_TRUE(contains(reason({64, 64, 16, 12, 4, 1}), "multiple of thread_m"));
  EXPECT_TRUE(contains(reason({64, 64, 16, 4, 12, 1}), "multiple of thread_n"));
  EXPECT_TRUE(contains(reason({64, 64, 16, 6, 4, 1}), "multiples of 4"));
  EXPECT_TRUE(contains(reason({32, 32, 8, 8, 8, 1}), "multiple of 64"));
  EXPECT_TRUE(contains(reason({256, 128, 8, 4, 4, 1}), "threads per block"));
  EXPECT_TRUE(contains(reason({128, 128, 64, 8, 8, 1}), "shared memory"));
  EXPECT_TRUE(contains(reason({128, 128, 16, 16, 16, 1}), "128 accumulators"));
  EXPECT_TRUE(contains(reason({64, 64, 0, 4, 4, 1}), "positive"));
  EXPECT_TRUE(contains(reason({.thread_m = 0}), "positive"));
  EXPECT_TRUE(contains(reason({.split_k = 0}), "positive"));
  EXPECT_TRUE(contains(reason({.vector = 3}), "vector must be 1, 2, 4 or 8"));
  EXPECT_FALSE(simt_config{}.invalid_reason().has_value());
  EXPECT_FALSE(simt_config{.split_k = 64}.invalid_reason().has_value());  // K slices: no upper rule
}
}  // namespace

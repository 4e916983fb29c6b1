// SPDX-License-Identifier: MIT
// templates/gemm/mma/config.hpp: mma_config's derived values (NVIDIA shared memory, AMD LDS,
// registers), its name (the bytes kernel names, golden files and tuning keys depend on), its
// members in order, and its rules.
#include <rocmtpl/templates/gemm/mma/config.hpp>

#include <rocmtpl/templates/gemm/mma/path.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using gemm_test::contains;
using rocmtpl::templates::mma_config;

std::string reason(const mma_config& c) { return std::string(c.invalid_reason().value_or("")); }

mma_config tile(int bm, int bn, int bk, int wm, int wn, int stages) {
  return {.block_m = bm, .block_n = bn, .block_k = bk, .warp_m = wm, .warp_n = wn, .stages = stages};
}

static_assert(!mma_config{}.invalid_reason().has_value());
static_assert(mma_config::math == "matrix_core");

TEST(GemmMmaConfig, DerivedValuesAndName) {
  auto c = tile(128, 256, 32, 64, 64, 4);
  c.split_k = 4;
  EXPECT_EQ(c.name_text().view(), "mma_bm128_bn256_bk32_wm64_wn64_g8_s4_v8_sk4");
  EXPECT_EQ(c.warps(), 8);
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.shared_bytes(), 4 * (128 + 256) * 32 * 2);     // stages of 16-bit tiles (NVIDIA)
  EXPECT_EQ(c.amd_lds_bytes(), (128 + 256) * (32 + 8) * 2);  // one padded K-major buffer (AMD)
  EXPECT_EQ(c.register_estimate(), 64 * 64 / 32 + 64 / 16 * 4 + 64 / 8 * 2 + 48);
  EXPECT_EQ(mma_config{}, tile(128, 128, 32, 64, 64, 3));
  EXPECT_EQ(mma_config{}.vector, 8);
  EXPECT_EQ((mma_config{.warp_m = 0}).warps(), 0);
}

TEST(GemmMmaConfig, VisitsEveryMemberInOrder) {
  const mma_config c{1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<std::pair<std::string, int>> fields;
  c.visit_fields([&](std::string_view name, int v) { fields.emplace_back(name, v); });
  EXPECT_EQ(fields, (std::vector<std::pair<std::string, int>>{{"block_m", 1},
                                                              {"block_n", 2},
                                                              {"block_k", 3},
                                                              {"warp_m", 4},
                                                              {"warp_n", 5},
                                                              {"group_m", 6},
                                                              {"stages", 7},
                                                              {"vector", 8},
                                                              {"split_k", 9}}));
}

// The name as it was written with std::string before name_text().
std::string string_name(const mma_config& c) {
  auto i = [](int v) { return std::to_string(v); };
  std::string s = "mma_bm" + i(c.block_m) + "_bn" + i(c.block_n) + "_bk" + i(c.block_k) + "_wm" + i(c.warp_m) + "_wn" +
                  i(c.warp_n) + "_g" + i(c.group_m) + "_s" + i(c.stages) + "_v" + i(c.vector);
  if (c.split_k != 1) s += "_sk" + i(c.split_k);
  return s;
}

TEST(GemmMmaConfig, ConstantNameIsTheStringOne) {
  auto all = rocmtpl::templates::mma_path::search_space();
  ASSERT_GT(all.size(), 16U);
  all.push_back({-1, 2147483647, -2147483647 - 1, 0, 0, 0, 0, 12, 12});
  for (auto c : all) {
    for (int split : {1, 3}) {
      if (split != 1) c.split_k = split;
      EXPECT_EQ(c.name_text().view(), string_name(c));
    }
  }
}

TEST(GemmMmaConfig, InvalidTilingsAreExplained) {
  EXPECT_TRUE(contains(reason(tile(128, 128, 32, 48, 64, 3)), "multiples of 32"));
  EXPECT_TRUE(contains(reason(tile(128, 128, 32, 128, 64, 3)), "registers"));
  EXPECT_TRUE(contains(reason(tile(128, 128, 16, 64, 64, 3)), "block_k"));
  EXPECT_TRUE(contains(reason(tile(96, 128, 32, 64, 64, 3)), "multiples of warp_m/warp_n"));
  EXPECT_TRUE(contains(reason(tile(256, 256, 32, 32, 32, 3)), "1 to 8 warps"));
  EXPECT_TRUE(contains(reason(tile(256, 128, 64, 64, 64, 5)), "227 KiB"));
  EXPECT_TRUE(contains(reason(tile(256, 128, 128, 64, 64, 2)), "LDS"));
  EXPECT_TRUE(contains(reason(tile(128, 128, 32, 64, 64, 1)), "stages"));
  EXPECT_TRUE(contains(reason(tile(128, 128, 32, 64, 64, 9)), "stages"));
  EXPECT_TRUE(contains(reason(tile(128, 128, 32, 0, 64, 3)), "positive warp_m and warp_n"));
  EXPECT_TRUE(contains(reason({.split_k = 0}), "positive"));
  EXPECT_TRUE(contains(reason({.vector = 16}), "vector must be 1, 2, 4 or 8"));
  EXPECT_FALSE(tile(128, 128, 32, 64, 64, 4).invalid_reason().has_value());
}
}  // namespace

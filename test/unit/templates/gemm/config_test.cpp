// SPDX-License-Identifier: MIT
// templates/gemm/config.hpp: gemm_config's derived values and text forms, and the constraints:
// invalid_reason() (non-throwing, constexpr), is_valid() and validate() (a typed config_error).
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/search_space.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {
using gemm_test::contains;
using gemm_test::hopper;
using gemm_test::mma;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_math;
using rocmtpl::templates::invalid_reason;
using rocmtpl::templates::is_valid;
using rocmtpl::templates::validate;

std::string reason(const gemm_config& c) { return std::string(invalid_reason(c).value_or("")); }

TEST(GemmConfig, TextForms) {
  gemm_config c{128, 64, 8, 8, 4, 1};
  EXPECT_EQ(c.to_string(),
            "{.block_m = 128, .block_n = 64, .block_k = 8, .thread_m = 8, .thread_n = 4, .group_m = 1, .math = "
            "gemm_math::simt, .warp_m = 0, .warp_n = 0, .stages = 2, .vector = 4, .split_k = 1}");
  EXPECT_EQ(c.name(), "bm128_bn64_bk8_tm8_tn4_g1_s2_v4");
  EXPECT_EQ(c.threads(), 256);
  auto m = mma(128, 256, 32, 64, 64, 4);
  m.split_k = 4;
  EXPECT_EQ(m.name(), "mma_bm128_bn256_bk32_wm64_wn64_g8_s4_v8_sk4");
  EXPECT_EQ(m.warps(), 8);
  EXPECT_EQ(m.threads(), 256);
  EXPECT_EQ(m.shared_bytes(), 4 * (128 + 256) * 32 * 2);
  EXPECT_EQ(m.amd_lds_bytes(), (128 + 256) * (32 + 8) * 2);
  const auto d = describe(m);
  EXPECT_EQ(d.front(), (std::pair<std::string, std::string>{"math", "matrix_core"}));
  EXPECT_TRUE(std::find(d.begin(), d.end(), std::pair<std::string, std::string>{"warp_n", "64"}) != d.end());
  EXPECT_TRUE(std::find(d.begin(), d.end(), std::pair<std::string, std::string>{"split_k", "4"}) != d.end());
  EXPECT_EQ(to_string(gemm_math::matrix_core), "matrix_core");
}

// The text forms as they were written with std::string before name_text() and to_text() (kernel
// names, golden files and tuning keys depend on the bytes).
std::string string_name(const gemm_config& c) {
  auto i = [](int v) { return std::to_string(v); };
  std::string s;
  if (rocmtpl::templates::is_skinny(c.math)) {
    s = c.math == gemm_math::skinny_m ? "skm_" : "skn_";
    if (c.stages == 2) s += "mma_";
    s += "bm" + i(c.block_m) + "_bn" + i(c.block_n) + "_bk" + i(c.block_k) + "_wm" + i(c.warp_m) + "_wn" + i(c.warp_n);
    if (c.stages != 2) s += "_tn" + i(c.thread_n) + "_v" + i(c.vector);
  } else {
    s = c.math == gemm_math::matrix_core ? "mma_" : (c.math == gemm_math::wgmma ? "wgmma_" : "");
    s += "bm" + i(c.block_m) + "_bn" + i(c.block_n) + "_bk" + i(c.block_k);
    s += c.math != gemm_math::simt ? "_wm" + i(c.warp_m) + "_wn" + i(c.warp_n)
                                   : "_tm" + i(c.thread_m) + "_tn" + i(c.thread_n);
    s += "_g" + i(c.group_m) + "_s" + i(c.stages) + "_v" + i(c.vector);
  }
  if (c.split_k != 1) s += "_sk" + i(c.split_k);
  return s;
}
std::string string_text(const gemm_config& c) {
  auto i = [](int v) { return std::to_string(v); };
  return "{.block_m = " + i(c.block_m) + ", .block_n = " + i(c.block_n) + ", .block_k = " + i(c.block_k) +
         ", .thread_m = " + i(c.thread_m) + ", .thread_n = " + i(c.thread_n) + ", .group_m = " + i(c.group_m) +
         ", .math = gemm_math::" + std::string(to_string(c.math)) + ", .warp_m = " + i(c.warp_m) +
         ", .warp_n = " + i(c.warp_n) + ", .stages = " + i(c.stages) + ", .vector = " + i(c.vector) +
         ", .split_k = " + i(c.split_k) + "}";
}

TEST(GemmConfig, ConstantTextFormsAreTheStringOnes) {
  std::vector<gemm_config> all;
  for (const auto& space : {rocmtpl::templates::gemm_simt_configs(), rocmtpl::templates::gemm_matrix_core_configs(),
                            rocmtpl::templates::gemm_wgmma_configs(), rocmtpl::templates::gemm_skinny_configs(),
                            rocmtpl::templates::gemm_skinny_mma_configs()}) {
    all.insert(all.end(), space.begin(), space.end());
  }
  ASSERT_GT(all.size(), 20U);
  gemm_config odd{-1, 2147483647, -2147483647 - 1, 0, 0, 0};
  odd.split_k = 12;
  all.push_back(odd);
  for (auto c : all) {
    for (int split : {1, 3}) {
      if (split != 1) c.split_k = split;
      EXPECT_EQ(c.name(), string_name(c));
      EXPECT_EQ(c.name_text().view(), string_name(c));
      EXPECT_EQ(c.to_string(), string_text(c));
    }
  }
}

TEST(GemmConfig, InvalidConfigsAreExplained) {
  EXPECT_TRUE(contains(reason({64, 64, 16, 12, 4, 1}), "multiple of thread_m"));
  EXPECT_TRUE(contains(reason({64, 64, 16, 6, 4, 1}), "multiples of 4"));
  EXPECT_TRUE(contains(reason({32, 32, 8, 8, 8, 1}), "multiple of 64"));
  EXPECT_TRUE(contains(reason({256, 128, 8, 4, 4, 1}), "threads per block"));
  EXPECT_TRUE(contains(reason({128, 128, 64, 8, 8, 1}), "shared memory"));
  EXPECT_TRUE(contains(reason({64, 64, 0, 4, 4, 1}), "positive"));
  auto v = gemm_config{};
  v.vector = 3;
  EXPECT_TRUE(contains(reason(v), "vector"));
  EXPECT_TRUE(contains(reason(mma(128, 128, 32, 48, 64, 3)), "multiples of 32"));
  EXPECT_TRUE(contains(reason(mma(128, 128, 32, 128, 64, 3)), "registers"));
  EXPECT_TRUE(contains(reason(mma(128, 128, 16, 64, 64, 3)), "block_k"));
  EXPECT_TRUE(contains(reason(mma(256, 128, 64, 64, 64, 5)), "227 KiB"));
  EXPECT_TRUE(contains(reason(mma(256, 128, 128, 64, 64, 2)), "LDS"));
  EXPECT_TRUE(contains(reason(mma(128, 128, 32, 64, 64, 1)), "stages"));
  EXPECT_FALSE(invalid_reason(gemm_config{}).has_value());
  EXPECT_FALSE(invalid_reason(mma(128, 128, 32, 64, 64, 4)).has_value());
}

TEST(GemmConfig, HopperConfigsFollowNotesAndWarpgroupRules) {
  // The configurations measured in benchmark/hopper/NOTES.md, with its shared-memory formula
  // 1024 + stages * (bm + bn) * 128 + 18432 + 16 * stages + 16 and 384 threads.
  for (const auto& c : {hopper(128, 256, 4), hopper(256, 128, 4), hopper(128, 128, 6), hopper(128, 64, 8)}) {
    EXPECT_FALSE(invalid_reason(c).has_value()) << c.name() << ": " << reason(c);
    EXPECT_EQ(c.shared_bytes(), 1024 + c.stages * (c.block_m + c.block_n) * 128 + 18432 + 16 * c.stages + 16);
    EXPECT_LE(c.shared_bytes(), 232448);
    EXPECT_EQ(c.threads(), 384);
    EXPECT_EQ(c.warps(), 12);
    EXPECT_LE(c.register_estimate(), 232) << c.name();
  }
  EXPECT_EQ(hopper(128, 256, 4).shared_bytes(), 216144);
  EXPECT_EQ(hopper(128, 256, 4).name(), "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8");
  EXPECT_EQ(std::string(rocmtpl::templates::to_string(gemm_math::wgmma)), "wgmma");
  EXPECT_TRUE(contains(hopper(128, 256, 4).to_string(), ".math = gemm_math::wgmma"));
  EXPECT_TRUE(contains(reason(hopper(128, 256, 5)), "227 KiB"));
  EXPECT_TRUE(contains(reason(hopper(256, 256, 2)), "register"));
  EXPECT_TRUE(contains(reason(hopper(128, 96, 4)), "64, 128, 192 or 256"));
  auto c = hopper(128, 128, 4);
  c.warp_m = 128;  // one consumer warpgroup would take the whole tile
  EXPECT_TRUE(contains(reason(c), "2 x warp_m"));
  c = hopper(192, 128, 4);
  c.warp_m = 96;
  EXPECT_TRUE(contains(reason(c), "multiple of 64"));
  c = hopper(128, 128, 4);
  c.block_k = 32;
  EXPECT_TRUE(contains(reason(c), "block_k 64"));
  c = hopper(128, 128, 4);
  c.warp_n = 64;
  EXPECT_TRUE(contains(reason(c), "warp_n must equal block_n"));
  // Split-K is served (fp32 partials through the workspace, then the reduction kernel).
  c = hopper(128, 128, 4);
  c.split_k = 2;
  EXPECT_TRUE(rocmtpl::templates::is_valid(c)) << reason(c);
  c.split_k = 0;
  EXPECT_TRUE(contains(reason(c), "positive"));
  c = hopper(128, 128, 4);
  c.vector = 4;
  EXPECT_TRUE(contains(reason(c), "vector 8"));
}

// The non-throwing check is a constant expression: search spaces and tests can use it at compile time.
static_assert(is_valid(gemm_config{}));
static_assert(!is_valid(gemm_config{64, 64, 16, 12, 4, 1}));

TEST(GemmConfig, ValidateThrowsATypedErrorCarryingTheReason) {
  const gemm_config bad{64, 64, 16, 12, 4, 1};
  try {
    validate(bad);
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::config_error& e) {
    EXPECT_EQ(e.reason(), "block_m must be a multiple of thread_m");
    EXPECT_EQ(e.config(), bad.to_string());
    EXPECT_EQ(std::string(e.what()), "rocmtpl: gemm: invalid config " + bad.to_string() + ": " + e.reason());
  }
  // config_error is an invalid_argument_error: existing handlers keep working.
  EXPECT_THROW(validate(bad), rocmtpl::invalid_argument_error);
  EXPECT_NO_THROW(validate(gemm_config{}));
}
}  // namespace

namespace {
using gemm_test::skinny;

// Issue 10 part 2: the skinny paths' derived values, names and rules.
TEST(GemmConfig, SkinnyConfigsHaveTheirOwnNamesAndRules) {
  auto c = skinny(gemm_math::skinny_m, 8, 8, 32, 1, 8, 8, 4);
  EXPECT_EQ(c.name(), "skm_bm8_bn32_bk8_wm8_wn32_tn1_v8_sk4");
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.warps(), 8);
  EXPECT_EQ(c.shared_bytes(), 256 * 8 * 4);  // the streaming kernel's K reduction
  EXPECT_FALSE(invalid_reason(c).has_value()) << reason(c);
  EXPECT_EQ(skinny(gemm_math::skinny_n, 4, 32, 8, 4).name(), "skn_bm4_bn32_bk8_wm32_wn8_tn4_v8");
  EXPECT_EQ(to_string(gemm_math::skinny_n), "skinny_n");
  EXPECT_TRUE(rocmtpl::templates::is_skinny(gemm_math::skinny_m));
  EXPECT_FALSE(rocmtpl::templates::is_skinny(gemm_math::wgmma));
  const auto d = describe(c);
  EXPECT_TRUE(std::find(d.begin(), d.end(), std::pair<std::string, std::string>{"thread_n", "1"}) != d.end());
  // K is split statically: no runtime split-K needed, but at most 64 slices.
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 1, 8, 32, 1, 8, 8, 128)), "split_k"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 32, 8, 32)), "block_m"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 3, 8, 32)), "block_m"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 8, 64, 8)), "warp_m"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 8, 1, 32)), "threads per block"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 8, 8, 128)), "threads per block"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 8, 8, 24)), "warp_n"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 8, 8, 32, 3)), "thread_n"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 1, 8, 32, 1, 16)), "block_k"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 1, 8, 32, 1, 4, 8)), "vector above block_k"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 16, 8, 32, 1, 8, 8)), "accumulators"));
  EXPECT_FALSE(invalid_reason(skinny(gemm_math::skinny_m, 16, 8, 32, 1, 4, 4)).has_value())
      << reason(skinny(gemm_math::skinny_m, 16, 8, 32, 1, 4, 4));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_m, 16, 8, 32, 1, 8, 4)), "registers"));
  auto wrong_n = c;
  wrong_n.block_n = 64;
  EXPECT_TRUE(contains(reason(wrong_n), "block_n"));
  auto staged = c;
  staged.stages = 3;
  EXPECT_TRUE(contains(reason(staged), "stages 1"));
  EXPECT_TRUE(contains(reason(skinny(gemm_math::skinny_n, 16, 32, 16, 4, 8, 2)), "accumulators"));
}

// Issue 10: the skinny matrix-core tiles (stages 2): 32 threads per warp, 64 elements of the large
// dimension per warp along it, the K warps' shared-memory reduction, their own rules.
TEST(GemmConfig, SkinnyMmaConfigsHaveTheirOwnNamesAndRules) {
  gemm_config c = skinny(gemm_math::skinny_m, 8, 4, 2, 1, 8, 8, 16);
  c.block_n = 128;
  c.stages = 2;
  EXPECT_TRUE(rocmtpl::templates::is_skinny_mma(c));
  EXPECT_FALSE(rocmtpl::templates::is_skinny_mma(skinny(gemm_math::skinny_m, 8, 8, 32)));
  EXPECT_FALSE(invalid_reason(c).has_value()) << reason(c);
  EXPECT_EQ(c.name(), "skm_mma_bm8_bn128_bk8_wm4_wn2_sk16");
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.warps(), 8);
  EXPECT_EQ(c.shared_bytes(), 4 * 8 * 128 * 4);  // the K warps' sums, 8 rows at a time
  auto one_k_warp = c;
  one_k_warp.warp_m = 1;
  EXPECT_EQ(one_k_warp.shared_bytes(), 0);
  const auto broken = [&](auto edit) {
    auto b = c;
    edit(b);
    return reason(b);
  };
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.block_m = 4; }), "block_m"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.warp_m = 8; }), "warp_m"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.warp_n = 8; }), "warp_n"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.block_n = 64; }), "block_n"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.block_k = 16; }), "block_k"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.vector = 4; }), "vector 8"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.thread_n = 2; }), "thread_n"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.split_k = 128; }), "split_k"));
  EXPECT_TRUE(contains(broken([](gemm_config& b) {
                         b.warp_m = 1;
                         b.warp_n = 1;
                         b.block_n = 64;
                       }),
                       "two warps"));
  // 64 rows with 8 K elements per step: 8 tiles of accumulators and two steps of operands.
  EXPECT_TRUE(contains(broken([](gemm_config& b) { b.block_m = 64; }), "registers"));
  auto big = c;
  big.block_m = 64;
  big.block_k = 4;
  EXPECT_FALSE(invalid_reason(big).has_value()) << reason(big);
}

}  // namespace

// SPDX-License-Identifier: MIT
// The stock policies' names and their configurations' names are constants: usable in static_assert,
// with the text the std::string forms return (kernel names, golden files and tuning keys use them).
#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>

#include <cstdint>

namespace {
using rocmtpl::templates::elementwise_config;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::mma_config;
using rocmtpl::templates::simt_config;
using rocmtpl::templates::skinny_config;
using rocmtpl::templates::skinny_mma_config;
using rocmtpl::templates::skinny_side;
using rocmtpl::templates::wgmma_config;

static_assert(rocmtpl::templates::gemm_policy::name() == "gemm");
static_assert(rocmtpl::templates::elementwise_policy::name() == "elementwise");
static_assert(rocmtpl::templates::pointwise_policy::name() == "pointwise");
static_assert(rocmtpl::rocm_template<rocmtpl::templates::gemm_policy>::name() == "gemm");

// SIMT, matrix-core, Hopper and skinny names, from each path's configuration and through
// gemm_config; split-K adds _sk<n>.
constexpr simt_config simt{};
constexpr mma_config mma{.block_m = 128, .block_n = 128, .block_k = 32, .warp_m = 64, .warp_n = 64, .stages = 4};
constexpr wgmma_config wgmma{.block_m = 128, .block_n = 256, .group_m = 8, .stages = 4, .split_k = 3};
constexpr skinny_config skinny{.side = skinny_side::m,
                               .rows = 8,
                               .k_threads = 8,
                               .p_threads = 32,
                               .p_units = 1,
                               .k_step = 8,
                               .vector = 8,
                               .split_k = 4};
constexpr skinny_mma_config skinny_mma{
    .side = skinny_side::n, .rows = 8, .k_warps = 4, .p_warps = 1, .k_step = 8, .split_k = 16};
static_assert(simt.name_text() == "bm64_bn64_bk16_tm4_tn4_g8_s2_v4");
static_assert(mma.name_text() == "mma_bm128_bn128_bk32_wm64_wn64_g8_s4_v8");
static_assert(wgmma.name_text() == "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8_sk3");
static_assert(skinny.name_text() == "skm_bm8_bn32_bk8_wm8_wn32_tn1_v8_sk4");
static_assert(skinny_mma.name_text() == "skn_mma_bm8_bn64_bk8_wm4_wn1_sk16");
static_assert(gemm_config{}.name_text() == "bm64_bn64_bk16_tm4_tn4_g8_s2_v4");
static_assert(gemm_config(mma).name_text() == "mma_bm128_bn128_bk32_wm64_wn64_g8_s4_v8");
static_assert(gemm_config(wgmma).name_text() == "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8_sk3");
static_assert(gemm_config(skinny).name_text() == "skm_bm8_bn32_bk8_wm8_wn32_tn1_v8_sk4");
static_assert(gemm_config(skinny_mma).name_text() == "skn_mma_bm8_bn64_bk8_wm4_wn1_sk16");
static_assert(gemm_config(skinny_mma).path() == "skinny_mma");
static_assert(gemm_config(wgmma).with_split_k(1).name_text() == "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8");

// The designated-initializer text names the path's configuration and its members.
static_assert(gemm_config{}.to_text() ==
              "simt_config{.block_m = 64, .block_n = 64, .block_k = 16, .thread_m = 4, .thread_n = 4, .group_m = 8, "
              ".vector = 4, .split_k = 1}");
static_assert(gemm_config(mma).to_text() ==
              "mma_config{.block_m = 128, .block_n = 128, .block_k = 32, .warp_m = 64, .warp_n = 64, .group_m = 8, "
              ".stages = 4, .vector = 8, .split_k = 1}");
static_assert(gemm_config(wgmma).to_text() ==
              "wgmma_config{.block_m = 128, .block_n = 256, .group_m = 8, .stages = 4, .split_k = 3}");
static_assert(gemm_config(skinny).to_text() ==
              "skinny_config{.rows = 8, .k_threads = 8, .p_threads = 32, .p_units = 1, .k_step = 8, .vector = 8, "
              ".split_k = 4, .side = skinny_side::m}");
static_assert(gemm_config(skinny_mma).to_text() ==
              "skinny_mma_config{.rows = 8, .k_warps = 4, .p_warps = 1, .k_step = 8, .split_k = 16, "
              ".side = skinny_side::n}");
static_assert(elementwise_config{}.to_text() == "{.block_threads = 256}");
static_assert(elementwise_config{.block_threads = -64}.to_text() == "{.block_threads = -64}");

// static_string writes integers as std::to_string does, the extremes included.
static_assert([] {
  rocmtpl::static_string<48> s;
  s.append_decimal(INT64_MIN);
  s += ' ';
  s.append_decimal(INT64_MAX);
  s += ' ';
  s.append_decimal(0);
  return s == "-9223372036854775808 9223372036854775807 0";
}());

}  // namespace

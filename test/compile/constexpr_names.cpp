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
using rocmtpl::templates::gemm_math;

static_assert(rocmtpl::templates::gemm_policy::name() == "gemm");
static_assert(rocmtpl::templates::elementwise_policy::name() == "elementwise");
static_assert(rocmtpl::templates::pointwise_policy::name() == "pointwise");
static_assert(rocmtpl::rocm_template<rocmtpl::templates::gemm_policy>::name() == "gemm");

// SIMT, matrix-core, Hopper and skinny names; split-K adds _sk<n>.
static_assert(gemm_config{}.name_text() == "bm64_bn64_bk16_tm4_tn4_g8_s2_v4");
static_assert(gemm_config{.block_m = 128,
                          .block_n = 128,
                          .block_k = 32,
                          .thread_m = 0,
                          .thread_n = 0,
                          .math = gemm_math::matrix_core,
                          .warp_m = 64,
                          .warp_n = 64,
                          .stages = 4,
                          .vector = 8}
                  .name_text() == "mma_bm128_bn128_bk32_wm64_wn64_g8_s4_v8");
static_assert(gemm_config{.block_m = 128,
                          .block_n = 256,
                          .block_k = 64,
                          .math = gemm_math::wgmma,
                          .warp_m = 64,
                          .warp_n = 256,
                          .stages = 4,
                          .vector = 8,
                          .split_k = 3}
                  .name_text() == "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8_sk3");
static_assert(gemm_config{.block_m = 8,
                          .block_n = 32,
                          .block_k = 8,
                          .thread_m = 1,
                          .thread_n = 1,
                          .group_m = 1,
                          .math = gemm_math::skinny_m,
                          .warp_m = 8,
                          .warp_n = 32,
                          .stages = 1,
                          .vector = 8,
                          .split_k = 4}
                  .name_text() == "skm_bm8_bn32_bk8_wm8_wn32_tn1_v8_sk4");
static_assert(gemm_config{.block_m = 8,
                          .block_n = 64,
                          .block_k = 8,
                          .thread_m = 1,
                          .thread_n = 1,
                          .group_m = 1,
                          .math = gemm_math::skinny_n,
                          .warp_m = 4,
                          .warp_n = 1,
                          .stages = 2,
                          .vector = 8,
                          .split_k = 16}
                  .name_text() == "skn_mma_bm8_bn64_bk8_wm4_wn1_sk16");
static_assert(gemm_config{}.to_text() ==
              "{.block_m = 64, .block_n = 64, .block_k = 16, .thread_m = 4, .thread_n = 4, .group_m = 8, .math = "
              "gemm_math::simt, .warp_m = 0, .warp_n = 0, .stages = 2, .vector = 4, .split_k = 1}");
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

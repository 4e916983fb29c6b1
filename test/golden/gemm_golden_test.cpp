// SPDX-License-Identifier: MIT
// Golden tests: rendered sources compared with checked-in files in test/golden/expected/.
// Regenerate after an intended change with ROCMTPL_UPDATE_GOLDEN=1 and review the diff.
#include <rocmtpl/rocm_template.hpp>

#include "support/golden.hpp"

#include <gtest/gtest.h>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::sym_expr;
using rocmtpl::templates::activation;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_options;
using rocmtpl::templates::gemm_policy;
using rocmtpl::templates::mma_config;
using rocmtpl::templates::simt_config;
using rocmtpl::templates::wgmma_config;

using rocmtpl::test::check_golden;

TEST(GemmGolden, StaticF32) {
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(),
                                        {buffer("x", layout::row_major(dtype::f32, {1000, 700})),
                                         buffer("w", layout::row_major(dtype::f32, {700, 3000}))},
                                        layout::row_major(dtype::f32, {1000, 3000}));
  check_golden("gemm_static_f32.hip", t.generate(simt_config{128, 128, 8, 8, 8, 8}).source());
}

TEST(GemmGolden, SymbolicF16BiasGeluColMajorW) {
  const auto m = sym_expr::symbol("M");
  const auto k = sym_expr::symbol("K");
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy({activation::gelu, 0.5F}),
      {buffer("x", layout::row_major(dtype::f16, {m, k})), buffer("w", layout::col_major(dtype::f16, {k, 256})),
       buffer("bias", layout::row_major(dtype::f16, {256}))},
      layout::row_major(dtype::f16, {m, 256}), std::vector<int>{2, 0, 1});
  check_golden("gemm_symbolic_f16_bias_gelu.hip", t.generate(gemm_config{}, {{"M", 64}, {"K", 128}}).source());
}

// Issue 22 item 6: the output's row stride is a symbol, so whether its rows overlap is decided at
// run time: the entry point checks overlap_of()'s rule and returns UNSUPPORTED_ARGUMENT.
TEST(GemmGolden, SymbolicPaddedOutputIsCheckedForOverlap) {
  const auto m = sym_expr::symbol("M");
  const auto n = sym_expr::symbol("N");
  const auto ld = sym_expr::symbol("ldy");
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f32, {m, 64})), buffer("w", layout::row_major(dtype::f32, {64, n}))},
      layout(dtype::f32, {m, n}, {ld, 1}));
  const std::string source = t.generate(gemm_config{}, {{"M", 64}, {"N", 64}, {"ldy", 64}}).source();
  EXPECT_NE(source.find("const int64_t rocmtpl_strides[2] = {u_ldy, 1};"), std::string::npos);
  check_golden("gemm_symbolic_padded_output_f32.hip", source);
}

TEST(GemmGolden, MatrixCoreStaticF16) {
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(),
                                        {buffer("x", layout::row_major(dtype::f16, {4096, 4096})),
                                         buffer("w", layout::row_major(dtype::f16, {4096, 4096}))},
                                        layout::row_major(dtype::f16, {4096, 4096}));
  const mma_config c{.block_m = 128,
                     .block_n = 128,
                     .block_k = 32,
                     .warp_m = 64,
                     .warp_n = 64,
                     .group_m = 8,
                     .stages = 4,
                     .vector = 8,
                     .split_k = 1};
  check_golden("gemm_mma_static_f16.hip", t.generate(c).source());
}

TEST(GemmGolden, MatrixCoreBatchedBf16SplitKResidual) {
  const auto b = sym_expr::symbol("B");
  const auto m = sym_expr::symbol("M");
  gemm_options o{.act = activation::sigmoid, .alpha = 2.0F, .beta = 0.5F, .residual = true, .runtime_split_k = true};
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy(o),
      {buffer("x", layout::row_major(dtype::bf16, {b, m, 512})), buffer("w", layout::col_major(dtype::bf16, {512, 96})),
       buffer("bias", layout::row_major(dtype::f32, {96})), buffer("res", layout::row_major(dtype::bf16, {b, m, 96}))},
      layout::row_major(dtype::f32, {b, m, 96}));
  const mma_config c{.block_m = 64,
                     .block_n = 64,
                     .block_k = 32,
                     .warp_m = 32,
                     .warp_n = 32,
                     .group_m = 8,
                     .stages = 3,
                     .vector = 8,
                     .split_k = 2};
  check_golden("gemm_mma_batched_bf16_split_k.hip", t.generate(c, {{"B", 2}, {"M", 100}}).source());
}

// The Hopper path (sm_90a wgmma + TMA) on the README's main job: fp16 4096^3 + bias + relu.
TEST(GemmGolden, HopperWgmmaF16BiasRelu) {
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy({activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {4096, 4096})),
       buffer("w", layout::row_major(dtype::f16, {4096, 4096})), buffer("bias", layout::row_major(dtype::f16, {4096}))},
      layout::row_major(dtype::f16, {4096, 4096}));
  const wgmma_config c{.block_m = 128, .block_n = 256, .group_m = 8, .stages = 4, .split_k = 1};
  check_golden("gemm_wgmma_f16_bias_relu.hip", t.generate(c).source());
}

TEST(GemmGolden, KernelNamePlaceholder) {
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy({activation::relu}),
      {buffer("x", layout::row_major(dtype::bf16, {64, 64})), buffer("w", layout::row_major(dtype::bf16, {64, 64}))},
      layout::row_major(dtype::bf16, {64, 64}));
  auto caller = t.generate(gemm_config{});
  check_golden("gemm_placeholder_bf16_relu.hip", caller.output_node().make_kernel_render().render().str());
}
}  // namespace

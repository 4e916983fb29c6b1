// SPDX-License-Identifier: MIT
// templates/gemm/skinny/device_code.hpp (issue 10 part 2): which kernel a skinny configuration
// renders for each layout (streaming along the large dimension, or dot products along K), the
// shared epilogue, the static K slices with their workspace and deterministic second pass, the
// launch description's grids and vector requirements, and the runtime split_k check.
#include <rocmtpl/templates/gemm/skinny/device_code.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {
using namespace gemm_test;
namespace td = rocmtpl::templates::detail;

rocmtpl::rocm_template<gemm_policy> problem(dtype t, bool w_col_major, gemm_options o = {}) {
  return {gemm_policy(o),
          {buffer("x", layout::row_major(t, {M, K})),
           buffer("w", w_col_major ? layout::col_major(t, {K, N}) : layout::row_major(t, {K, N}))},
          layout::row_major(t, {M, N})};
}

TEST(GemmSkinnyDeviceCode, ViewSwapsTheOperandsForTheSmallDimension) {
  const auto m = td::skinny_view_text(true);
  EXPECT_TRUE(contains(m, "v.l = t.W + p.w_offset + batch * p.w_stride_b;"));
  EXPECT_TRUE(contains(m, "v.q_size = p.m_size;"));
  const auto n = td::skinny_view_text(false);
  EXPECT_TRUE(contains(n, "v.l = t.X + p.x_offset + batch * p.x_stride_b;"));
  EXPECT_TRUE(contains(n, "v.s_sq = p.w_stride_n;"));
  EXPECT_TRUE(contains(std::string(td::skinny_common_text), "store_output(p, t, batch, gm, gn, acc);"));
  EXPECT_TRUE(contains(std::string(td::skinny_dot_text), "__shfl_xor(acc[r][q], off, skinny_tk)"));
}

TEST(GemmSkinnyDeviceCode, LayoutPicksTheKernel) {
  const size_hints h{{"M", 8}, {"N", 4096}, {"K", 4096}};
  // Row-major W: streamed along N.
  auto row = problem(dtype::f16, false);
  const auto stream = row.generate(skinny(skinny_side::m, 8, 8, 32), h).source();
  EXPECT_TRUE(contains(stream, "// Streaming: thread (tk, tp)"));
  EXPECT_FALSE(contains(stream, "// Dot: lane tk"));
  EXPECT_TRUE(contains(stream, "using skinny_l_type = w_type;"));
  EXPECT_TRUE(contains(stream, "constexpr bool skinny_q_is_m = true;"));
  EXPECT_TRUE(contains(stream, "skinny_mainloop<8>(p, t);"));
  EXPECT_TRUE(contains(stream, "ROCMTPL_KERNEL_SYMBOL(skinny_v8)("));
  EXPECT_FALSE(contains(stream, "gemm_split_k_reduce_body("));  // K is not split
  EXPECT_FALSE(contains(stream, "constexpr int32_t split_k"));  // no split_k in the entry either
  // nn.Linear weights (W column-major, contiguous along K): dot products.
  auto col = problem(dtype::bf16, true);
  const auto dot = col.generate(skinny(skinny_side::m, 2, 32, 8, 4), h).source();
  EXPECT_TRUE(contains(dot, "// Dot: lane tk"));
  EXPECT_TRUE(contains(dot, "__shared__ float s_tile[skinny_q][skinny_u][skinny_tk];"));
  // Few columns of row-major X: X is the large operand, read along K.
  const auto n_side = row.generate(skinny(skinny_side::n, 8, 32, 8), {{"M", 4096}, {"N", 8}, {"K", 4096}});
  EXPECT_TRUE(contains(n_side.source(), "using skinny_l_type = x_type;"));
  EXPECT_TRUE(contains(n_side.source(), "// Dot: lane tk"));
}

TEST(GemmSkinnyDeviceCode, SplitKUsesTheWorkspaceAndASecondPass) {
  auto t = problem(dtype::f32, false);
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const auto c = skinny(skinny_side::m, 1, 8, 32, 1, 8, 4, 16);
  const auto d = t.policy().describe_launch(kernel, t.context(), c);
  // 16 slices of fp32 partials: 16 * M * N * 4 bytes, whether or not runtime split-K is on.
  EXPECT_EQ(d.workspace_bytes.sizes.evaluate({{"M", 3}, {"N", 100}, {"K", 7}}), 16 * 3 * 100 * 4);
  EXPECT_FALSE(d.workspace_bytes.times_runtime_arg.has_value());
  EXPECT_EQ(t.policy().workspace_bytes(t.context(), c).evaluate({{"M", 3}, {"N", 100}, {"K", 7}}), 16 * 3 * 100 * 4);
  // The vectorised variant (N and the pointers checked at run time) and the scalar one.
  ASSERT_EQ(d.variants.size(), 2U);
  const auto& v4 = d.variants[0];
  ASSERT_EQ(v4.launches.size(), 2U);
  EXPECT_EQ(d.kernel_name, "rocm_gemm");
  EXPECT_EQ(v4.launches[0].suffix, "skinny_v4");
  EXPECT_EQ(v4.launches[1].suffix, "split_k_reduce");  // the tiled paths' reduction
  // Static slices: the reduction always runs (no runtime argument gates it).
  EXPECT_FALSE(v4.launches[1].grid[0].only_when_runtime_arg_above_one.has_value());
  EXPECT_TRUE(d.runtime_args.empty());
  EXPECT_EQ(v4.launches[0].block[0], 256);
  // Grid: ceil(M / 1) * ceil(ceil(N / 4) / 32) blocks, batch, 16 slices.
  const size_hints h{{"M", 3}, {"N", 1000}, {"K", 64}};
  EXPECT_EQ(v4.launches[0].grid[0].sizes.evaluate(h), 3 * 8);
  EXPECT_EQ(v4.launches[0].grid[2].sizes.evaluate(h), 16);
  EXPECT_FALSE(v4.requirements.empty());
  EXPECT_EQ(d.variants[1].launches[0].suffix, "skinny_v1");
  EXPECT_EQ(d.variants[1].launches[0].grid[0].sizes.evaluate(h), 3 * 32);  // units of one element
  EXPECT_TRUE(d.variants[1].requirements.empty());
  const auto src = t.generate(c, h).source();
  EXPECT_TRUE(contains(src, "constexpr int skinny_split = 16;"));
  // The shared reduction body, its slice count the constant 16, under the shared symbol.
  EXPECT_TRUE(contains(src, "for (int z = 0; z < 16; ++z) sum += Partial[z * total + idx];"));
  EXPECT_TRUE(contains(src, "ROCMTPL_KERNEL_SYMBOL(split_k_reduce)("));
  EXPECT_TRUE(contains(src, "gemm_split_k_reduce_body(X, W, Y, Partial, u_M, u_K, u_N);"));
  EXPECT_TRUE(contains(src, "float* __restrict__ Partial"));
  EXPECT_FALSE(contains(src, "int32_t split_k)"));  // no kernel takes split_k
  // Without split there is no workspace.
  EXPECT_EQ(t.policy().workspace_bytes(t.context(), skinny(skinny_side::m, 1, 8, 32, 1, 8, 4)), sym_expr(0));
}

TEST(GemmSkinnyDeviceCode, RuntimeSplitKMustMatchTheStaticSlices) {
  auto t = problem(dtype::f16, false, {.runtime_split_k = true});
  const auto src = t.generate(skinny(skinny_side::m, 2, 8, 32, 1, 8, 8, 4), {{"M", 2}, {"N", 64}, {"K", 64}}).source();
  EXPECT_TRUE(contains(src, "if (split_k != 4) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_FALSE(contains(src, "split_k < 1 || split_k > 65535"));
  // The kernels take no split_k: the slices are constants, the reduction's loop too.
  EXPECT_TRUE(contains(src, "gemm_split_k_reduce_body(X, W, Y, Partial, u_M, u_K, u_N);"));
  EXPECT_TRUE(contains(src, "for (int z = 0; z < 4; ++z)"));
  EXPECT_EQ(t.policy().runtime_arg_values(skinny(skinny_side::m, 2, 8, 32, 1, 8, 8, 4)).front(), 4);
}

// Issue 10: a matrix-core configuration (skinny_mma_config) renders the mma.sync kernel for 16-bit
// X and W with W contiguous along N; its vectorised variant also checks X (loaded k_step elements
// at a time), its grid counts columns() elements of N, and an AMD build refuses every launch.
TEST(GemmSkinnyDeviceCode, MatrixCoreKernelForSixteenBitStreaming) {
  const skinny_mma_config c{.side = skinny_side::m, .rows = 16, .k_warps = 4, .p_warps = 2, .k_step = 8, .split_k = 4};
  auto t = problem(dtype::bf16, false);
  const size_hints h{{"M", 9}, {"N", 1000}, {"K", 4096}};
  const auto src = t.generate(c, h).source();
  EXPECT_TRUE(contains(src, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  EXPECT_TRUE(contains(src, "constexpr int skinny_warps_k = 4;"));
  EXPECT_TRUE(contains(src, "constexpr int skinny_warps_p = 2;"));
  EXPECT_TRUE(contains(src, "constexpr bool skinny_s_vector = true;"));
  EXPECT_TRUE(contains(src, "__byte_perm(r.l[4 * h][j], r.l[4 * h + 1][j], 0x5410)"));
  EXPECT_TRUE(contains(src, "skinny_mainloop<8>(p, t);"));
  EXPECT_TRUE(contains(src, "skinny_mainloop<1>(p, t);"));  // the scalar fallback
  EXPECT_TRUE(contains(src, "the skinny matrix-core path exists on NVIDIA only"));
  EXPECT_FALSE(contains(src, "// Streaming: thread (tk, tp)"));
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const auto d = t.policy().describe_launch(kernel, t.context(), c);
  ASSERT_EQ(d.variants.size(), 2U);
  // W and X: aligned pointers, their strides multiples of 8 elements (N, K: symbolic).
  const auto& req = d.variants[0].requirements;
  EXPECT_EQ(std::count_if(req.begin(), req.end(),
                          [](const auto& r) { return r.kind == rocmtpl::launch_requirement_kind::aligned_pointer; }),
            2);
  EXPECT_EQ(d.variants[0].launches[0].block[0], 256);
  // ceil(9 / 16) Q tiles * ceil(1000 / 128) blocks of N, 4 slices, then the reduction.
  EXPECT_EQ(d.variants[0].launches[0].grid[0].sizes.evaluate(h), 8);
  EXPECT_EQ(d.variants[0].launches[0].grid[2].sizes.evaluate(h), 4);
  EXPECT_EQ(d.variants[0].launches.back().suffix, "split_k_reduce");
  EXPECT_EQ(d.variants[1].launches[0].grid[0].sizes.evaluate(h), 8);
  // Column-major X: S is read element by element (no requirement on X).
  rocmtpl::rocm_template<gemm_policy> col_x(
      gemm_policy(),
      {buffer("x", layout::col_major(dtype::f16, {M, K})), buffer("w", layout::row_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {M, N}));
  EXPECT_TRUE(contains(col_x.generate(c, h).source(), "constexpr bool skinny_s_vector = false;"));
  // f32, or W contiguous along K: refused with the reason.
  try {
    (void)problem(dtype::f32, false).generate(c, h);
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "skinny mma config skm_mma_bm16_bn128_bk8_wm4_wn2_sk4 needs X and W of one dtype"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "; use a skinny (FMA) config")) << e.what();
  }
  EXPECT_THROW((void)problem(dtype::f16, true).generate(c, h), rocmtpl::invalid_argument_error);
}

TEST(GemmSkinnyDeviceCode, EveryEpilogueGoesThroughStoreOutput) {
  auto t = epilogue_problem(false);
  const auto src = t.generate(skinny(skinny_side::n, 8, 32, 8), {{"M", 1000}}).source();
  EXPECT_TRUE(contains(src, "v = apply_activation(v);"));
  EXPECT_TRUE(contains(src, "v += residual_type::to_float("));
  EXPECT_TRUE(contains(src, "store_output(p, t, batch, gm, gn, acc);"));
  EXPECT_TRUE(
      contains(src, "// gemm skn_bm8_bn8_bk8_wm32_wn8_tn1_v8: Y = gelu(0.5f * X @ W + 2.0f * Bias) + Residual"));
}

}  // namespace

// SPDX-License-Identifier: MIT
// templates/gemm/render.hpp: what the kernel renderer writes for each problem feature (paths,
// layouts, epilogues, batch, split-K, alignment dispatch) and what it refuses.
#include <rocmtpl/templates/gemm/render.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {
using namespace gemm_test;
using rocmtpl::entry_param;
using rocmtpl::launch_requirement;
using rocmtpl::launch_requirement_kind;
using rocmtpl::launch_value;
using rocmtpl::param_kind;

using params = std::vector<entry_param>;
using requirements = std::vector<launch_requirement>;

// Variant `v`'s launch suffixes, in launch order.
std::vector<std::string> suffixes(const rocmtpl::launch_description& d, std::size_t v) {
  std::vector<std::string> out;
  for (const auto& l : d.variants.at(v).launches) out.push_back(l.suffix);
  return out;
}

launch_requirement aligned(std::size_t tensor, std::int64_t bytes) {
  return {.kind = launch_requirement_kind::aligned_pointer, .tensor = tensor, .expr = sym_expr(0), .value = bytes};
}

launch_requirement multiple_of(const sym_expr& e, std::int64_t divisor) {
  return {.kind = launch_requirement_kind::multiple_of, .expr = e, .value = divisor};
}

TEST(GemmRender, DeterministicAndStaticSizesBakedIn) {
  auto t = make();
  const auto caller = t.generate(gemm_config{}, {{"M", 100}});
  const auto& a = caller.source();
  auto b = t.generate(gemm_config{}, {{"M", 100}}).source();
  EXPECT_EQ(a, b);
  EXPECT_TRUE(contains(a, "problem_.k_size = 96;"));
  EXPECT_TRUE(contains(a, "problem_.m_size = u_M;"));
  EXPECT_TRUE(contains(a, "make_problem(int64_t u_M)"));
  EXPECT_TRUE(contains(a, "if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_EQ(caller.bmreq().kernel_name, "rocm_gemm");
  EXPECT_EQ(caller.bmreq().signature.params, (params{{"X", param_kind::tensor_in, "const float*"},
                                                     {"W", param_kind::tensor_in, "const float*"},
                                                     {"Y", param_kind::tensor_out, "float*"},
                                                     {"u_M", param_kind::size, "int64_t"}}));
  // SIMT path, and nothing of the matrix-core one.
  EXPECT_TRUE(contains(a, "float acc[thread_m][thread_n];"));
  EXPECT_FALSE(contains(a, "mma.sync"));
}

TEST(GemmRender, ConfigChangesTheSource) {
  auto t = make();
  EXPECT_NE(t.generate(gemm_config{}, {{"M", 1}}).source(),
            t.generate(simt_config{128, 64, 8, 8, 4, 1}, {{"M", 1}}).source());
}

TEST(GemmRender, EpilogueAndDtypes) {
  const auto caller = make(dtype::bf16, activation::silu, true).generate(gemm_config{}, {{"M", 3}});
  const auto& src = caller.source();
  EXPECT_TRUE(contains(src, "using x_type = gemm_dtype<2>;"));
  EXPECT_TRUE(contains(src, "using bias_type = gemm_dtype<0>;"));
  EXPECT_TRUE(contains(src, "struct gemm_dtype<2> {"));
  EXPECT_FALSE(contains(src, "struct gemm_dtype<1> {"));  // only the kinds in use
  EXPECT_TRUE(contains(src, "return rocmtpl_dev::silu(v);"));
  EXPECT_TRUE(contains(src, "v += bias_type::to_float(t.Bias[p.bias_offset"));
  EXPECT_TRUE(contains(src, "problem_.bias_stride_m = 0;"));
  EXPECT_EQ(caller.bmreq().signature.params.at(2), (entry_param{"Bias", param_kind::tensor_in, "const float*"}));
  EXPECT_TRUE(contains(src, "= y_type::from_float(v);"));
}

TEST(GemmRender, AlphaBetaResidualAndBiasAlongM) {
  auto t = epilogue_problem(false);
  const auto caller = t.generate(gemm_config{}, {{"M", 7}});
  const auto& src = caller.source();
  EXPECT_TRUE(contains(src, "float v = 0.5f * acc;"));
  EXPECT_TRUE(contains(src, "v += 2.0f * bias_type::to_float("));
  EXPECT_TRUE(contains(src, "problem_.bias_stride_m = 1;"));
  EXPECT_TRUE(contains(src, "problem_.bias_stride_n = 0;"));
  EXPECT_TRUE(contains(src, "v += residual_type::to_float(t.Residual["));
  EXPECT_TRUE(contains(src, "Y = gelu(0.5f * X @ W + 2.0f * Bias) + Residual"));
  EXPECT_EQ(caller.bmreq().signature.params, (params{{"X", param_kind::tensor_in, "const uint16_t*"},
                                                     {"W", param_kind::tensor_in, "const uint16_t*"},
                                                     {"Bias", param_kind::tensor_in, "const float*"},
                                                     {"Residual", param_kind::tensor_in, "const uint16_t*"},
                                                     {"Y", param_kind::tensor_out, "float*"},
                                                     {"u_M", param_kind::size, "int64_t"}}));

  // Residual without a bias: three inputs, the third is the residual.
  gemm_options r;
  r.residual = true;
  rocmtpl::rocm_template<gemm_policy> t2(
      gemm_policy(r),
      {buffer("x", layout::row_major(dtype::f32, {M, 8})), buffer("w", layout::row_major(dtype::f32, {8, 4})),
       buffer("r", layout::row_major(dtype::f32, {M, 4}))},
      layout::row_major(dtype::f32, {M, 4}));
  const auto caller2 = t2.generate(gemm_config{}, {{"M", 2}});
  EXPECT_EQ(caller2.bmreq().signature.params, (params{{"X", param_kind::tensor_in, "const float*"},
                                                      {"W", param_kind::tensor_in, "const float*"},
                                                      {"Residual", param_kind::tensor_in, "const float*"},
                                                      {"Y", param_kind::tensor_out, "float*"},
                                                      {"u_M", param_kind::size, "int64_t"}}));
  EXPECT_FALSE(contains(caller2.source(), "Bias"));  // nor anywhere in the device code
}

TEST(GemmRender, AddmmOrderThroughInputReorder) {
  std::vector<buffer> in{buffer("x", layout::row_major(dtype::f16, {M, 32})),
                         buffer("w", layout::row_major(dtype::f16, {32, 16})),
                         buffer("b", layout::row_major(dtype::f16, {16}))};
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(), in, layout::row_major(dtype::f16, {M, 16}),
                                        std::vector<int>{2, 0, 1});
  auto caller = t.generate(mma(64, 64, 32, 32, 32, 3), {{"M", 4}});
  const auto& sig = caller.bmreq().signature.params;
  ASSERT_GE(sig.size(), 4U);
  EXPECT_EQ((params{sig.begin(), sig.begin() + 4}), (params{{"Bias", param_kind::tensor_in, "const uint16_t*"},
                                                            {"X", param_kind::tensor_in, "const uint16_t*"},
                                                            {"W", param_kind::tensor_in, "const uint16_t*"},
                                                            {"Y", param_kind::tensor_out, "uint16_t*"}}));
  EXPECT_EQ(caller.bmreq().input_tensor_meta.front().name, "b");
}

TEST(GemmRender, MatrixCorePathForBothVendorsInOneSource) {
  auto t = square(dtype::f16, 1024, 512, 256);
  const auto caller = t.generate(mma(128, 128, 32, 64, 64, 4));
  const auto& src = caller.source();
  EXPECT_TRUE(contains(src, "#if defined(ROCMTPL_PLATFORM_NVIDIA)"));
  EXPECT_TRUE(contains(src, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
  EXPECT_TRUE(contains(src, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  EXPECT_TRUE(contains(src, "cp.async.cg.shared.global"));
  EXPECT_TRUE(contains(src, "#elif defined(ROCMTPL_PLATFORM_AMD)"));
  EXPECT_TRUE(contains(src, "__builtin_amdgcn_mfma_f32_32x32x8f16"));
  EXPECT_TRUE(contains(src, "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k"));
  EXPECT_TRUE(contains(src, "constexpr int warp_m = 64;"));
  EXPECT_TRUE(contains(src, "constexpr int stages = 4;"));
  EXPECT_TRUE(contains(src, "[[maybe_unused]] constexpr bool x_k_major = true;"));
  EXPECT_TRUE(contains(src, "[[maybe_unused]] constexpr bool w_k_major = false;"));
  // Static, aligned strides: one fast instantiation; a misaligned pointer is refused, not run slowly.
  ASSERT_TRUE(caller.launch().has_value());
  const auto& d = *caller.launch();
  ASSERT_EQ(d.variants.size(), 1U);
  EXPECT_EQ(d.variants[0].requirements, (requirements{aligned(0, 16), aligned(1, 16)}));
  EXPECT_TRUE(contains(src, "gemm_kernel_body<8, 8>("));
  EXPECT_EQ(suffixes(d, 0), (std::vector<std::string>{"v8_8"}));
  EXPECT_FALSE(contains(src, "gemm_kernel_body<1, 1>("));
  // Column-major W (nn.Linear weight): K-major tile of W.
  rocmtpl::rocm_template<gemm_policy> lin(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::bf16, {M, 256})), buffer("w", layout::col_major(dtype::bf16, {256, 128}))},
      layout::row_major(dtype::bf16, {M, 128}));
  const auto src2 = lin.generate(mma(128, 128, 32, 64, 64, 4), {{"M", 64}}).source();
  EXPECT_TRUE(contains(src2, "[[maybe_unused]] constexpr bool w_k_major = true;"));
  EXPECT_TRUE(contains(src2, "[[maybe_unused]] constexpr int x_kind = 2;"));
}

TEST(GemmRender, MatrixCoreConfigNeedsSixteenBitOperands) {
  auto t = square(dtype::f32, 64, 64, 64);
  try {
    (void)t.generate(mma(64, 64, 32, 32, 32, 3));
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "needs X and W of one dtype, float16 or bfloat16")) << e.what();
  }
  // Mixed f16 x bf16 stays on SIMT.
  rocmtpl::rocm_template<gemm_policy> mixed(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {8, 8})), buffer("w", layout::row_major(dtype::bf16, {8, 8}))},
      layout::row_major(dtype::f32, {8, 8}));
  // (8 x 8 x 8 is skinny too: those configurations serve any dtypes.)
  for (const auto& c : mixed.policy().configs(mixed.context(), {})) {
    EXPECT_TRUE(c.holds<simt_config>() || is_skinny(c)) << c.name();
  }
}

TEST(GemmRender, SymbolicAlignmentIsCheckedAtRunTimeWithAFallback) {
  auto t = square(dtype::f16, M, N, K);
  const auto caller = t.generate(mma(128, 128, 32, 64, 64, 4), {{"M", 64}, {"N", 64}, {"K", 64}});
  ASSERT_TRUE(caller.launch().has_value());
  const auto& d = *caller.launch();
  // Variant 0 needs the pointers and the symbolic strides aligned; else the scalar variant runs.
  ASSERT_EQ(d.variants.size(), 2U);
  EXPECT_EQ(d.variants[0].requirements,
            (requirements{aligned(0, 16), multiple_of(K, 8), aligned(1, 16), multiple_of(N, 8)}));
  EXPECT_EQ(suffixes(d, 0), (std::vector<std::string>{"v8_8"}));
  EXPECT_TRUE(d.variants[1].requirements.empty());  // the fallback always runs
  EXPECT_EQ(suffixes(d, 1), (std::vector<std::string>{"v1_1"}));
  // Static K = 700 (a multiple of 4, not 8): the vector width drops to 4 at render time.
  auto t2 = square(dtype::f16, 64, 64, 700);
  const auto src2 = t2.generate(mma(64, 64, 32, 32, 32, 3)).source();
  EXPECT_TRUE(contains(src2, "gemm_kernel_body<4, 8>("));
  // Odd K: X cannot take vectors; W (N contiguous, N = 64) still can.
  auto t3 = square(dtype::f16, 64, 64, 33);
  EXPECT_TRUE(contains(t3.generate(mma(64, 64, 32, 32, 32, 3)).source(), "gemm_kernel_body<1, 8>("));
}

TEST(GemmRender, BatchedOperandsAndBroadcastWeights) {
  const auto b = sym_expr::symbol("B");
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {b, M, 64})), buffer("w", layout::row_major(dtype::f16, {64, 32}))},
      layout::row_major(dtype::f16, {b, M, 32}));
  const auto caller = t.generate(mma(64, 64, 32, 32, 32, 3), {{"B", 3}, {"M", 5}});
  const auto& src = caller.source();
  EXPECT_TRUE(contains(src, "problem_.batch = u_B;"));
  EXPECT_TRUE(contains(src, "problem_.x_stride_b = 64*u_M;"));
  EXPECT_TRUE(contains(src, "problem_.w_stride_b = 0;"));
  EXPECT_TRUE(contains(src, "problem_.y_stride_b = 32*u_M;"));
  ASSERT_TRUE(caller.launch().has_value());
  EXPECT_EQ(caller.launch()->variants.at(0).launches.at(0).grid[1], launch_value{.sizes = b});
  // Batch sizes that disagree are named.
  try {
    rocmtpl::rocm_template<gemm_policy> bad(
        gemm_policy(),
        {buffer("x", layout::row_major(dtype::f16, {2, 4, 8})), buffer("w", layout::row_major(dtype::f16, {3, 8, 4}))},
        layout::row_major(dtype::f16, {2, 4, 4}));
    (void)bad.generate(gemm_config{});
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "does not match the batch = 2")) << e.what();
  }
}

TEST(GemmRender, RuntimeSplitKUsesTheWorkspace) {
  gemm_options o;
  o.runtime_split_k = true;
  auto t = square(dtype::f16, M, 64, 4096, o);
  const auto c = mma(64, 64, 32, 32, 32, 3).with_split_k(4);
  const auto caller = t.generate(c, {{"M", 64}});
  const auto& src = caller.source();
  const auto& sig = caller.bmreq().signature.params;
  ASSERT_GE(sig.size(), 2U);
  EXPECT_EQ((params{sig.end() - 2, sig.end()}),
            (params{{"u_M", param_kind::size, "int64_t"}, {"split_k", param_kind::runtime_arg, "int32_t"}}));
  EXPECT_TRUE(contains(src, "if (split_k < 1 || split_k > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  // The workspace holds split_k slices of fp32 partials (M x 64), none for a single slice.
  ASSERT_TRUE(caller.launch().has_value());
  const auto& d = *caller.launch();
  EXPECT_EQ(
      d.workspace_bytes,
      (launch_value{.sizes = sym_expr(4 * 64) * M, .times_runtime_arg = 0, .only_when_runtime_arg_above_one = 0}));
  ASSERT_EQ(d.variants.size(), 1U);
  EXPECT_EQ(suffixes(d, 0), (std::vector<std::string>{"v8_8", "split_k_reduce"}));
  EXPECT_EQ(d.variants[0].launches[0].grid[2], (launch_value{.sizes = sym_expr(1), .times_runtime_arg = 0}));
  EXPECT_TRUE(contains(src, "return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;"));
  // The runtime value travels in the benchmark request after the size arguments.
  EXPECT_EQ(caller.bmreq().size_arg_count, 1U);
  ASSERT_EQ(caller.bmreq().extra_args.size(), 2U);
  EXPECT_EQ(caller.bmreq().extra_args[1], 4);
  // Split-K without the option is refused; split 1 renders.
  auto plain = square(dtype::f16, M, 64, 4096);
  EXPECT_THROW((void)plain.generate(c, {{"M", 64}}), rocmtpl::invalid_argument_error);
  EXPECT_TRUE(
      contains(plain.generate(mma(64, 64, 32, 32, 32, 3), {{"M", 64}}).source(), "constexpr int32_t split_k = 1;"));
  // A SIMT configuration splits K statically without it: its own workspace, K slices and reduction.
  auto f32 = square(dtype::f32, M, 64, 4096);
  const simt_config s{.block_m = 64, .block_n = 64, .block_k = 16, .thread_m = 8, .thread_n = 8, .split_k = 4};
  auto st = f32.generate(s, {{"M", 32}});
  EXPECT_TRUE(contains(st.source(), "constexpr int32_t split_k = 4;"));
  EXPECT_TRUE(contains(st.source(), "gemm_mainloop<VecA, VecB>(p, t, 4);"));
  ASSERT_TRUE(st.launch().has_value());
  ASSERT_FALSE(st.launch()->variants.empty());
  const auto& sv = st.launch()->variants[0];
  ASSERT_EQ(sv.launches.size(), 2U);
  EXPECT_EQ(sv.launches[0].grid[2], launch_value{.sizes = sym_expr(4)});
  EXPECT_EQ(sv.launches[1].suffix, "split_k_reduce");
  EXPECT_EQ(st.bmreq().signature.count(param_kind::runtime_arg), 0U);
  EXPECT_EQ(st.output_node().get_workspace_size(), 4U * 32 * 64 * sizeof(float));
}

TEST(GemmRender, InvalidConfigIsAConfigErrorBeforeAnythingIsBound) {
  auto t = make();
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  try {
    (void)rocmtpl::templates::detail::render_gemm(kernel, t.context(), simt_config{64, 64, 16, 12, 4, 1}, {});
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::config_error& e) {
    EXPECT_EQ(e.reason(), "block_m must be a multiple of thread_m");
  }
  EXPECT_TRUE(kernel.args().inputs().empty());
}

TEST(GemmRender, PlanVectorWidthsAndLaunchBounds) {
  namespace td = rocmtpl::templates::detail;
  auto t = square(dtype::f16, 64, 64, 700);
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const mma_config c{.block_m = 64, .block_n = 64, .block_k = 32, .warp_m = 32, .warp_n = 32, .stages = 3};
  const auto plan =
      td::make_gemm_plan(kernel, t.context(), td::plan_config(c), {}, td::make_gemm_view(t.context(), {}));
  EXPECT_EQ(plan.config.name, "mma_bm64_bn64_bk32_wm32_wn32_g8_s3_v8");
  EXPECT_EQ(plan.config.vector, 8);
  EXPECT_FALSE(plan.config.splits_k_statically);
  EXPECT_EQ(plan.va, 4);  // K = 700: a multiple of 4, not 8
  EXPECT_EQ(plan.vb, 8);
  EXPECT_TRUE(plan.fast);
  EXPECT_FALSE(plan.needs_fallback);
  // The launch description: one vectorised variant (static strides are aligned, so only the
  // pointers are checked at run time: 4 and 8 halves) and no scalar fallback.
  const auto d = rocmtpl::templates::mma_path::describe_launch(kernel, plan, c);
  ASSERT_EQ(d.variants.size(), 1U);
  const auto& req = d.variants[0].requirements;
  ASSERT_EQ(req.size(), 2U);
  EXPECT_EQ(req[0].kind, rocmtpl::launch_requirement_kind::aligned_pointer);
  EXPECT_EQ(req[0].value, 8);
  EXPECT_EQ(req[1].value, 16);
  EXPECT_EQ(rocmtpl::device_symbol(d, d.variants[0].launches.at(0)), "rocm_gemm_v4_8");
  EXPECT_EQ(d.variants[0].launches.at(0).block[0], 128);  // 4 warps of 32 threads on NVIDIA
}
TEST(GemmRender, EntryPointRefusesSizeProductsThatOverflow) {
  // Issue 8: element count, split-K bytes and tile count are products checked with
  // __builtin_mul_overflow (helpers under the reserved rocmtpl_ prefix) before the workspace query
  // answers and before the launch.
  gemm_options o;
  o.runtime_split_k = true;
  auto t = square(dtype::f16, M, N, 4096, o);
  const auto c = mma(64, 64, 32, 32, 32, 3).with_split_k(4);
  const auto src = t.generate(c, {{"M", 64}, {"N", 64}}).source();
  const auto helpers = src.find("inline bool rocmtpl_checked_mul(int64_t a, int64_t b, int64_t& out)");
  const auto query = src.find("*workspace_size = static_cast<size_t>(rocmtpl_workspace_bytes);");
  ASSERT_NE(helpers, std::string::npos);
  ASSERT_NE(query, std::string::npos);
  EXPECT_LT(helpers, query);
  const auto count_check = src.find(
      "if (!rocmtpl_checked_mul(p.batch, p.m_size, rocmtpl_elements) ||\n"
      "        !rocmtpl_checked_mul(rocmtpl_elements, p.n_size, rocmtpl_elements)) {");
  // The workspace (split_k fp32 partials) and the grid come from the launch description, in
  // checked arithmetic that refuses what does not fit.
  const auto bytes_check =
      src.find("if (!rocmtpl_ws_ok || rocmtpl_workspace_bytes < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  EXPECT_LT(count_check, query);
  EXPECT_LT(bytes_check, query);
  EXPECT_TRUE(contains(src,
                       "rocmtpl_size_mul(rocmtpl_size_mul(rocmtpl_size_mul(4, u_M, &rocmtpl_ws_ok), u_N, "
                       "&rocmtpl_ws_ok), static_cast<int64_t>(split_k), &rocmtpl_ws_ok)"));
  EXPECT_TRUE(contains(src,
                       "if (!rocmtpl_grid_0_ok || rocmtpl_grid_0_x > 2147483647 || rocmtpl_grid_0_y > 65535 || "
                       "rocmtpl_grid_0_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_FALSE(contains(src, "p.batch * p.m_size * p.n_size"));
  // The reference entry's grid comes from its launch description, checked the same way.
  const auto ref = t.generate_reference({{"M", 64}, {"N", 64}}).source();
  EXPECT_TRUE(contains(ref, "rocmtpl_size_mul(u_M, u_N, &rocmtpl_grid_0_ok)")) << ref;
  EXPECT_TRUE(contains(ref,
                       "if (!rocmtpl_grid_0_ok || rocmtpl_grid_0_x > 2147483647 || rocmtpl_grid_0_y > 65535 || "
                       "rocmtpl_grid_0_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
}
}  // namespace

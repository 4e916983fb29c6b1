// SPDX-License-Identifier: MIT
// gemm_policy: configuration values, search spaces and ranking, and what render() writes for each
// problem feature (paths, layouts, epilogues, batch, split-K, alignment dispatch).
#include <rocmtpl/rocm_template.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::size_hints;
using rocmtpl::sym_expr;
using rocmtpl::templates::activation;
using rocmtpl::templates::bias_dim;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_math;
using rocmtpl::templates::gemm_options;
using rocmtpl::templates::gemm_policy;
using rocmtpl::templates::validate;

const sym_expr M = sym_expr::symbol("M");
const sym_expr N = sym_expr::symbol("N");
const sym_expr K = sym_expr::symbol("K");

rocmtpl::rocm_template<gemm_policy> make(dtype t = dtype::f32, activation act = activation::none, bool bias = false) {
  std::vector<buffer> in{buffer("x", layout::row_major(t, {M, 96})), buffer("w", layout::row_major(t, {96, 80}))};
  if (bias) in.emplace_back("b", layout::row_major(dtype::f32, {80}));
  return {gemm_policy({act}), in, layout::row_major(t, {M, 80})};
}

rocmtpl::rocm_template<gemm_policy> square(dtype t, sym_expr m, sym_expr n, sym_expr k, gemm_options o = {}) {
  return {gemm_policy(o), {buffer("x", layout::row_major(t, {m, k})), buffer("w", layout::row_major(t, {k, n}))},
          layout::row_major(t, {m, n})};
}

gemm_config mma(int bm, int bn, int bk, int wm, int wn, int stages) {
  gemm_config c;
  c.math = gemm_math::matrix_core;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.warp_m = wm;
  c.warp_n = wn;
  c.stages = stages;
  c.thread_m = 0;
  c.thread_n = 0;
  c.vector = 8;
  return c;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(GemmConfig, SearchSpaceIsValidUniqueAndHoldsBothPaths) {
  auto configs = gemm_policy().configs();
  EXPECT_GE(configs.size(), 32U);
  std::set<gemm_config> unique(configs.begin(), configs.end());
  EXPECT_EQ(unique.size(), configs.size());
  std::size_t simt = 0;
  std::size_t cores = 0;
  for (const auto& c : configs) {
    EXPECT_EQ(validate(c), "") << c.to_string();
    if (c.math == gemm_math::simt) {
      ++simt;
      EXPECT_EQ(c.threads() % 64, 0);
      EXPECT_LE(c.shared_bytes(), 64 * 1024);
    } else {
      ++cores;
      EXPECT_LE(c.shared_bytes(), 227 * 1024);
      EXPECT_LE(c.amd_lds_bytes(), 64 * 1024);
      EXPECT_LE(c.warps(), 8);
    }
    EXPECT_LE(c.register_estimate(), 255) << c.name();
  }
  EXPECT_GT(simt, 16U);
  EXPECT_GT(cores, 16U);
  // The first configuration renders for any dtype (callers take configs().front()).
  EXPECT_EQ(configs.front().math, gemm_math::simt);
  EXPECT_TRUE(std::find(configs.begin(), configs.end(), gemm_config{}) != configs.end());
}

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
  const auto d = describe(m);
  EXPECT_EQ(d.front(), (std::pair<std::string, std::string>{"math", "matrix_core"}));
  EXPECT_TRUE(std::find(d.begin(), d.end(), std::pair<std::string, std::string>{"warp_n", "64"}) != d.end());
  EXPECT_TRUE(std::find(d.begin(), d.end(), std::pair<std::string, std::string>{"split_k", "4"}) != d.end());
}

TEST(GemmConfig, InvalidConfigsAreExplained) {
  EXPECT_NE(validate({64, 64, 16, 12, 4, 1}).find("multiple of thread_m"), std::string::npos);
  EXPECT_NE(validate({64, 64, 16, 6, 4, 1}).find("multiples of 4"), std::string::npos);
  EXPECT_NE(validate({32, 32, 8, 8, 8, 1}).find("multiple of 64"), std::string::npos);
  EXPECT_NE(validate({256, 128, 8, 4, 4, 1}).find("threads per block"), std::string::npos);
  EXPECT_NE(validate({128, 128, 64, 8, 8, 1}).find("shared memory"), std::string::npos);
  EXPECT_NE(validate({64, 64, 0, 4, 4, 1}).find("positive"), std::string::npos);
  auto v = gemm_config{};
  v.vector = 3;
  EXPECT_NE(validate(v).find("vector"), std::string::npos);
  EXPECT_NE(validate(mma(128, 128, 32, 48, 64, 3)).find("multiples of 32"), std::string::npos);
  EXPECT_NE(validate(mma(128, 128, 32, 128, 64, 3)).find("registers"), std::string::npos);
  EXPECT_NE(validate(mma(128, 128, 16, 64, 64, 3)).find("block_k"), std::string::npos);
  EXPECT_NE(validate(mma(256, 128, 64, 64, 64, 5)).find("227 KiB"), std::string::npos);
  EXPECT_NE(validate(mma(256, 128, 128, 64, 64, 2)).find("LDS"), std::string::npos);
  EXPECT_NE(validate(mma(128, 128, 32, 64, 64, 1)).find("stages"), std::string::npos);
  auto t = make();
  EXPECT_THROW((void)t.generate({64, 64, 16, 12, 4, 1}, {{"M", 10}}), rocmtpl::invalid_argument_error);
}

TEST(GemmRender, DeterministicAndStaticSizesBakedIn) {
  auto t = make();
  auto a = t.generate(gemm_config{}, {{"M", 100}}).source();
  auto b = t.generate(gemm_config{}, {{"M", 100}}).source();
  EXPECT_EQ(a, b);
  EXPECT_TRUE(contains(a, "problem_.k_size = 96;"));
  EXPECT_TRUE(contains(a, "problem_.m_size = u_M;"));
  EXPECT_TRUE(contains(a, "make_problem(int64_t u_M)"));
  EXPECT_TRUE(contains(a, "if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_TRUE(contains(a, "int rocm_gemm(const float* X, const float* W, float* Y, int64_t u_M, size_t* workspace_size"));
  // SIMT path, and nothing of the matrix-core one.
  EXPECT_TRUE(contains(a, "float acc[thread_m][thread_n];"));
  EXPECT_FALSE(contains(a, "mma.sync"));
}

TEST(GemmRender, ConfigChangesTheSource) {
  auto t = make();
  EXPECT_NE(t.generate(gemm_config{}, {{"M", 1}}).source(), t.generate({128, 64, 8, 8, 4, 1}, {{"M", 1}}).source());
}

TEST(GemmRender, EpilogueAndDtypes) {
  auto src = make(dtype::bf16, activation::silu, true).generate(gemm_config{}, {{"M", 3}}).source();
  EXPECT_TRUE(contains(src, "using x_type = gemm_dtype<2>;"));
  EXPECT_TRUE(contains(src, "using bias_type = gemm_dtype<0>;"));
  EXPECT_TRUE(contains(src, "struct gemm_dtype<2> {"));
  EXPECT_FALSE(contains(src, "struct gemm_dtype<1> {"));  // only the kinds in use
  EXPECT_TRUE(contains(src, "return v / (1.0f + expf(-v));"));
  EXPECT_TRUE(contains(src, "v += bias_type::to_float(t.Bias[p.bias_offset"));
  EXPECT_TRUE(contains(src, "problem_.bias_stride_m = 0;"));
  EXPECT_TRUE(contains(src, "const float* Bias"));
  EXPECT_TRUE(contains(src, "= y_type::from_float(v);"));
}

TEST(GemmRender, AlphaBetaResidualAndBiasAlongM) {
  gemm_options o;
  o.act = activation::gelu;
  o.alpha = 0.5F;
  o.beta = 2.0F;
  o.bias_along = bias_dim::m;
  o.residual = true;
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(o),
                                        {buffer("x", layout::row_major(dtype::f16, {M, 64})),
                                         buffer("w", layout::row_major(dtype::f16, {64, 48})),
                                         buffer("b", layout::row_major(dtype::f32, {M})),
                                         buffer("r", layout::row_major(dtype::bf16, {M, 48}))},
                                        layout::row_major(dtype::f32, {M, 48}));
  const auto src = t.generate(gemm_config{}, {{"M", 7}}).source();
  EXPECT_TRUE(contains(src, "float v = 0.5f * acc;"));
  EXPECT_TRUE(contains(src, "v += 2.0f * bias_type::to_float("));
  EXPECT_TRUE(contains(src, "problem_.bias_stride_m = 1;"));
  EXPECT_TRUE(contains(src, "problem_.bias_stride_n = 0;"));
  EXPECT_TRUE(contains(src, "v += residual_type::to_float(t.Residual["));
  EXPECT_TRUE(contains(src, "Y = gelu(0.5f * X @ W + 2.0f * Bias) + Residual"));
  EXPECT_TRUE(contains(src, "int rocm_gemm(const uint16_t* X, const uint16_t* W, const float* Bias, const uint16_t* Residual, "
                            "float* Y, int64_t u_M"));
  const auto ref = t.generate_reference({{"M", 7}}).source();
  EXPECT_TRUE(contains(ref, "double d = 0.5 * acc;"));
  EXPECT_TRUE(contains(ref, "d += 2.0 * static_cast<double>("));
  EXPECT_TRUE(contains(ref, "r += rocmtpl_dev::bf16_bits_to_float(Residual["));

  // Residual without a bias: three inputs, the third is the residual.
  gemm_options r;
  r.residual = true;
  rocmtpl::rocm_template<gemm_policy> t2(gemm_policy(r),
                                         {buffer("x", layout::row_major(dtype::f32, {M, 8})),
                                          buffer("w", layout::row_major(dtype::f32, {8, 4})),
                                          buffer("r", layout::row_major(dtype::f32, {M, 4}))},
                                         layout::row_major(dtype::f32, {M, 4}));
  const auto src2 = t2.generate(gemm_config{}, {{"M", 2}}).source();
  EXPECT_TRUE(contains(src2, "const float* Residual, float* Y"));
  EXPECT_FALSE(contains(src2, "Bias"));
}

TEST(GemmRender, AddmmOrderThroughInputReorder) {
  std::vector<buffer> in{buffer("x", layout::row_major(dtype::f16, {M, 32})),
                         buffer("w", layout::row_major(dtype::f16, {32, 16})),
                         buffer("b", layout::row_major(dtype::f16, {16}))};
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(), in, layout::row_major(dtype::f16, {M, 16}),
                                        std::vector<int>{2, 0, 1});
  auto caller = t.generate(mma(64, 64, 32, 32, 32, 3), {{"M", 4}});
  EXPECT_TRUE(contains(caller.source(), "int rocm_gemm(const uint16_t* Bias, const uint16_t* X, const uint16_t* W, uint16_t* Y"));
  EXPECT_EQ(caller.bmreq().input_tensor_meta.front().name, "b");
}

TEST(GemmRender, MatrixCorePathForBothVendorsInOneSource) {
  auto t = square(dtype::f16, 1024, 512, 256);
  const auto src = t.generate(mma(128, 128, 32, 64, 64, 4)).source();
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
  EXPECT_TRUE(contains(src, "if (!fast) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_TRUE(contains(src, "gemm_launch<8, 8>("));
  EXPECT_FALSE(contains(src, "gemm_launch<1, 1>("));
  // Column-major W (nn.Linear weight): K-major tile of W.
  rocmtpl::rocm_template<gemm_policy> lin(gemm_policy(),
                                          {buffer("x", layout::row_major(dtype::bf16, {M, 256})),
                                           buffer("w", layout::col_major(dtype::bf16, {256, 128}))},
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
  rocmtpl::rocm_template<gemm_policy> mixed(gemm_policy(),
                                            {buffer("x", layout::row_major(dtype::f16, {8, 8})),
                                             buffer("w", layout::row_major(dtype::bf16, {8, 8}))},
                                            layout::row_major(dtype::f32, {8, 8}));
  for (const auto& c : mixed.policy().configs(mixed.context(), {})) EXPECT_EQ(c.math, gemm_math::simt);
}

TEST(GemmRender, SymbolicAlignmentIsCheckedAtRunTimeWithAFallback) {
  auto t = square(dtype::f16, M, N, K);
  const auto src = t.generate(mma(128, 128, 32, 64, 64, 4), {{"M", 64}, {"N", 64}, {"K", 64}}).source();
  EXPECT_TRUE(contains(src, "const bool fast = gemm_aligned(X, 8, p.x_offset, p.x_stride_m, p.x_stride_b) && "
                            "gemm_aligned(W, 8, p.w_offset, p.w_stride_k, p.w_stride_b);"));
  EXPECT_TRUE(contains(src, "fast ? gemm_launch<8, 8>("));
  EXPECT_TRUE(contains(src, ": gemm_launch<1, 1>("));
  // Static K = 700 (a multiple of 4, not 8): the vector width drops to 4 at render time.
  auto t2 = square(dtype::f16, 64, 64, 700);
  const auto src2 = t2.generate(mma(64, 64, 32, 32, 32, 3)).source();
  EXPECT_TRUE(contains(src2, "gemm_launch<4, 8>("));
  // Odd K: X cannot take vectors; W (N contiguous, N = 64) still can.
  auto t3 = square(dtype::f16, 64, 64, 33);
  EXPECT_TRUE(contains(t3.generate(mma(64, 64, 32, 32, 32, 3)).source(), "gemm_launch<1, 8>("));
}

TEST(GemmRender, BatchedOperandsAndBroadcastWeights) {
  const auto b = sym_expr::symbol("B");
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(),
                                        {buffer("x", layout::row_major(dtype::f16, {b, M, 64})),
                                         buffer("w", layout::row_major(dtype::f16, {64, 32}))},
                                        layout::row_major(dtype::f16, {b, M, 32}));
  const auto src = t.generate(mma(64, 64, 32, 32, 32, 3), {{"B", 3}, {"M", 5}}).source();
  EXPECT_TRUE(contains(src, "problem_.batch = u_B;"));
  EXPECT_TRUE(contains(src, "problem_.x_stride_b = 64*u_M;"));
  EXPECT_TRUE(contains(src, "problem_.w_stride_b = 0;"));
  EXPECT_TRUE(contains(src, "problem_.y_stride_b = 32*u_M;"));
  EXPECT_TRUE(contains(src, "static_cast<unsigned>(p.batch)"));
  // Batch sizes that disagree are named.
  try {
    rocmtpl::rocm_template<gemm_policy> bad(gemm_policy(),
                                            {buffer("x", layout::row_major(dtype::f16, {2, 4, 8})),
                                             buffer("w", layout::row_major(dtype::f16, {3, 8, 4}))},
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
  auto c = mma(64, 64, 32, 32, 32, 3);
  c.split_k = 4;
  const auto caller = t.generate(c, {{"M", 64}});
  const auto& src = caller.source();
  EXPECT_TRUE(contains(src, "int64_t u_M, int32_t split_k, size_t* workspace_size"));
  EXPECT_TRUE(contains(src, "if (split_k < 1 || split_k > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_TRUE(contains(src, "*workspace_size = partial_bytes;"));
  EXPECT_TRUE(contains(src, "gemm_split_k_reduce<<<"));
  EXPECT_TRUE(contains(src, "return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;"));
  // The runtime value travels in the benchmark request after the size arguments.
  EXPECT_EQ(caller.bmreq().size_arg_count, 1U);
  ASSERT_EQ(caller.bmreq().extra_args.size(), 2U);
  EXPECT_EQ(caller.bmreq().extra_args[1], 4);
  // Split-K without the option is refused; split 1 renders.
  auto plain = square(dtype::f16, M, 64, 4096);
  EXPECT_THROW((void)plain.generate(c, {{"M", 64}}), rocmtpl::invalid_argument_error);
  EXPECT_TRUE(contains(plain.generate(mma(64, 64, 32, 32, 32, 3), {{"M", 64}}).source(), "constexpr int32_t split_k = 1;"));
}

TEST(GemmRender, ProblemErrorsNameTheValues) {
  auto check = [](std::vector<buffer> in, layout out, const std::string& expected, gemm_options o = {}) {
    rocmtpl::rocm_template<gemm_policy> t(gemm_policy(o), std::move(in), std::move(out));
    try {
      (void)t.generate(gemm_config{}, {{"M", 4}});
      ADD_FAILURE() << "no error for " << expected;
    } catch (const rocmtpl::invalid_argument_error& e) {
      EXPECT_TRUE(contains(e.what(), expected)) << e.what();
    }
  };
  check({buffer("x", layout::row_major(dtype::f32, {M, 8})), buffer("w", layout::row_major(dtype::f32, {9, 4}))},
        layout::row_major(dtype::f32, {M, 4}), "K of X (8) differs from K of W (9)");
  check({buffer("x", layout::row_major(dtype::f32, {M, 8, 2})), buffer("w", layout::row_major(dtype::f32, {8, 4}))},
        layout::row_major(dtype::f32, {M, 4}), "x must have rank 2");
  check({buffer("x", layout::row_major(dtype::f32, {M, 8})), buffer("w", layout::row_major(dtype::f32, {8, 4}))},
        layout::row_major(dtype::f32, {M, 5}), "is not [M, 4]");
  check({buffer("x", layout::row_major(dtype::i32, {M, 8})), buffer("w", layout::row_major(dtype::f32, {8, 4}))},
        layout::row_major(dtype::f32, {M, 4}), "x has dtype int32");
  check({buffer("x", layout::row_major(dtype::f32, {M, 8}))}, layout::row_major(dtype::f32, {M, 4}),
        "needs inputs X and W");
  check({buffer("x", layout::row_major(dtype::f32, {M, 8})), buffer("w", layout::row_major(dtype::f32, {8, 4})),
         buffer("b", layout::row_major(dtype::f32, {5}))},
        layout::row_major(dtype::f32, {M, 4}), "does not match N = 4");
  check({buffer("x", layout::row_major(dtype::f32, {M, 8})), buffer("w", layout::row_major(dtype::f32, {8, 4}))},
        layout::row_major(dtype::f32, {M, 4}), "expected X, W, an optional Bias and Residual",
        gemm_options{.residual = true});
}

TEST(GemmRender, ActivationNames) {
  EXPECT_EQ(rocmtpl::templates::parse_activation("gelu"), activation::gelu);
  EXPECT_THROW((void)rocmtpl::templates::parse_activation("tanh"), rocmtpl::invalid_argument_error);
}

TEST(GemmConfigs, PathFollowsTheDtypes) {
  const size_hints h{{"M", 512}, {"N", 512}, {"K", 512}};
  auto f16 = square(dtype::f16, M, N, K);
  for (const auto& c : f16.policy().configs(f16.context(), h)) {
    EXPECT_EQ(c.math, gemm_math::matrix_core);
    EXPECT_EQ(c.vector, 8);
    EXPECT_EQ(c.split_k, 1);
  }
  auto f32 = square(dtype::f32, M, N, K);
  for (const auto& c : f32.policy().configs(f32.context(), h)) {
    EXPECT_EQ(c.math, gemm_math::simt);
    EXPECT_EQ(c.vector, 4);
  }
  // generate_all renders the problem's own list (no matrix-core config on f32).
  EXPECT_EQ(f32.generate_all(h).size(), f32.policy().configs(f32.context(), h).size());
}

TEST(GemmConfigs, VectorWidthFollowsAlignment) {
  // Symbolic K, hinted 700 (divisible by 4): vector 4, so the tuned sizes take the fast path.
  auto t = square(dtype::f16, M, N, K);
  for (const auto& c : t.policy().configs(t.context(), {{"M", 64}, {"N", 64}, {"K", 700}})) EXPECT_EQ(c.vector, 4);
  // Static odd K and N: nothing can be vectorised.
  auto odd = square(dtype::f16, 64, 33, 33);
  for (const auto& c : odd.policy().configs(odd.context(), {})) EXPECT_EQ(c.vector, 1);
}

TEST(GemmConfigs, RankingFollowsTheShape) {
  auto big = square(dtype::f16, M, N, K);
  const auto large = big.policy().configs(big.context(), {{"M", 8192}, {"N", 8192}, {"K", 8192}});
  const auto small = big.policy().configs(big.context(), {{"M", 128}, {"N", 128}, {"K", 4096}});
  ASSERT_FALSE(large.empty());
  ASSERT_FALSE(small.empty());
  EXPECT_GE(large.front().block_m * large.front().block_n, 128 * 128) << large.front().name();
  EXPECT_LE(small.front().block_m * small.front().block_n, 64 * 128) << small.front().name();
  EXPECT_NE(large, small);
  // With runtime split-K, a small output with a long K prefers splitting.
  gemm_options o;
  o.runtime_split_k = true;
  auto split = square(dtype::f16, M, N, K, o);
  const auto ranked = split.policy().configs(split.context(), {{"M", 128}, {"N", 128}, {"K", 16384}});
  EXPECT_GT(ranked.front().split_k, 1) << ranked.front().name();
  const auto no_split = split.policy().configs(split.context(), {{"M", 8192}, {"N", 8192}, {"K", 1024}});
  EXPECT_EQ(no_split.front().split_k, 1) << no_split.front().name();
}

TEST(GemmConfigs, CostModelCountsWavesAndPadding) {
  const auto c = mma(128, 128, 32, 64, 64, 4);
  // A 129-row problem pads to two block rows: more cost than 128 rows.
  EXPECT_GT(gemm_policy::estimate_cost(c, 129 * 132, 128, 1024, 1), gemm_policy::estimate_cost(c, 128 * 132, 128, 1024, 1));
  // Cost grows with K.
  EXPECT_GT(gemm_policy::estimate_cost(c, 4096, 4096, 8192, 1), gemm_policy::estimate_cost(c, 4096, 4096, 4096, 1));
}
}  // namespace

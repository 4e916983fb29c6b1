// SPDX-License-Identifier: MIT
#include <rocmtpl/rocm_template.hpp>

#include <gtest/gtest.h>

#include <set>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::sym_expr;
using rocmtpl::templates::activation;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_policy;

const sym_expr M = sym_expr::symbol("M");

rocmtpl::rocm_template<gemm_policy> make(dtype t = dtype::f32, activation act = activation::none, bool bias = false) {
  std::vector<buffer> in{buffer("x", layout::row_major(t, {M, 96})), buffer("w", layout::row_major(t, {96, 80}))};
  if (bias) in.emplace_back("b", layout::row_major(dtype::f32, {80}));
  return {gemm_policy({act}), in, layout::row_major(t, {M, 80})};
}

TEST(GemmConfig, SearchSpaceIsValidAndUnique) {
  auto configs = gemm_policy().configs();
  EXPECT_GE(configs.size(), 32U);
  std::set<gemm_config> unique(configs.begin(), configs.end());
  EXPECT_EQ(unique.size(), configs.size());
  for (const auto& c : configs) {
    EXPECT_EQ(rocmtpl::templates::validate(c), "") << c.to_string();
    EXPECT_EQ(c.threads() % 64, 0);
    EXPECT_LE(c.shared_bytes(), 48 * 1024);
  }
}

TEST(GemmConfig, TextForms) {
  gemm_config c{128, 64, 8, 8, 4, 1};
  EXPECT_EQ(c.to_string(), "{.block_m = 128, .block_n = 64, .block_k = 8, .thread_m = 8, .thread_n = 4, .group_m = 1}");
  EXPECT_EQ(c.name(), "bm128_bn64_bk8_tm8_tn4_g1");
  EXPECT_EQ(c.threads(), 256);
}

TEST(GemmConfig, InvalidConfigsAreExplained) {
  EXPECT_NE(rocmtpl::templates::validate({64, 64, 16, 3, 4, 1}).find("multiple of thread_m"), std::string::npos);
  EXPECT_NE(rocmtpl::templates::validate({32, 32, 8, 8, 8, 1}).find("multiple of 64"), std::string::npos);
  EXPECT_NE(rocmtpl::templates::validate({128, 128, 8, 2, 2, 1}).find("threads per block"), std::string::npos);
  EXPECT_NE(rocmtpl::templates::validate({128, 128, 64, 4, 4, 1}).find("shared memory"), std::string::npos);
  EXPECT_NE(rocmtpl::templates::validate({64, 64, 0, 4, 4, 1}).find("positive"), std::string::npos);
  auto t = make();
  EXPECT_THROW((void)t.generate({64, 64, 16, 3, 4, 1}, {{"M", 10}}), rocmtpl::invalid_argument_error);
}

TEST(GemmRender, DeterministicAndStaticSizesBakedIn) {
  auto t = make();
  auto a = t.generate(gemm_config{}, {{"M", 100}}).source();
  auto b = t.generate(gemm_config{}, {{"M", 100}}).source();
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("const int64_t k_size = 96;"), std::string::npos);
  EXPECT_NE(a.find("const int64_t m_size = M;"), std::string::npos);
  EXPECT_NE(a.find("if (M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"), std::string::npos);
  EXPECT_NE(a.find("int rocm_gemm(const float* X, const float* W, float* Y, int64_t M, size_t* workspace_size"),
            std::string::npos);
}

TEST(GemmRender, ConfigChangesTheSource) {
  auto t = make();
  EXPECT_NE(t.generate(gemm_config{}, {{"M", 1}}).source(), t.generate({128, 64, 8, 8, 4, 1}, {{"M", 1}}).source());
}

TEST(GemmRender, EpilogueAndDtypes) {
  auto src = make(dtype::bf16, activation::silu, true).generate(gemm_config{}, {{"M", 3}}).source();
  EXPECT_NE(src.find("rocmtpl_dev::bf16_bits_to_float(X["), std::string::npos);
  EXPECT_NE(src.find("rocmtpl_dev::float_to_bf16_bits(apply_activation(v))"), std::string::npos);
  EXPECT_NE(src.find("return v / (1.0f + expf(-v));"), std::string::npos);
  EXPECT_NE(src.find("Bias[bias_offset"), std::string::npos);
  EXPECT_NE(src.find("const float* Bias"), std::string::npos);
}

TEST(GemmRender, AddmmOrderThroughInputReorder) {
  std::vector<buffer> in{buffer("x", layout::row_major(dtype::f16, {M, 32})),
                         buffer("w", layout::row_major(dtype::f16, {32, 16})),
                         buffer("b", layout::row_major(dtype::f16, {16}))};
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(), in, layout::row_major(dtype::f16, {M, 16}),
                                        std::vector<int>{2, 0, 1});
  auto caller = t.generate(gemm_config{}, {{"M", 4}});
  EXPECT_NE(caller.source().find("int rocm_gemm(const uint16_t* Bias, const uint16_t* X, const uint16_t* W, uint16_t* Y"),
            std::string::npos);
  EXPECT_EQ(caller.bmreq().input_tensor_meta.front().name, "b");
}

TEST(GemmRender, ProblemErrorsNameTheValues) {
  auto check = [](std::vector<buffer> in, layout out, const std::string& expected) {
    rocmtpl::rocm_template<gemm_policy> t(gemm_policy(), std::move(in), std::move(out));
    try {
      (void)t.generate(gemm_config{}, {{"M", 4}});
      ADD_FAILURE() << "no error for " << expected;
    } catch (const rocmtpl::invalid_argument_error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
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
}

TEST(GemmRender, ActivationNames) {
  EXPECT_EQ(rocmtpl::templates::parse_activation("gelu"), activation::gelu);
  EXPECT_THROW((void)rocmtpl::templates::parse_activation("tanh"), rocmtpl::invalid_argument_error);
}
}  // namespace

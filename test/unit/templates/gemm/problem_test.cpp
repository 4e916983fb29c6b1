// SPDX-License-Identifier: MIT
// templates/gemm/problem.hpp: the checked problem view (operands as (batch, rows, cols), broadcast
// strides, errors naming the values), copy facts, and the entry point's tensors.
#include <rocmtpl/templates/gemm/problem.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

namespace {
using namespace gemm_test;
namespace td = rocmtpl::templates::detail;

td::gemm_view view_of(const rocmtpl::rocm_template<gemm_policy>& t, const gemm_options& o = {}) {
  return td::make_gemm_view(t.context(), o);
}

TEST(GemmProblem, SizesAndStridesOfEachOperand) {
  const auto b = sym_expr::symbol("B");
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {b, M, 64})), buffer("w", layout::col_major(dtype::f16, {64, 32})),
       buffer("bias", layout::row_major(dtype::f32, {32}))},
      layout::row_major(dtype::f16, {b, M, 32}));
  const auto v = view_of(t);
  EXPECT_EQ(v.batch, b);
  EXPECT_EQ(v.m, M);
  EXPECT_EQ(v.n, sym_expr(32));
  EXPECT_EQ(v.k, sym_expr(64));
  EXPECT_EQ(v.x.stride_b.to_cpp(), "64*u_M");
  EXPECT_EQ(v.w.stride_b, sym_expr(0));  // broadcast over the batch
  EXPECT_EQ(v.w.stride_r, sym_expr(1));  // column-major: K contiguous
  EXPECT_EQ(v.bias.stride_r, sym_expr(0));
  EXPECT_EQ(v.bias.stride_c, sym_expr(1));
  EXPECT_EQ(v.residual.node, nullptr);
  EXPECT_TRUE(v.matrix_core_eligible());

  // Bias along M. The view points into the template's context: keep the template alive.
  const rocmtpl::rocm_template<gemm_policy> along_m(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f32, {M, 8})), buffer("w", layout::row_major(dtype::f32, {8, 4})),
       buffer("bias", layout::row_major(dtype::f32, {M}))},
      layout::row_major(dtype::f32, {M, 4}));
  const auto vm = td::make_gemm_view(along_m.context(), gemm_options{.bias_along = bias_dim::m});
  EXPECT_EQ(vm.bias.stride_r, sym_expr(1));
  EXPECT_EQ(vm.bias.stride_c, sym_expr(0));
  EXPECT_FALSE(vm.matrix_core_eligible());
}

TEST(GemmProblem, CopyFactsOfRowAndColumnMajorOperands) {
  auto t = square(dtype::f16, M, 64, K);
  const auto v = view_of(t);
  const auto fx = td::copy_facts(v.x, false);  // X [M, K] row-major: K contiguous
  EXPECT_TRUE(fx.k_contiguous);
  EXPECT_TRUE(fx.k_major);
  EXPECT_TRUE(fx.fast_copy);
  EXPECT_FALSE(fx.statically_aligned(8).has_value());  // the row stride is K
  EXPECT_TRUE(fx.aligned_with(8, {{"K", 64}}));
  EXPECT_FALSE(fx.aligned_with(8, {{"K", 12}}));
  const auto fw = td::copy_facts(v.w, true);  // W [K, 64] row-major: N contiguous
  EXPECT_FALSE(fw.k_contiguous);
  EXPECT_TRUE(fw.mn_contiguous);
  EXPECT_FALSE(fw.k_major);
  EXPECT_EQ(fw.statically_aligned(8), std::optional<bool>(true));
  EXPECT_EQ(td::size_value(M, {{"M", 5}}, 1024), 5);
  EXPECT_EQ(td::size_value(M, {}, 1024), 1024);
  EXPECT_EQ(td::dtype_kind(dtype::bf16), 2);
}

TEST(GemmProblem, ErrorsNameTheValues) {
  auto check = [](std::vector<buffer> in, layout out, const std::string& expected, gemm_options o = {}) {
    rocmtpl::rocm_template<gemm_policy> t(gemm_policy(o), std::move(in), std::move(out));
    try {
      (void)td::make_gemm_view(t.context(), o);
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
  check({buffer("x", layout::row_major(dtype::f16, {2, 4, 8})), buffer("w", layout::row_major(dtype::f16, {3, 8, 4}))},
        layout::row_major(dtype::f16, {2, 4, 4}), "does not match the batch = 2");
}

TEST(GemmProblem, EntryPointTensorsAndFormula) {
  gemm_options o{.act = activation::gelu, .alpha = 0.5F, .beta = 2.0F, .residual = true};
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy(o),
      {buffer("x", layout::row_major(dtype::f16, {M, 64})), buffer("w", layout::row_major(dtype::f16, {64, 48})),
       buffer("b", layout::row_major(dtype::f32, {48})), buffer("r", layout::row_major(dtype::bf16, {M, 48}))},
      layout::row_major(dtype::f32, {M, 48}));
  const auto v = td::make_gemm_view(t.context(), o);
  EXPECT_EQ(td::gemm_formula(v, o), "Y = gelu(0.5f * X @ W + 2.0f * Bias) + Residual");
  const auto [params, args] = td::gemm_tensor_params(v, true);
  EXPECT_EQ(params,
            "const uint16_t* __restrict__ X, const uint16_t* __restrict__ W, const float* __restrict__ Bias, "
            "const uint16_t* __restrict__ Residual, float* __restrict__ Y");
  EXPECT_EQ(args, "X, W, Bias, Residual, Y");
  EXPECT_EQ(td::gemm_tensor_params(v, false).first.find("__restrict__"), std::string::npos);
  EXPECT_EQ(td::gemm_pointer_init(v, "nullptr"), "{X, W, Bias, Residual, Y, nullptr}");
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const auto signature = td::bind_gemm_tensors(kernel, t.context(), v);
  EXPECT_TRUE(contains(signature,
                       "int rocm_gemm(const uint16_t* X, const uint16_t* W, const float* Bias, "
                       "const uint16_t* Residual, float* Y, int64_t u_M"))
      << signature;
}
}  // namespace

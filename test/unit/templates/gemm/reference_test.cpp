// SPDX-License-Identifier: MIT
// templates/gemm/reference.hpp: the reference kernel has the candidates' entry point and epilogue,
// accumulates in double and reads every operand through its own strides.
#include <rocmtpl/templates/gemm/reference.hpp>

#include "unit/templates/gemm/support.hpp"

#include <gtest/gtest.h>

namespace {
using namespace gemm_test;

TEST(GemmReference, EpilogueInDoubleWithTheCandidatesEntryPoint) {
  auto t = epilogue_problem(true, true);
  const auto ref = t.generate_reference({{"M", 7}}).source();
  EXPECT_TRUE(contains(ref,
                       "// gemm reference: one thread per output, double accumulation; "
                       "Y = gelu(0.5f * X @ W + 2.0f * Bias) + Residual"));
  EXPECT_TRUE(contains(ref, "double d = 0.5 * acc;"));
  EXPECT_TRUE(
      contains(ref, "d += 2.0 * static_cast<double>(static_cast<float>(Bias[(0) + b * (0) + gm * (1) + gn * (0)]));"));
  EXPECT_TRUE(contains(ref, "r += rocmtpl_dev::bf16_bits_to_float(Residual["));
  // Column-major W: K runs with stride 1, N with stride 64.
  EXPECT_TRUE(contains(ref, "rocmtpl_dev::half_bits_to_float(W[(0) + b * (0) + k * (1) + gn * (64)])"));
  EXPECT_TRUE(contains(ref, "Y[(0) + b * (0) + gm * (48) + gn * (1)] = r;"));
  // The same entry point as the candidates, without the runtime split_k.
  EXPECT_TRUE(contains(ref,
                       "int rocm_gemm(const uint16_t* X, const uint16_t* W, const float* Bias, "
                       "const uint16_t* Residual, float* Y, int64_t u_M, size_t* workspace_size"));
  EXPECT_TRUE(contains(ref, "if (workspace_size) { *workspace_size = 0; return ROCMTPL_STATUS_OK; }"));
  EXPECT_TRUE(contains(ref, "if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
}

TEST(GemmReference, DirectRenderBindsTheKernel) {
  auto t = square(dtype::bf16, M, 32, 16);
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const auto src = rocmtpl::templates::detail::render_gemm_reference(kernel, t.context(), {}).str();
  EXPECT_EQ(kernel.args().inputs().size(), 2U);
  EXPECT_TRUE(contains(src, "= rocmtpl_dev::float_to_bf16_bits(r);"));
  EXPECT_TRUE(
      contains(src,
               "if (!rocmtpl_checked_mul(1, u_M, rocmtpl_elements) || !rocmtpl_checked_mul(rocmtpl_elements, 32, "
               "rocmtpl_elements)) {"));
  EXPECT_TRUE(contains(src, "if (rocmtpl_blocks > 2147483647) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_FALSE(contains(src, "Bias"));
}
}  // namespace

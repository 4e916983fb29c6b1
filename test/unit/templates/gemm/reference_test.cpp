// SPDX-License-Identifier: MIT
// templates/gemm/reference.hpp: the reference kernel has the candidates' entry point and epilogue,
// accumulates in double and reads every operand through its own strides.
#include <rocmtpl/templates/gemm/reference.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

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
  EXPECT_TRUE(contains(ref, "const int64_t rocmtpl_workspace_bytes = 0;"));
  EXPECT_TRUE(contains(ref, "*workspace_size = static_cast<size_t>(rocmtpl_workspace_bytes);"));
  // The kernel is extern "C" with an unmangled name (a code object's kernels are found by name):
  // ROCMTPL_KERNEL_SYMBOL(reference) is rocm_gemm_reference through the macro the parts define.
  EXPECT_TRUE(contains(ref, "#define ROCMTPL_KERNEL_SYMBOL(suffix) rocm_gemm_##suffix"));
  EXPECT_TRUE(contains(ref,
                       "extern \"C\" __global__ void __launch_bounds__(256) ROCMTPL_KERNEL_SYMBOL(reference)(const "
                       "uint16_t* X, "
                       "const uint16_t* W, const float* Bias, const uint16_t* Residual, float* Y, int64_t u_M) {"));
  EXPECT_TRUE(contains(ref, "if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
}

TEST(GemmReference, DirectRenderBindsTheKernel) {
  auto t = square(dtype::bf16, M, 32, 16);
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const auto src = rocmtpl::templates::detail::render_gemm_reference(kernel, t.context(), {}).str();
  EXPECT_EQ(kernel.args().inputs().size(), 2U);
  EXPECT_TRUE(contains(src, "= rocmtpl_dev::float_to_bf16_bits(r);"));
  // The launch lines are rendered from the launch description: checked grid, then the launch.
  EXPECT_TRUE(contains(src, "rocmtpl_size_floordiv(rocmtpl_size_add(rocmtpl_size_mul(32, u_M, &rocmtpl_grid_0_ok)"))
      << src;
  EXPECT_TRUE(contains(src, "rocmtpl_grid_0_x > 2147483647"));
  EXPECT_TRUE(contains(
      src, "hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(reference), dim3(static_cast<unsigned>(rocmtpl_grid_0_x)"));
  EXPECT_FALSE(contains(src, "Bias"));
}

// The reference's launch description (issue 9, cold tune): one kernel, one thread per output in
// blocks of 256, the tensors in C ABI order, then the size arguments; no workspace. The autotuner
// launches the reference's code object with it.
TEST(GemmReference, LaunchDescriptionCoversEveryOutput) {
  static_assert(rocmtpl::templates::gemm_policy::capabilities.reference_launch);
  auto t = epilogue_problem(true, true);
  const auto ref = t.generate_reference({{"M", 7}});
  ASSERT_TRUE(ref.launch().has_value());
  const auto& d = *ref.launch();
  ASSERT_EQ(d.variants.size(), 1U);
  ASSERT_EQ(d.variants[0].launches.size(), 1U);
  const auto& l = d.variants[0].launches[0];
  EXPECT_EQ(rocmtpl::device_symbol(d, l), "rocm_gemm_reference");
  EXPECT_EQ(l.block, (std::array<std::int64_t, 3>{256, 1, 1}));
  ASSERT_EQ(l.params.size(), 6U);  // X, W, Bias, Residual, Y, M
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(l.params[i].kind, rocmtpl::launch_param_kind::tensor);
    EXPECT_EQ(l.params[i].index, i);
  }
  EXPECT_EQ(l.params[5].kind, rocmtpl::launch_param_kind::size);
  EXPECT_EQ(l.params[5].name, "u_M");
  for (const std::int64_t m : {1, 7, 1000}) {
    const auto b = rocmtpl::bind(d, {m}, {});
    EXPECT_EQ(b.workspace_bytes, 0);
    const auto grid = rocmtpl::launch_grid(b.variants.at(0).launches.at(0), 0);
    EXPECT_EQ(grid[0], (m * 48 + 255) / 256) << m;  // Y is [M, 48]
    EXPECT_EQ(b.variants[0].launches[0].params[5].value, m);
  }
  EXPECT_EQ(rocmtpl::launch_grid(rocmtpl::bind(d, {0}, {}).variants[0].launches[0], 0)[0], 0) << "nothing to launch";
}
}  // namespace

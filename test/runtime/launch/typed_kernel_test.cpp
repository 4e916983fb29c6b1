// SPDX-License-Identifier: MIT
// runtime/launch/typed_kernel.hpp without a GPU: a split-K GEMM made from buffer types builds with hipcc
// for gfx90a, loads through its exact function type and answers the workspace query through the
// typed wrapper (sizes, then split_k); a launch that needs workspace refuses with
// workspace_required_error before anything runs, and a launch with null tensors is refused by the
// entry point (kernel_status_error). A static problem's query takes no argument.
#include <rocmtpl/runtime/launch/typed_kernel.hpp>

#include <rocmtpl/runtime/bench/utility_kernels.hpp>  // amd_compile_options()

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/runtime.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::gemm_config;
using templates::gemm_policy;

using x_t = static_buffer<"X", row_major_layout<f16_t, dims<sym<"B">, sym<"M">, ext<256>>>>;
using w_t = static_buffer<"W", row_major_layout<f16_t, dims<ext<256>, ext<128>>>>;
using y_t = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"B">, sym<"M">, ext<128>>>>;

TEST(TypedKernel, SplitKGemmAnswersTheWorkspaceQueryThroughTheTypedWrapper) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto gemm = make_template(gemm_policy({.runtime_split_k = true}), inputs<x_t, w_t>{}, outputs<y_t>{},
                                  runtime_args<arg<"split_k", std::int32_t>>{});
  const hints<"B", "M"> sizes{2, 128};
  gemm_config config = gemm.policy().configs(gemm.untyped().context(), sizes.to_map()).front();
  config = config.with_split_k(4);
  const auto kernel = compile(gemm.generate(config, sizes), cache, cc, amd_compile_options({"gfx90a"}));
  static_assert(std::is_same_v<decltype(kernel)::function_type,
                               int(const std::uint16_t*, const std::uint16_t*, std::uint16_t*, std::int64_t,
                                   std::int64_t, std::int32_t, std::size_t*, std::uint8_t*, void*)>);
  EXPECT_EQ(kernel.name(), "rocm_gemm");

  // B = 2, M = 100, split_k: fp32 partials of split_k * B * M * N when split_k is above 1.
  EXPECT_EQ(kernel.workspace_size(2, 100, 4), 4U * 2 * 100 * 128 * sizeof(float));
  EXPECT_EQ(kernel.workspace_size(std::int64_t{2}, std::int64_t{100}, 1), 0U);
  EXPECT_THROW((void)kernel.workspace_size(2, 100, 0), kernel_status_error);
  EXPECT_THROW((void)kernel.workspace_size(-1, 100, 2), kernel_status_error);

  const half_t* x = nullptr;
  const half_t* w = nullptr;
  half_t* y = nullptr;
  try {
    kernel(x, w, y, 2, 100, 4, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const workspace_required_error& e) {
    EXPECT_EQ(e.needed(), 4U * 2 * 100 * 128 * sizeof(float));
    EXPECT_EQ(e.given(), 0U);
  }
  std::vector<std::uint8_t> small(16);
  EXPECT_THROW(kernel(x, w, y, 2, 100, 4, workspace_ref{small.data(), small.size()}, nullptr),
               workspace_required_error);
  // Enough workspace (host memory: the entry point refuses the null tensors before any launch).
  std::vector<std::uint8_t> enough(kernel.workspace_size(2, 100, 4));
  try {
    kernel(x, w, y, 2, 100, 4, workspace_ref{enough.data(), enough.size()}, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const kernel_status_error& e) {
    EXPECT_EQ(e.code(), kernel_status::null_argument);
  }
  // No workspace needed (split_k 1): straight to the entry point, which refuses the null tensors.
  EXPECT_THROW(kernel(x, w, y, 2, 100, 1, nullptr), kernel_status_error);
  // The typed pointer itself returns the status.
  EXPECT_EQ(kernel.entry()(x, w, y, 2, 100, 1, nullptr), kernel_status::null_argument);
}

TEST(TypedKernel, StaticProblemQueryTakesNoArgument) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  using sx = static_buffer<"X", row_major_layout<f32_t, dims<ext<64>, ext<32>>>>;
  using sw = static_buffer<"W", row_major_layout<f32_t, dims<ext<32>, ext<16>>>>;
  using sy = static_buffer<"Y", row_major_layout<f32_t, dims<ext<64>, ext<16>>>>;
  const auto gemm = make_template(gemm_policy{}, inputs<sx, sw>{}, outputs<sy>{});
  const auto caller = gemm.generate(gemm.policy().configs().front());
  const auto kernel = compile(caller, cache, cc, amd_compile_options({"gfx90a"}));
  EXPECT_EQ(kernel.workspace_size(), 0U);
  EXPECT_THROW(kernel(static_cast<const float*>(nullptr), static_cast<const float*>(nullptr),
                      static_cast<float*>(nullptr), nullptr),
               kernel_status_error);
  // A wrong symbol is the loader's typed error.
  EXPECT_THROW((typed_kernel<decltype(gemm)::signature>(kernel.library(), "rocm_gemm_missing")),
               symbol_not_found_error);
}

}  // namespace

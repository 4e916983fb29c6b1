// SPDX-License-Identifier: MIT
// templates/elementwise.hpp: what render() writes and the typed config error (that the header does
// not pull in the GEMM is checked by test/compile/elementwise_without_gemm.cpp).
#include <rocmtpl/templates/elementwise.hpp>

#include <rocmtpl/rocm_template.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::templates::activation;
using rocmtpl::templates::elementwise_config;
using rocmtpl::templates::elementwise_policy;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

rocmtpl::rocm_template<elementwise_policy> bias_gelu(dtype t) {
  const auto m = rocmtpl::sym_expr::symbol("M");
  return {elementwise_policy({activation::gelu}),
          {buffer("x", layout::row_major(t, {m, 64})), buffer("b", layout::row_major(dtype::f32, {64}))},
          layout::row_major(t, {m, 64})};
}

TEST(Elementwise, RendersActivationBiasAndConversions) {
  const auto src = bias_gelu(dtype::bf16).generate(elementwise_config{}, {{"M", 3}}).source();
  EXPECT_TRUE(contains(src, "// elementwise: Y = gelu(X + Bias)"));
  EXPECT_TRUE(contains(src, "constexpr int block_threads = 256;"));
  EXPECT_TRUE(contains(src, "rocmtpl_dev::gelu(v)"));
  EXPECT_TRUE(contains(src, "float v = rocmtpl_dev::bf16_bits_to_float(X[x_offset + gm * x_stride_m"));
  EXPECT_TRUE(contains(src, "v += static_cast<float>(Bias[bias_offset"));
  EXPECT_TRUE(contains(src, "= rocmtpl_dev::float_to_bf16_bits(apply_activation(v));"));
  EXPECT_TRUE(contains(src, "const int64_t bias_stride_m = 0;"));
  EXPECT_TRUE(contains(src, "if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  // Issue 8: the element count M * 64 is checked, not wrapped.
  EXPECT_TRUE(contains(src, "inline bool rocmtpl_checked_mul(int64_t a, int64_t b, int64_t& out)"));
  EXPECT_TRUE(contains(src, "if (!rocmtpl_checked_mul(u_M, 64, rocmtpl_elements)) {"));
  // The launch comes from the launch description: at most 65535 blocks of block_threads.
  EXPECT_TRUE(contains(src,
                       "rocmtpl_launch_min(rocmtpl_size_floordiv(rocmtpl_size_add(rocmtpl_size_mul(64, u_M, "
                       "&rocmtpl_grid_0_ok), 255, &rocmtpl_grid_0_ok), 256, &rocmtpl_grid_0_ok), 65535)"));
  EXPECT_TRUE(
      contains(src, "extern \"C\" __global__ void __launch_bounds__(block_threads) ROCMTPL_KERNEL_SYMBOL(main)("));
  EXPECT_TRUE(contains(src, "hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(main), "));
}

TEST(Elementwise, InvalidConfigIsAConfigError) {
  try {
    (void)bias_gelu(dtype::f32).generate(elementwise_config{100}, {{"M", 3}});
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::config_error& e) {
    EXPECT_EQ(e.config(), "{.block_threads = 100}");
    EXPECT_EQ(e.reason(), "block_threads must be a multiple of 64 from 64 to 1024");
    EXPECT_TRUE(contains(e.what(), "rocmtpl: elementwise: invalid config {.block_threads = 100}")) << e.what();
  }
}
TEST(Elementwise, DescribesItsWorkspaceAsNone) {
  static_assert(rocmtpl::detail::has_workspace<rocmtpl::templates::elementwise_policy>);
  const auto l = rocmtpl::layout::row_major(rocmtpl::dtype::f32, {rocmtpl::sym_expr::symbol("M"), 8});
  rocmtpl::rocm_template<rocmtpl::templates::elementwise_policy> t(rocmtpl::templates::elementwise_policy{},
                                                                   {rocmtpl::buffer("x", l)}, l);
  auto caller = t.generate({}, {{"M", 5}});
  EXPECT_EQ(caller.bmreq().workspace_bytes, rocmtpl::sym_expr(0));
  EXPECT_EQ(*caller.output_node().workspace_bytes(), rocmtpl::sym_expr(0));
}

}  // namespace

// SPDX-License-Identifier: MIT
// Golden tests: rendered sources compared with checked-in files in test/golden/expected/.
// Regenerate after an intended change with ROCMTPL_UPDATE_GOLDEN=1 and review the diff.
#include <rocmtpl/rocm_template.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::sym_expr;
using rocmtpl::templates::activation;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_policy;

void check_golden(const std::string& name, const std::string& actual) {
  const std::filesystem::path file = std::filesystem::path(ROCMTPL_TEST_SOURCE_DIR) / "golden" / "expected" / name;
  if (const char* update = std::getenv("ROCMTPL_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(file, std::ios::binary) << actual;
    GTEST_SKIP() << "regenerated " << file;
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << file << "; run with ROCMTPL_UPDATE_GOLDEN=1";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "rendered source differs from " << file
                                    << "; if intended, regenerate with ROCMTPL_UPDATE_GOLDEN=1";
}

TEST(GemmGolden, StaticF32) {
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy(),
                                        {buffer("x", layout::row_major(dtype::f32, {1000, 700})),
                                         buffer("w", layout::row_major(dtype::f32, {700, 3000}))},
                                        layout::row_major(dtype::f32, {1000, 3000}));
  check_golden("gemm_static_f32.hip", t.generate(gemm_config{128, 128, 8, 8, 8, 8}).source());
}

TEST(GemmGolden, SymbolicF16BiasGeluColMajorW) {
  const auto m = sym_expr::symbol("M");
  const auto k = sym_expr::symbol("K");
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy({activation::gelu, 0.5F}),
                                        {buffer("x", layout::row_major(dtype::f16, {m, k})),
                                         buffer("w", layout::col_major(dtype::f16, {k, 256})),
                                         buffer("bias", layout::row_major(dtype::f16, {256}))},
                                        layout::row_major(dtype::f16, {m, 256}), std::vector<int>{2, 0, 1});
  check_golden("gemm_symbolic_f16_bias_gelu.hip", t.generate(gemm_config{}, {{"M", 64}, {"K", 128}}).source());
}

TEST(GemmGolden, KernelNamePlaceholder) {
  rocmtpl::rocm_template<gemm_policy> t(gemm_policy({activation::relu}),
                                        {buffer("x", layout::row_major(dtype::bf16, {64, 64})),
                                         buffer("w", layout::row_major(dtype::bf16, {64, 64}))},
                                        layout::row_major(dtype::bf16, {64, 64}));
  auto caller = t.generate(gemm_config{});
  check_golden("gemm_placeholder_bf16_relu.hip", caller.output_node().make_kernel_render().render());
}
}  // namespace

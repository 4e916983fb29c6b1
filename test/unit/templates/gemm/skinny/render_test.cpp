// SPDX-License-Identifier: MIT
// templates/gemm/skinny/render.hpp: what both skinny paths share: the skinny view of a problem
// (which dimension is small, the large operand and its vector width), the K slices a tile may take,
// the large and small operands of a shape, the launch description and the translation unit.
#include <rocmtpl/templates/gemm/skinny/render.hpp>

#include <rocmtpl/templates/gemm/paths.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {
using namespace gemm_test;
namespace td = rocmtpl::templates::detail;
using rocmtpl::templates::skinny_mma_path;
using rocmtpl::templates::skinny_path;

TEST(GemmSkinnyRender, ProblemViewNamesTheSmallDimensionAndTheLargeOperand) {
  auto t = square(dtype::f16, M, N, K);
  const auto v = t.policy().view(t.context());
  EXPECT_FALSE(td::make_skinny_problem(v, {{"M", 512}, {"N", 512}, {"K", 512}}).has_value());
  EXPECT_FALSE(td::make_skinny_problem(v, {}).has_value());  // 1024 when missing
  const auto rows = td::make_skinny_problem(v, {{"M", 8}, {"N", 4096}, {"K", 1000}});
  ASSERT_TRUE(rows.has_value());
  EXPECT_TRUE(rows->q_is_m);
  EXPECT_EQ(rows->small, 8);
  EXPECT_EQ(rows->large, &v.w);
  EXPECT_FALSE(rows->facts.k_major);  // row-major W: contiguous along N
  EXPECT_EQ(rows->vec, 8);            // 16 bytes of f16
  EXPECT_EQ(rows->k, 1000);
  const auto cols = td::make_skinny_problem(v, {{"M", 4096}, {"N", 64}, {"K", 1000}});
  ASSERT_TRUE(cols.has_value());
  EXPECT_FALSE(cols->q_is_m);
  EXPECT_EQ(cols->small, 64);
  EXPECT_EQ(cols->large, &v.x);
  EXPECT_TRUE(cols->facts.k_major);  // row-major X: contiguous along K
  EXPECT_EQ(cols->vec, 8);           // K = 1000: a multiple of 8
  EXPECT_FALSE(td::make_skinny_problem(v, {{"M", 4096}, {"N", 65}, {"K", 1000}}).has_value());
  // N = 1001: W's rows are not 16-byte aligned.
  EXPECT_EQ(td::make_skinny_problem(v, {{"M", 8}, {"N", 1001}, {"K", 1000}})->vec, 1);
}

TEST(GemmSkinnyRender, SplitsKeepTwoBlockStepsPerSlice) {
  EXPECT_EQ(td::skinny_splits(8192, 64), (std::vector<int>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(td::skinny_splits(1024, 64), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(td::skinny_splits(100, 64), (std::vector<int>{1}));
}

TEST(GemmSkinnyRender, LargeAndSmallOperandsOfAShape) {
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {M, K})), buffer("w", layout::col_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {M, N}));
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const skinny_config c{.rows = 4, .k_threads = 8, .p_threads = 32};
  const auto plan = td::make_gemm_plan(kernel, t.context(), td::plan_config(c), {}, t.policy().view(t.context()));
  const auto m = td::skinny_large_of(plan, skinny_path::shape(c));
  EXPECT_EQ(m.name, "W");
  EXPECT_FALSE(m.is_x);
  EXPECT_TRUE(m.dot);  // nn.Linear weights: contiguous along K
  EXPECT_FALSE(m.mma);
  auto n_side = c;
  n_side.side = skinny_side::n;
  const auto n = td::skinny_large_of(plan, skinny_path::shape(n_side));
  EXPECT_EQ(n.name, "X");
  EXPECT_TRUE(n.is_x);
  // The matrix-core kernel loads the small operand k_step elements at a time where it is
  // contiguous along K (X for side m).
  const skinny_mma_config mc{.rows = 8, .k_warps = 2, .p_warps = 1, .k_step = 8};
  const auto small = td::skinny_small_of(plan, skinny_mma_path::shape(mc));
  EXPECT_EQ(small.name, "X");
  EXPECT_TRUE(small.is_x);
  EXPECT_EQ(small.vec, 8);
  EXPECT_EQ(td::skinny_small_of(plan, skinny_path::shape(c)).vec, 1);  // the FMA kernels read it element-wise
}

TEST(GemmSkinnyRender, LaunchDescriptionAndTranslationUnit) {
  auto t = square(dtype::f32, M, N, K);
  rocmtpl::rocm_template_kernel kernel("rocm_gemm");
  const skinny_config c{.rows = 2, .k_threads = 8, .p_threads = 32, .vector = 4, .split_k = 3};
  const auto plan = td::make_gemm_plan(kernel, t.context(), td::plan_config(c), {}, t.policy().view(t.context()));
  const auto shape = skinny_path::shape(c);
  const auto d = td::skinny_launch_description(kernel, plan, shape);
  ASSERT_EQ(d.variants.size(), 2U);  // vectors of 4 where N and the pointers allow, else one element
  EXPECT_EQ(d.variants[0].launches.at(0).suffix, "skinny_v4");
  EXPECT_EQ(d.variants[0].launches.at(1).suffix, "split_k_reduce");
  EXPECT_EQ(d.variants[1].launches.at(0).suffix, "skinny_v1");
  EXPECT_EQ(d.workspace_bytes.sizes.evaluate({{"M", 2}, {"N", 10}, {"K", 7}}), 3 * 2 * 10 * 4);
  auto out = kernel.start_source(t.context());
  td::render_skinny(out, kernel, plan, shape, d);
  EXPECT_TRUE(contains(out.device_code, "constexpr int skinny_split = 3;"));
  EXPECT_TRUE(contains(out.device_code, "// Streaming: thread (tk, tp)"));
  EXPECT_FALSE(contains(out.entry_body, "the skinny matrix-core path"));  // the FMA kernels run on AMD too
}
}  // namespace

// SPDX-License-Identifier: MIT
// Golden tests of epilogue fusion (issue 12): a GEMM kernel with a fused chain (matrix cores, f16)
// and a module whose pointwise node is fused into its GEMM. Regenerate after an intended change
// with ROCMTPL_UPDATE_GOLDEN=1 and review the diff.
#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_template.hpp>

#include "support/fusion.hpp"
#include "support/golden.hpp"

#include <gtest/gtest.h>

namespace {
using namespace rocmtpl;
namespace fu = rocmtpl::test::fusion;
using rocmtpl::test::check_golden;

TEST(FusionGolden, GemmMmaF16WithBiasGeluMul) {
  fu::gemm_problem p;
  p.config = fu::mma_config();
  p.n = sym_expr(256);
  p.k = sym_expr(128);
  const auto g = fu::chain_module("unused", p, {fu::bias_gelu_mul()}, dtype::f16);
  rocm_cpp_scheduling sched;
  const auto r = sched.codegen_template(g.nodes()[0], {g.nodes()[1]});
  ASSERT_EQ(sched.kernels().size(), 1U);
  check_golden("gemm_fused_mma_f16_bias_gelu_mul.hip", sched.kernels()[0].source);
}

TEST(FusionGolden, ModuleF16SplitKWithFusedChain) {
  fu::gemm_problem p;
  std::tie(p.config, p.options) = fu::simt_config(2);
  const auto m = fu::emit_chain_module("fused_mlp", p, {fu::bias_gelu_mul()}, dtype::f16, true, true);
  ASSERT_EQ(m.calls.size(), 1U);
  check_golden("module_fused_bias_gelu_mul_f16.hip", m.source);
}

}  // namespace

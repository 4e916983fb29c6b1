// SPDX-License-Identifier: MIT
// templates/gemm/policy.hpp: gemm_policy declares its capabilities, models kernel_template, and
// forwards to its parts (search spaces, cost model, renderers, view).
#include <rocmtpl/templates/gemm/policy.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {
using namespace gemm_test;

static_assert(rocmtpl::kernel_template<gemm_policy>);
static_assert(gemm_policy::capabilities == rocmtpl::kernel_capabilities{.reference = true,
                                                                        .runtime_args = true,
                                                                        .problem_configs = true,
                                                                        .workspace = true,
                                                                        .launch = true,
                                                                        .reference_launch = true,
                                                                        .epilogue = true,
                                                                        .typed_signature = true});
static_assert(rocmtpl::detail::has_typed_signature<gemm_policy>);
static_assert(rocmtpl::detail::has_reference_launch<gemm_policy>);
static_assert(rocmtpl::detail::has_epilogue<gemm_policy>);
static_assert(rocmtpl::detail::has_workspace<gemm_policy>);
static_assert(rocmtpl::detail::has_launch<gemm_policy>);
static_assert(rocmtpl::detail::has_reference<gemm_policy>);
static_assert(rocmtpl::detail::has_runtime_args<gemm_policy>);
static_assert(rocmtpl::detail::has_problem_configs<gemm_policy>);

TEST(GemmPolicy, ConfigsHoldBothPathsSimtFirst) {
  auto configs = gemm_policy().configs();
  const auto simt = rocmtpl::templates::simt_path::search_space();
  const auto cores = rocmtpl::templates::mma_path::search_space();
  ASSERT_EQ(configs.size(), simt.size() + cores.size());
  const std::set<gemm_config> unique(configs.begin(), configs.end());
  EXPECT_EQ(unique.size(), configs.size());
  // The first configuration renders for any dtype (callers take configs().front()).
  EXPECT_EQ(configs.front(), gemm_config(simt.front()));
  EXPECT_EQ(configs[simt.size()], gemm_config(cores.front()));
}

TEST(GemmPolicy, ProblemConfigsAreWhatGenerateAllRenders) {
  const size_hints h{{"M", 512}, {"N", 512}, {"K", 512}};
  auto f32 = square(dtype::f32, M, N, K);
  const auto configs = f32.policy().configs(f32.context(), h);
  ASSERT_FALSE(configs.empty());
  for (const auto& c : configs) EXPECT_TRUE(c.holds<simt_config>()) << c.name();
  EXPECT_EQ(f32.generate_all(h).size(), configs.size());
  EXPECT_EQ(gemm_policy::estimate_cost(configs.front(), 512, 512, 512, 1),
            rocmtpl::templates::gemm_estimate_cost(configs.front(), 512, 512, 512, 1));
}

TEST(GemmPolicy, RuntimeSplitKIsTheOnlyRuntimeArgument) {
  EXPECT_TRUE(gemm_policy().runtime_arg_info().empty());
  const auto c = mma(64, 64, 32, 32, 32, 3).with_split_k(4);
  EXPECT_TRUE(gemm_policy().runtime_arg_values(c).empty());
  gemm_policy split(gemm_options{.runtime_split_k = true});
  ASSERT_EQ(split.runtime_arg_info().size(), 1U);
  EXPECT_EQ(split.runtime_arg_info()[0].name, "split_k");
  EXPECT_EQ(split.runtime_arg_values(c), (std::vector<rocmtpl::runtime_arg_value>{4}));
}

TEST(GemmPolicy, ReferenceIsGeneratedThroughTheDeclaredCapability) {
  auto t = make(dtype::f16, activation::relu, true);
  static_assert(rocmtpl::rocm_template<gemm_policy>::has_reference());
  const auto ref = t.generate_reference({{"M", 4}});
  // Its kernel is spelt through the symbol macro; the description names it rocm_gemm_reference.
  EXPECT_TRUE(contains(ref.source(), "ROCMTPL_KERNEL_SYMBOL(reference)(")) << ref.source();
  EXPECT_TRUE(contains(ref.source(), "#define ROCMTPL_KERNEL_SYMBOL(suffix) rocm_gemm_##suffix"));
  ASSERT_TRUE(ref.launch().has_value()) << "described, so it compiles device-only";
  EXPECT_EQ(rocmtpl::device_symbol(*ref.launch(), ref.launch()->variants.front().launches.front()),
            "rocm_gemm_reference");
  EXPECT_TRUE(contains(ref.source(), "return v > 0.0f ? v : 0.0f;"));
}

TEST(GemmPolicy, RenderRefusesInvalidConfigsWithAConfigError) {
  auto t = make();
  EXPECT_THROW((void)t.generate(simt_config{64, 64, 16, 12, 4, 1}, {{"M", 10}}), rocmtpl::config_error);
  EXPECT_EQ(t.policy().view(t.context()).k, sym_expr(96));
}

// Issue 22 item 5: alpha and beta are rendered as float literals; NaN and infinities are refused
// when the policy is made, naming the field, instead of rendering `nanf` for hipcc to reject.
TEST(GemmPolicy, RefusesNonFiniteAlphaAndBetaWhenMade) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<gemm_options, std::string>> bad{{{.alpha = nan}, "alpha=nan"},
                                                              {{.alpha = inf}, "alpha=inf"},
                                                              {{.alpha = -inf}, "alpha=-inf"},
                                                              {{.beta = nan}, "beta=nan"},
                                                              {{.beta = inf}, "beta=inf"}};
  for (const auto& [o, config] : bad) {
    try {
      (void)gemm_policy(o);
      ADD_FAILURE() << config << " was accepted";
    } catch (const rocmtpl::config_error& e) {
      EXPECT_EQ(e.config(), config);
      const std::string field = config.substr(0, config.find('='));
      EXPECT_EQ(e.reason(), field + " must be a finite number (it is rendered into the kernel as a literal)");
      EXPECT_TRUE(contains(e.what(), "rocmtpl: gemm: invalid config " + config + ": ")) << e.what();
    }
  }
  // Through the problem descriptor (rocmtpl-tune's path) too.
  EXPECT_THROW((void)rocmtpl::templates::make_template({.m = 8, .n = 8, .k = 8, .alpha = nan}), rocmtpl::config_error);
  // The largest finite values render as literals that read back.
  const float big = std::numeric_limits<float>::max();
  auto t = square(dtype::f32, 8, 8, 8, {.alpha = big, .beta = -big});
  EXPECT_TRUE(contains(t.generate(t.policy().configs().front(), {}).source(), "3.40282347e+38f * acc"));
}

// The workspace known at code generation is split-K's fp32 partials, as the entry point's query
// computes them (test/runtime/caller_runtime_test.cpp compares the two on compiled libraries).
TEST(GemmPolicy, WorkspaceIsTheSplitKPartials) {
  const auto b = sym_expr::symbol("B");
  gemm_options o{.runtime_split_k = true};
  rocmtpl::rocm_template<gemm_policy> batched(
      gemm_policy(o),
      {buffer("x", layout::row_major(dtype::f16, {b, M, K})), buffer("w", layout::row_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {b, M, N}));
  auto c = mma(64, 64, 32, 32, 32, 3).with_split_k(4);
  const auto& p = batched.policy();
  EXPECT_EQ(p.workspace_bytes(batched.context(), c), sym_expr(16) * b * M * N);
  EXPECT_EQ(p.workspace_bytes(batched.context(), c.with_split_k(1)), sym_expr(0));
  // Without runtime split-K the mma entry point never splits; a SIMT configuration splits statically.
  auto plain = square(dtype::f16, M, N, K);
  EXPECT_EQ(plain.policy().workspace_bytes(plain.context(), c), sym_expr(0));
  const simt_config simt{.block_m = 64, .block_n = 64, .block_k = 16, .thread_m = 8, .thread_n = 8, .split_k = 4};
  auto f32 = square(dtype::f32, M, N, K);
  EXPECT_EQ(f32.policy().workspace_bytes(f32.context(), simt), sym_expr(16) * M * N);
  // The wgmma path splits K through the same fp32 partials (issue 10).
  const auto h = hopper(128, 128, 4).with_split_k(4);
  auto hopper_split = square(dtype::f16, M, N, K, o);
  EXPECT_EQ(hopper_split.policy().workspace_bytes(hopper_split.context(), h), sym_expr(16) * M * N);
  // Without runtime split-K its K slices are static, through the same partials (issue 25).
  EXPECT_EQ(plain.policy().workspace_bytes(plain.context(), h), sym_expr(16) * M * N);
  // generate() puts it into the request; output_node() evaluates it at the hints.
  c = c.with_split_k(3);
  auto caller = batched.generate(c, {{"B", 2}, {"M", 100}, {"N", 64}, {"K", 256}});
  EXPECT_EQ(caller.bmreq().workspace_bytes, sym_expr(12) * b * M * N);
  EXPECT_EQ(caller.output_node().get_workspace_size(), 3U * 2 * 100 * 64 * sizeof(float));
}
}  // namespace

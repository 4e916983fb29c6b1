// SPDX-License-Identifier: MIT
// templates/gemm/descriptor.hpp and the two functions of gemm/policy.hpp that use it: gemm_problem
// is a problem_descriptor; make_template() and describe_problem() are inverses over the problems
// `rocmtpl-tune gemm` tunes, and describe_problem() refuses every template that make_template()
// would not give back.
#include <rocmtpl/templates/gemm/descriptor.hpp>
#include <rocmtpl/templates/gemm/policy.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
using namespace gemm_test;
using rocmtpl::templates::describe_problem;
using rocmtpl::templates::gemm_problem;

static_assert(rocmtpl::problem_descriptor<gemm_problem>);

// Every layout, activation, bias, batch and symbolic set of a few shapes.
std::vector<gemm_problem> problems() {
  std::vector<gemm_problem> out;
  const std::vector<std::vector<std::string>> symbol_sets{{}, {"M"}, {"K", "M", "N"}, {"B", "M"}};
  for (const char* layout : {"rr", "rc", "cr", "cc"}) {
    for (auto act : rocmtpl::templates::all_activations) {
      for (const auto& symbolic : symbol_sets) {
        for (bool bias : {false, true}) {
          const bool batched = std::find(symbolic.begin(), symbolic.end(), "B") != symbolic.end();
          out.push_back(gemm_problem{.m = 40,
                                     .n = 24,
                                     .k = 16,
                                     .batch = batched ? 3 : (bias ? 2 : 1),
                                     .type = bias ? dtype::f16 : dtype::f32,
                                     .layout = layout,
                                     .act = act,
                                     .alpha = bias ? 0.5F : 1.0F,
                                     .bias = bias,
                                     .symbolic = symbolic});
        }
      }
    }
  }
  return out;
}

TEST(GemmDescriptor, DescribeProblemInvertsMakeTemplate) {
  const auto all = problems();
  ASSERT_EQ(all.size(), 4U * rocmtpl::templates::all_activations.size() * 4U * 2U);
  for (const auto& p : all) {
    const auto t = make_template(p);
    const auto d = describe_problem(t, p.hints());
    ASSERT_TRUE(d.has_value()) << p.layout << " " << rocmtpl::templates::to_string(p.act);
    EXPECT_EQ(*d, p);
    // The same problem renders the same source.
    const auto config = t.policy().configs().front();
    EXPECT_EQ(make_template(*d).generate(config, d->hints()).bmreq().source_hash(),
              t.generate(config, p.hints()).bmreq().source_hash());
  }
}

TEST(GemmDescriptor, HintsHoldOnlyTheSymbolicSizes) {
  const gemm_problem p{.m = 40, .n = 24, .k = 16, .batch = 3, .symbolic = {"B", "N"}};
  EXPECT_EQ(p.hints(), (size_hints{{"B", 3}, {"N", 24}}));
  EXPECT_TRUE(p.batched());
  EXPECT_FALSE(gemm_problem{.batch = 1}.batched());
}

TEST(GemmDescriptor, VisitsEveryFieldInOrder) {
  std::vector<std::string> names;
  const gemm_problem p;
  gemm_problem::visit_fields(p, [&](std::string_view name, const auto&) { names.emplace_back(name); });
  EXPECT_EQ(names, (std::vector<std::string>{"m", "n", "k", "batch", "dtype", "layout", "activation", "alpha", "bias",
                                             "symbolic"}));
}

TEST(GemmDescriptor, TemplatesNoProblemDescribesAreRefused) {
  const auto m = sym_expr::symbol("M");
  auto plain = [&](gemm_options o) {
    return rocmtpl::rocm_template<gemm_policy>(
        gemm_policy(o),
        {buffer("x", layout::row_major(dtype::f32, {m, 16})), buffer("w", layout::row_major(dtype::f32, {16, 24}))},
        layout::row_major(dtype::f32, {m, 24}));
  };
  EXPECT_TRUE(describe_problem(plain({}), {{"M", 40}}).has_value());
  // No hint for a symbolic size, a symbol not named by its role, options beyond act and alpha.
  EXPECT_FALSE(describe_problem(plain({}), {}).has_value());
  EXPECT_FALSE(describe_problem(square(dtype::f32, sym_expr::symbol("R"), 24, 16), {{"R", 40}}).has_value());
  EXPECT_FALSE(describe_problem(plain({.beta = 2.0F}), {{"M", 40}}).has_value());
  EXPECT_FALSE(describe_problem(plain({.residual = false, .runtime_split_k = true}), {{"M", 40}}).has_value());
  // Buffers named otherwise (support/gemm.hpp's square() names them x and w too: its bias is "b").
  EXPECT_FALSE(describe_problem(make(dtype::f32, activation::none, true), {{"M", 40}}).has_value());
  // Four inputs (a residual) of mixed dtypes, and a strided (not contiguous) operand.
  EXPECT_FALSE(describe_problem(epilogue_problem(false), {{"M", 40}}).has_value());
  EXPECT_FALSE(
      describe_problem(rocmtpl::rocm_template<gemm_policy>(gemm_policy(),
                                                           {buffer("x", layout(dtype::f32, {40, 16}, {32, 1})),
                                                            buffer("w", layout::row_major(dtype::f32, {16, 24}))},
                                                           layout::row_major(dtype::f32, {40, 24})),
                       {})
          .has_value());
}

TEST(GemmDescriptor, MakeTemplateRefusesABadLayout) {
  for (const char* bad : {"rx", "r", "rrr"}) {
    const gemm_problem p{.m = 4, .n = 4, .k = 4, .layout = bad};
    EXPECT_THROW((void)make_template(p), rocmtpl::invalid_argument_error) << bad;
  }
}

}  // namespace

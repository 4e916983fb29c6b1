// SPDX-License-Identifier: MIT
// rocmtpl/codegen/template_context.hpp: what a policy renders with.
#include <rocmtpl/codegen/template_context.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;

const layout l = layout::row_major(dtype::f16, {sym_expr::symbol("M"), 8});

TEST(TemplateContext, KeepsWhatItWasGiven) {
  const template_context ctx({buffer("a", l), buffer("b", l)}, buffer("c", l), std::vector<int>{1, 0}, "#include x\n",
                             "globals\n");
  ASSERT_EQ(ctx.input_nodes().size(), 2u);
  EXPECT_EQ(ctx.input_nodes()[1].name(), "b");
  EXPECT_EQ(ctx.output_node().name(), "c");
  ASSERT_TRUE(ctx.input_reorder());
  EXPECT_EQ(*ctx.input_reorder(), (std::vector<int>{1, 0}));
  EXPECT_EQ(ctx.header(), "#include x\n");
  EXPECT_EQ(ctx.globals(), "globals\n");
}

TEST(TemplateContext, AnAbsentOptionalInputIsNull) {
  const template_context ctx({buffer("a", l)}, buffer("c", l), std::nullopt, "", "");
  ASSERT_NE(ctx.input(0), nullptr);
  EXPECT_EQ(ctx.input(0)->name(), "a");
  EXPECT_EQ(ctx.input(1), nullptr);
  EXPECT_EQ(ctx.input(100), nullptr);
  EXPECT_FALSE(ctx.input_reorder());
}

}  // namespace

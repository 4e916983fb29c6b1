// SPDX-License-Identifier: MIT
// rocmtpl/ir/buffer.hpp: a named tensor; copies share the layout; static_buffer gives the same value.
#include <rocmtpl/ir/buffer.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
using namespace rocmtpl;

const sym_expr M = sym_expr::symbol("M");

TEST(Buffer, NameAndLayout) {
  const buffer x("x", layout::row_major(dtype::bf16, {M, 4}));
  EXPECT_EQ(x.name(), "x");
  EXPECT_EQ(x.type(), dtype::bf16);
  EXPECT_EQ(x.sizes(), (std::vector<sym_expr>{M, 4}));
  EXPECT_EQ(x.strides(), (std::vector<sym_expr>{4, 1}));
  EXPECT_EQ(x.get_layout(), layout::row_major(dtype::bf16, {M, 4}));
}

TEST(Buffer, NameMustBeACIdentifier) {
  const auto l = layout::row_major(dtype::f32, {2});
  for (const char* bad : {"", "1x", "x-y", "a b", "x.y"}) {
    EXPECT_THROW(buffer(bad, l), invalid_argument_error) << bad;
  }
  EXPECT_NO_THROW(buffer("_x1", l));
}

TEST(Buffer, EqualWhenNameAndLayoutAreEqual) {
  const buffer a("a", layout::row_major(dtype::f32, {M, 4}));
  const buffer copy = a;  // shares the layout
  EXPECT_EQ(&copy.get_layout(), &a.get_layout());
  EXPECT_EQ(a, copy);
  EXPECT_EQ(a, buffer("a", layout::row_major(dtype::f32, {M, 4})));  // equal layouts, not shared
  EXPECT_FALSE(a == buffer("b", layout::row_major(dtype::f32, {M, 4})));
  EXPECT_FALSE(a == buffer("a", layout::row_major(dtype::f16, {M, 4})));
  EXPECT_FALSE(a == buffer("a", layout::col_major(dtype::f32, {M, 4})));
}

TEST(StaticBuffer, ToValueIsTheRuntimeBuffer) {
  using x_t = static_buffer<"x", row_major_layout<f16_t, dims<sym<"M">, ext<8>>>>;
  static_assert(x_t::name == "x");
  const buffer x = x_t::to_value();
  EXPECT_EQ(x, buffer("x", layout::row_major(dtype::f16, {M, 8})));
}

}  // namespace

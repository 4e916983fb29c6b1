// SPDX-License-Identifier: MIT
// rocmtpl/ir/fixed_string.hpp: string literals as template arguments, and the C identifier rule.
#include <rocmtpl/ir/fixed_string.hpp>

#include <gtest/gtest.h>

#include <string_view>

namespace {
using rocmtpl::fixed_string;
using rocmtpl::is_identifier;

template <fixed_string Name>
struct named {
  static constexpr std::string_view value = Name;
};

static_assert(fixed_string("abc").size() == 3);
static_assert(fixed_string("").size() == 0);
static_assert(fixed_string("abc").view() == "abc");
static_assert(fixed_string("abc") == fixed_string("abc"));
static_assert(!(fixed_string("abc") == fixed_string("abd")));
static_assert(!(fixed_string("ab") == fixed_string("abc")));  // different lengths compare
static_assert(named<"M">::value == "M");

TEST(FixedString, IsAStringView) {
  constexpr fixed_string s("rows");
  const std::string_view v = s;
  EXPECT_EQ(v, "rows");
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(named<"block_m">::value, "block_m");
}

TEST(IsIdentifier, FollowsTheCRule) {
  static_assert(is_identifier("M"));
  for (const char* ok : {"x", "_x", "x1", "X_y_Z", "_", "rocmtpl_t0"}) EXPECT_TRUE(is_identifier(ok)) << ok;
  for (const char* bad : {"", "1x", "x-y", "x y", "x.y", "é", "x$"}) EXPECT_FALSE(is_identifier(bad)) << bad;
}

}  // namespace

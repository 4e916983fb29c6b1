// SPDX-License-Identifier: MIT
// rocmtpl/detail/strings.hpp: the one join of the library.
#include <rocmtpl/detail/strings.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
using rocmtpl::detail::join;

TEST(Join, PutsTheSeparatorBetweenParts) {
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({"a", "b"}, " | "), "a | b");
  EXPECT_EQ(join({"only"}), "only");
  EXPECT_EQ(join({}), "");
}

TEST(Join, KeepsEmptyParts) {
  // Every part is one field: an empty first part still gets its separator.
  EXPECT_EQ(join({"", "b"}), ", b");
  EXPECT_EQ(join({"a", "", "c"}, "-"), "a--c");
  EXPECT_EQ(join({"", ""}, ","), ",");
}

}  // namespace

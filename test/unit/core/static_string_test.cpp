// SPDX-License-Identifier: MIT
// core/static_string.hpp: a fixed-capacity string usable in constant evaluation (constexpr
// configuration names): appends text and decimals as std::to_string writes them, and refuses to
// overflow its capacity.
#include <rocmtpl/core/static_string.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace {
using rocmtpl::static_string;

constexpr auto name_of(std::int64_t a, std::int64_t b) {
  static_string<32> s("bm");
  s.append_decimal(a);
  s += "_bn";
  s.append_decimal(b);
  return s;
}
static_assert(name_of(128, 64).view() == "bm128_bn64");
static_assert(name_of(0, -7).view() == "bm0_bn-7");
static_assert(static_string<4>("abcd").size() == 4 && static_string<4>::capacity() == 4);

TEST(StaticString, DecimalsAreWhatToStringWrites) {
  for (const std::int64_t v : {std::int64_t{0}, std::int64_t{9}, std::int64_t{10}, std::int64_t{-1},
                               std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    static_string<24> s;
    s.append_decimal(v);
    EXPECT_EQ(s.str(), std::to_string(v));
  }
}

TEST(StaticString, RefusesToExceedItsCapacity) {
  static_string<3> s("ab");
  s += 'c';
  EXPECT_EQ(s.view(), "abc");
  EXPECT_THROW(s += 'd', std::length_error);
  EXPECT_EQ(s.view(), "abc");
}
}  // namespace

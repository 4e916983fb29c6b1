// SPDX-License-Identifier: MIT
// core/config.hpp: ROCMTPL_INLINE is `inline` in a header-only build and empty where the
// implementation is compiled once (ROCMTPL_COMPILED_LIBRARY, which the compiled targets give).
#include <rocmtpl/core/config.hpp>

#include <gtest/gtest.h>

#include <string_view>

#define ROCMTPL_TEST_TEXT(x) ROCMTPL_TEST_TEXT_(x)
#define ROCMTPL_TEST_TEXT_(x) #x

namespace {

TEST(Config, InlineMatchesTheBuildMode) {
#ifdef ROCMTPL_COMPILED_LIBRARY
  EXPECT_EQ(std::string_view(ROCMTPL_TEST_TEXT(ROCMTPL_INLINE)), "");
#else
  EXPECT_EQ(std::string_view(ROCMTPL_TEST_TEXT(ROCMTPL_INLINE)), "inline");
#endif
}

}  // namespace

// SPDX-License-Identifier: MIT
// rocmtpl/core/version.hpp: the three macros and version_string agree (CMake reads the macros).
#include <rocmtpl/core/version.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

static_assert(ROCMTPL_VERSION_MAJOR >= 0 && ROCMTPL_VERSION_MINOR >= 0 && ROCMTPL_VERSION_PATCH >= 0);

TEST(Version, StringMatchesTheMacros) {
  const std::string expected = std::to_string(ROCMTPL_VERSION_MAJOR) + "." + std::to_string(ROCMTPL_VERSION_MINOR) +
                               "." + std::to_string(ROCMTPL_VERSION_PATCH);
  EXPECT_EQ(std::string(rocmtpl::version_string), expected);
}

}  // namespace

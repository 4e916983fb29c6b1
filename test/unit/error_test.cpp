// SPDX-License-Identifier: MIT
// rocmtpl/error.hpp: the users' include for the exception hierarchy (defined in core/error.hpp).
#include <rocmtpl/error.hpp>

#include <gtest/gtest.h>

#include <type_traits>

namespace {

static_assert(std::is_base_of_v<rocmtpl::error, rocmtpl::invalid_argument_error>);
static_assert(std::is_base_of_v<rocmtpl::error, rocmtpl::out_of_range_error>);
static_assert(std::is_base_of_v<rocmtpl::error, rocmtpl::evaluation_error>);

TEST(ErrorHeader, GivesTheWholeHierarchy) {
  try {
    throw rocmtpl::evaluation_error("rocmtpl: sym_expr: M has no size hint");
  } catch (const rocmtpl::error& e) {
    EXPECT_STREQ(e.what(), "rocmtpl: sym_expr: M has no size hint");
  }
}

}  // namespace

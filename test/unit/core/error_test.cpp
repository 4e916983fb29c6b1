// SPDX-License-Identifier: MIT
// The exception hierarchy (rocmtpl/core/error.hpp): every error derives from rocmtpl::error, which is
// a std::runtime_error, and keeps its message; core/ includes no other rocmtpl header.
#include <rocmtpl/core/error.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#ifdef ROCMTPL_VERSION_MAJOR
#error "rocmtpl/core/error.hpp must include no other rocmtpl header"
#endif

namespace {
using namespace rocmtpl;

static_assert(std::is_base_of_v<std::runtime_error, error>);
static_assert(std::is_base_of_v<error, invalid_argument_error>);
static_assert(std::is_base_of_v<error, out_of_range_error>);
static_assert(std::is_base_of_v<error, evaluation_error>);
static_assert(!std::is_base_of_v<invalid_argument_error, evaluation_error>);
static_assert(std::is_base_of_v<error, template_error>);
static_assert(!std::is_base_of_v<invalid_argument_error, template_error>);

template <class E>
std::string caught_as_error(const std::string& message) {
  try {
    throw E(message);
  } catch (const error& e) {
    return e.what();
  } catch (...) {
    return "not a rocmtpl::error";
  }
}

TEST(Error, EveryErrorIsCaughtAsRocmtplErrorWithItsMessage) {
  EXPECT_EQ(caught_as_error<error>("rocmtpl: a: b"), "rocmtpl: a: b");
  EXPECT_EQ(caught_as_error<invalid_argument_error>("rocmtpl: x: bad"), "rocmtpl: x: bad");
  EXPECT_EQ(caught_as_error<out_of_range_error>("rocmtpl: dim 3"), "rocmtpl: dim 3");
  EXPECT_EQ(caught_as_error<evaluation_error>("rocmtpl: M has no hint"), "rocmtpl: M has no hint");
}

TEST(Error, KindsAreDistinguishable) {
  EXPECT_THROW(throw invalid_argument_error("x"), invalid_argument_error);
  try {
    throw out_of_range_error("rocmtpl: index 4");
  } catch (const invalid_argument_error&) {
    FAIL() << "out_of_range_error is no invalid_argument_error";
  } catch (const out_of_range_error& e) {
    EXPECT_STREQ(e.what(), "rocmtpl: index 4");
  }
}

TEST(Error, TemplateErrorNamesTheTemplate) {
  try {
    throw template_error("rocmtpl: autotune: template 'gemm' has no candidates; check its configs", "gemm");
  } catch (const error& e) {
    EXPECT_STREQ(e.what(), "rocmtpl: autotune: template 'gemm' has no candidates; check its configs");
    const auto* typed = dynamic_cast<const template_error*>(&e);
    ASSERT_NE(typed, nullptr);
    EXPECT_EQ(typed->template_name(), "gemm");
  }
}

}  // namespace

namespace {
static_assert(std::is_base_of_v<rocmtpl::error, rocmtpl::invalid_argument_error>);
static_assert(std::is_base_of_v<rocmtpl::error, rocmtpl::out_of_range_error>);
static_assert(std::is_base_of_v<rocmtpl::error, rocmtpl::evaluation_error>);

TEST(Error, CaughtAsTheBaseKeepsTheMessage) {
  try {
    throw rocmtpl::evaluation_error("rocmtpl: sym_expr: M has no size hint");
  } catch (const rocmtpl::error& e) {
    EXPECT_STREQ(e.what(), "rocmtpl: sym_expr: M has no size hint");
  }
}

}  // namespace

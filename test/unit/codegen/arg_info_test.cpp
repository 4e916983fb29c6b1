// SPDX-License-Identifier: MIT
// rocmtpl/codegen/arg_info.hpp: runtime arguments are named integers.
#include <rocmtpl/codegen/arg_info.hpp>

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace {
using rocmtpl::arg_info;
using rocmtpl::invalid_argument_error;

static_assert(std::is_same_v<rocmtpl::runtime_arg_value, std::int64_t>);

TEST(ArgInfo, AcceptsEveryIntegerType) {
  for (const auto ty : arg_info::allowed_types) {
    EXPECT_NO_THROW((arg_info{"split_k", std::string(ty)}.validate())) << ty;
  }
}

TEST(ArgInfo, RefusesNonIntegerTypesAndBadNames) {
  for (const char* ty : {"float", "double", "int*", "size_t ", ""}) {
    try {
      arg_info{"split_k", ty}.validate();
      FAIL() << "type '" << ty << "' must be refused";
    } catch (const invalid_argument_error& e) {
      EXPECT_NE(std::string(e.what()).find("use an integer type"), std::string::npos) << e.what();
    }
  }
  for (const char* name : {"", "2k", "split-k", "a b"}) {
    EXPECT_THROW((arg_info{name, "int"}.validate()), invalid_argument_error) << name;
  }
}

TEST(ArgInfo, ComparesByNameAndType) {
  EXPECT_EQ((arg_info{"a", "int"}), (arg_info{"a", "int"}));
  EXPECT_NE((arg_info{"a", "int"}), (arg_info{"a", "int64_t"}));
  EXPECT_NE((arg_info{"a", "int"}), (arg_info{"b", "int"}));
}

}  // namespace

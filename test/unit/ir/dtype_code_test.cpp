// SPDX-License-Identifier: MIT
// dtype_code(): the one dtype numbering shared by the host, the runtime's helper kernels and
// generated sources (issue 8).
#include <rocmtpl/ir/dtype.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using namespace rocmtpl;

constexpr dtype all[] = {dtype::f16, dtype::bf16, dtype::f32,     dtype::f64,    dtype::i8,    dtype::u8,
                         dtype::i32, dtype::i64,  dtype::boolean, dtype::f8e4m3, dtype::f8e5m2};

// The numbering is part of the worker protocol and of compiled helper libraries: fixed values.
static_assert(dtype_code(dtype::f16) == 0 && dtype_code(dtype::bf16) == 1 && dtype_code(dtype::f32) == 2);
static_assert(dtype_code(dtype::f64) == 3 && dtype_code(dtype::i64) == 7 && dtype_code(dtype::f8e5m2) == 10);

TEST(DtypeCode, RoundTripsAndIsUnique) {
  std::set<int> codes;
  for (dtype d : all) {
    EXPECT_EQ(dtype_from_code(dtype_code(d)), d) << name(d);
    codes.insert(dtype_code(d));
  }
  EXPECT_EQ(codes.size(), std::size(all));
  EXPECT_THROW((void)dtype_from_code(-1), invalid_argument_error);
  EXPECT_THROW((void)dtype_from_code(static_cast<std::int64_t>(std::size(all))), invalid_argument_error);
}

TEST(DtypeCode, DefinesSpellEveryCodeForGeneratedSources) {
  EXPECT_EQ(dtype_code_macro(dtype::f16), "ROCMTPL_DTYPE_FLOAT16");
  EXPECT_EQ(dtype_code_macro(dtype::bf16), "ROCMTPL_DTYPE_BFLOAT16");
  EXPECT_EQ(dtype_code_macro(dtype::boolean), "ROCMTPL_DTYPE_BOOL");
  EXPECT_EQ(dtype_code_macro(dtype::f8e4m3), "ROCMTPL_DTYPE_FLOAT8_E4M3FNUZ");
  const auto text = dtype_code_defines();
  for (dtype d : all) {
    const auto line = "#define " + dtype_code_macro(d) + " " + std::to_string(dtype_code(d)) + "\n";
    EXPECT_NE(text.find(line), std::string::npos) << line << " missing from\n" << text;
  }
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), std::size(all));
}

}  // namespace

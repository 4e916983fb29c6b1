// SPDX-License-Identifier: MIT
// templates/detail/source_parts.hpp: the size arguments of kernels.
#include <rocmtpl/templates/detail/source_parts.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
namespace td = rocmtpl::templates::detail;

TEST(SourceParts, SizeSymbolsExtendParametersAndArguments) {
  std::string params = "const float* X";
  std::string args = "X";
  td::append_size_symbols(params, args, {"M", "N"});
  EXPECT_EQ(params, "const float* X, int64_t M, int64_t N");
  EXPECT_EQ(args, "X, M, N");
  td::append_size_symbols(params, args, {});
  EXPECT_EQ(args, "X, M, N");
}
}  // namespace

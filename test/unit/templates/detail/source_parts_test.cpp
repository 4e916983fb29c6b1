// SPDX-License-Identifier: MIT
// templates/detail/source_parts.hpp: the top of every translation unit and the size arguments.
#include <rocmtpl/templates/detail/source_parts.hpp>

#include <gtest/gtest.h>

#include <optional>

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

TEST(SourceParts, HeaderThenGlobalsEachFollowedByABlankLine) {
  const rocmtpl::buffer x("x", rocmtpl::layout::row_major(rocmtpl::dtype::f32, {4}));
  const rocmtpl::template_context ctx({x}, x, std::nullopt, "#include <a.h>\n", "#define G 1\n");
  rocmtpl::indented_buffer src;
  td::write_header_and_globals(src, ctx);
  EXPECT_EQ(src.str(), "#include <a.h>\n\n#define G 1\n\n");
}
}  // namespace

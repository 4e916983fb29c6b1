// SPDX-License-Identifier: MIT
#include <rocmtpl/codegen/indented_buffer.hpp>

#include <gtest/gtest.h>

namespace {
TEST(IndentedBuffer, IndentScopesNest) {
  rocmtpl::indented_buffer b;
  b.writeline("a {");
  {
    auto s = b.indent();
    b.writeline("b {");
    {
      auto t = b.indent();
      b.writeline("c;");
    }
    b.writeline("}");
  }
  b.writeline("}");
  EXPECT_EQ(b.str(), "a {\n    b {\n        c;\n    }\n}\n");
  EXPECT_EQ(b.level(), 0);
}

TEST(IndentedBuffer, BlankLinesAreEmpty) {
  rocmtpl::indented_buffer b(1);
  b.writeline("   ");
  b.writeline("x");
  EXPECT_EQ(b.str(), "\n    x\n");
}

TEST(IndentedBuffer, SpliceDedentsAndIndents) {
  rocmtpl::indented_buffer b;
  auto s = b.indent();
  b.splice(R"(
        if (x) {
            y();

        }
  )");
  EXPECT_EQ(b.str(), "\n    if (x) {\n        y();\n\n    }\n");
}

TEST(IndentedBuffer, SpliceStripDropsLeadingBlankLines) {
  rocmtpl::indented_buffer b;
  b.splice("\n\n  a\n    b\n", true);
  EXPECT_EQ(b.str(), "a\n  b\n");
}

TEST(IndentedBuffer, SpliceOfBlankTextWritesNothing) {
  rocmtpl::indented_buffer b;
  b.splice("  \n\t\n");
  EXPECT_EQ(b.line_count(), 0U);
  EXPECT_EQ(b.str(), "");
}

TEST(IndentedBuffer, SpliceAnotherBuffer) {
  rocmtpl::indented_buffer inner;
  inner.writeline("x;");
  rocmtpl::indented_buffer outer;
  auto s = outer.indent(2);
  outer.splice(inner);
  EXPECT_EQ(outer.str(), "        x;\n");
}
}  // namespace

// SPDX-License-Identifier: MIT
// rocmtpl/codegen/preamble.hpp: the text every generated translation unit starts with.
#include <rocmtpl/codegen/preamble.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
using rocmtpl::bfloat16_alias;
using rocmtpl::pt_export_block;

TEST(Preamble, PtExportIsDefaultVisibilityUnderGnuAndDllexportOnWindows) {
  const std::string block(pt_export_block);
  EXPECT_NE(block.find("#define PT_EXPORT __attribute__((__visibility__(\"default\")))\n"), std::string::npos);
  EXPECT_NE(block.find("#define PT_EXPORT __declspec(dllexport)\n"), std::string::npos);
  EXPECT_NE(block.find("#define PT_EXPORT\n"), std::string::npos);  // other compilers: nothing
  EXPECT_TRUE(block.ends_with("#endif\n"));
  // Balanced conditionals: the block can be pasted anywhere at file scope.
  std::size_t ifs = 0;
  std::size_t endifs = 0;
  for (auto p = block.find("#if"); p != std::string::npos; p = block.find("#if", p + 1)) ++ifs;
  for (auto p = block.find("#endif"); p != std::string::npos; p = block.find("#endif", p + 1)) ++endifs;
  EXPECT_EQ(ifs, endifs);
  EXPECT_EQ(ifs, 2u);
}

TEST(Preamble, Bfloat16AliasIsOneLine) { EXPECT_EQ(bfloat16_alias, "using bfloat16 = hip_bfloat16;\n"); }

}  // namespace

// SPDX-License-Identifier: MIT
// Names in generated code (issue 8): the identifier rule, the keyword and ABI-name refusals, and
// the u_ renaming of user names.
#include <rocmtpl/ir/identifier.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

#ifdef ROCMTPL_SYM_EXPR_HELPERS
#error "identifier.hpp must not pull in sym_expr.hpp"
#endif

namespace {
using namespace rocmtpl;

std::string message_of(std::string_view entity, std::string_view name) {
  try {
    check_name(entity, name);
  } catch (const invalid_argument_error& e) {
    return e.what();
  }
  return "no exception";
}

TEST(Identifier, CIdentifierRule) {
  for (const char* ok : {"_", "a", "Z", "_x1", "batch_size", "u_M", "s0", "Z9_", "main"})
    EXPECT_TRUE(is_identifier(ok)) << ok;
  for (const char* bad : {"", "1M", "a-b", "a b", "M.x", "x+y", "caf\xc3\xa9", "9", "a$"}) {
    EXPECT_FALSE(is_identifier(bad)) << bad;
  }
  static_assert(is_identifier("M") && !is_identifier("1"));
}

TEST(Identifier, KeywordsOfC11AndCpp20AndAlternativeTokens) {
  for (const char* kw :
       {"int",    "class",  "template", "co_await", "char8_t", "consteval",      "constinit",     "requires", "concept",
        "and",    "or",     "not",      "xor",      "bitand",  "bitor",          "compl",         "and_eq",   "or_eq",
        "xor_eq", "not_eq", "restrict", "_Bool",    "_Atomic", "_Static_assert", "_Thread_local", "nullptr",  "true",
        "false",  "this",   "typename", "wchar_t",  "sizeof",  "alignof",        "thread_local"}) {
    EXPECT_TRUE(is_cpp_keyword(kw)) << kw;
  }
  for (const char* not_kw : {"M", "int64_t", "size_t", "main", "NULL", "errno", "stdin", "half", "final", "override",
                             "module", "import", "Int", "u_int"}) {
    EXPECT_FALSE(is_cpp_keyword(not_kw)) << not_kw;
  }
  const std::set<std::string_view> unique(cpp_keywords.begin(), cpp_keywords.end());
  EXPECT_EQ(unique.size(), cpp_keywords.size());
  for (auto kw : cpp_keywords) EXPECT_TRUE(is_identifier(kw)) << kw;
  static_assert(is_cpp_keyword("xor") && !is_cpp_keyword("xor_"));
}

TEST(Identifier, AbiNamesOfTheEntryPoint) {
  for (const char* abi : {"workspace_size", "workspace", "stream"}) EXPECT_TRUE(is_entry_abi_name(abi)) << abi;
  for (const char* other : {"Workspace", "streams", "u_stream", "workspace_"}) EXPECT_FALSE(is_entry_abi_name(other));
}

TEST(Identifier, CheckNameSaysWhatIsWrongAndHowToFixIt) {
  EXPECT_NO_THROW(check_name("sym_expr: symbol name", "M"));
  EXPECT_NO_THROW(check_name("sym_expr: symbol name", "u_M"));
  const auto not_ident = message_of("buffer: name", "1x");
  EXPECT_EQ(not_ident.rfind("rocmtpl: buffer: name '1x' is not a C identifier; ", 0), 0U) << not_ident;
  const auto keyword = message_of("sym_expr: symbol name", "or");
  EXPECT_EQ(keyword, "rocmtpl: sym_expr: symbol name 'or' is a C or C++ keyword; choose another name");
  const auto abi = message_of("buffer: name", "stream");
  EXPECT_EQ(abi.rfind("rocmtpl: buffer: name 'stream' is a parameter of every entry point", 0), 0U) << abi;
  EXPECT_NE(abi.find("; choose another name"), std::string::npos) << abi;
  EXPECT_FALSE(is_valid_name("stream"));
  EXPECT_FALSE(is_valid_name("while"));
  EXPECT_TRUE(is_valid_name("stream_0"));
}

TEST(Identifier, UserNamesTakeThePrefixOnTheirWayIntoGeneratedCode) {
  EXPECT_EQ(user_identifier("M"), "u_M");
  EXPECT_EQ(user_identifier("u_M"), "u_u_M");  // injective: two user names never meet one identifier
  EXPECT_EQ(user_identifier("p"), "u_p");
  EXPECT_EQ(user_identifier_prefix, "u_");
}
}  // namespace

// SPDX-License-Identifier: MIT
// Hygiene of generated code (issue 8): user names (size symbols, module tensor names) that are
// also internal names of the generated code (p, split_k, block_m, X_size, int64_t, threadIdx, ...)
// are renamed to u_<name> and never captured. Each source is rendered twice, with harmless
// reference names and with colliding names ordered alike (so canonical expression order is the
// same); outside comments and literals the two token streams must be identical except where
// u_<reference> meets u_<colliding>: then no user name reaches the code unprefixed.
#include "support/hygiene.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;
using rocmtpl::test::name_pool;

// Names a careless generator would capture: GEMM/elementwise/module internals, types, macros, the prefix itself.
const std::vector<std::string> module_names{
    "p",         "split_k",      "block_m",      "gemm_problem", "X",         "X_size",      "int64_t",
    "half",      "errno",        "NULL",         "stdin",        "threadIdx", "u_M",         "t",
    "Partial",   "make_problem", "store_output", "acc",          "Y",         "W",           "Bias",
    "total",     "blockIdx",     "size_t",       "uint16_t",     "bfloat16",  "gemm_kernel", "x_type",
    "hipError_t"};

std::vector<std::string> with(std::vector<std::string> names, std::initializer_list<const char*> more) {
  names.insert(names.end(), more.begin(), more.end());
  return names;
}

// Reference names in the same relative order as `names`: ref00 < ref01 < ... follows the sorted names.
std::map<std::string, std::string> reference_names(const std::vector<std::string>& names) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < sorted.size(); ++i)
    out[sorted[i]] = "ref" + std::string(i < 10 ? "0" : "") + std::to_string(i);
  return out;
}

std::vector<std::string> mapped(const std::vector<std::string>& names, const std::map<std::string, std::string>& to) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(to.at(n));
  return out;
}

// Renders with reference names and with `names`, compares the token streams (see the file comment).
// `used`: how many of the names (the first ones) must reach the code; a template's own buffer
// names appear in comments only.
template <class Render>
void expect_hygienic(const std::vector<std::string>& names, std::size_t used, Render render) {
  const auto refs = reference_names(names);
  std::map<std::string, std::string> user_of;  // u_ref07 -> u_<name>
  for (const auto& [name, ref] : refs) user_of[user_identifier(ref)] = user_identifier(name);
  name_pool ref_pool(mapped(names, refs));
  name_pool user_pool(names);
  const std::string ref_src = render(ref_pool);
  const std::string user_src = render(user_pool);
  const auto a = test::tokenize(ref_src);
  const auto b = test::tokenize(user_src);
  ASSERT_EQ(a.size(), b.size()) << "token counts differ";
  std::size_t renamed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].text == b[i].text) continue;
    const auto it = user_of.find(a[i].text);
    ASSERT_TRUE(it != user_of.end() && it->second == b[i].text)
        << "token " << i << ": '" << a[i].text << "' with reference names but '" << b[i].text << "' with user names";
    ++renamed;
  }
  EXPECT_GT(renamed, used);  // every name is used, most more than once
  for (std::size_t i = 0; i < used; ++i) {
    EXPECT_NE(user_src.find(user_identifier(names[i])), std::string::npos) << names[i];
  }
}

TEST(Hygiene, TokenizerSkipsCommentsAndLiterals) {
  const auto t = test::tokenize("int a = 1; // b c\n/* d */ f(\"e \\\" g\", 'h', 2.5f, 0x1F);");
  std::vector<std::string> texts;
  for (const auto& x : t) texts.push_back(x.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"int", "a", "=", "1", ";", "f", "(", "<literal>", ",", "<literal>", ",",
                                             "2.5f", ",", "0x1F", ")", ";"}));
  EXPECT_EQ(test::identifiers_of("a b // c\n a \"d\" e"), (std::vector<std::string>{"a", "b", "e"}));
}

TEST(Hygiene, GemmSymbolsNamedLikeInternals) {
  const auto names = with(std::vector<std::string>(module_names.begin(), module_names.begin() + 14),
                          {"rocmtpl_mod", "main", "rocmtpl_ok", "rocmtpl_numel"});
  ASSERT_EQ(names.size(), test::gemm_names);
  expect_hygienic(names, 15, [](name_pool& pool) { return test::render(test::make_gemm(pool)); });
}

TEST(Hygiene, ElementwiseSymbolsNamedLikeInternals) {
  const auto names = with(std::vector<std::string>(module_names.begin() + 18, module_names.begin() + 26),
                          {"rocmtpl_floordiv", "main", "elementwise_kernel"});
  ASSERT_EQ(names.size(), test::elementwise_names);
  expect_hygienic(names, 8, [](name_pool& pool) { return test::render(test::make_elementwise(pool)); });
}

TEST(Hygiene, ModuleTensorsAndSymbolsNamedLikeInternals) {
  ASSERT_EQ(module_names.size(), test::gemm_names + test::elementwise_names);
  expect_hygienic(module_names, module_names.size(), [](name_pool& pool) {
    module_graph g("hyg_module");
    auto add = [&](auto p) {
      for (const auto& in : p.inputs) g.add_input(in);
      g.add_node(p.output.name(), p.tmpl.generate({}, p.hints).output_node());
      g.add_output(p.output.name());
    };
    add(test::make_gemm(pool));
    add(test::make_elementwise(pool));
    // The runner's argument parser has the names' lengths in it: the compile test builds it.
    return emit_module(g, test::hygiene_module_options(false)).source;
  });
}

TEST(Hygiene, HumanTextKeepsThePlainNames) {
  name_pool pool(with(module_names, {}));
  const auto p = test::make_gemm(pool);
  const std::string src = test::render(p);
  // The layout comments name the user's symbols as the user wrote them.
  EXPECT_NE(src.find("// make_problem float16[p, split_k, gemm_problem] strides [X, X_size, int64_t] offset half\n"),
            std::string::npos)
      << src.substr(src.find("// gemm "), 400);
}
}  // namespace

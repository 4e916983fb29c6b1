// SPDX-License-Identifier: MIT
// Hygiene through the real compiler (issue 8): every single letter and every identifier that the
// GEMM, elementwise and module sources contain (their internal names: tile constants, loop
// variables, helpers, ABI parameters, types, macros, runtime functions) is used as a user name,
// as size symbols of GEMM and elementwise problems and as tensor names of modules, and each
// source builds with hipcc for gfx90a. Keywords and the entry point's ABI names among them are
// refused up front. Many names share one source (modules of many nodes) to keep compiles few;
// they run in parallel. Skips when hipcc is not installed.
#include <rocmtpl/runtime.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/hygiene.hpp"
#include "support/runtime.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::name_pool;

const std::string gemm_module_prefix = "hygiene_gemm_";
const std::string elementwise_module_prefix = "hygiene_elementwise_";

std::vector<std::string> sequential_names(std::size_t count) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    std::string name = "n";  // not "n" + to_string(): g++ 12 -O3 false -Wrestrict (GCC bug 105329)
    name += std::to_string(i);
    out.push_back(std::move(name));
  }
  return out;
}

// The identifiers of the sources the templates and modules render (with harmless names).
std::set<std::string> internal_identifiers() {
  std::set<std::string> out;
  auto add = [&](const std::string& src) {
    for (auto& id : rocmtpl::test::identifiers_of(src)) out.insert(std::move(id));
  };
  name_pool g(sequential_names(rocmtpl::test::gemm_names));
  add(rocmtpl::test::render(rocmtpl::test::make_gemm(g)));
  name_pool e(sequential_names(rocmtpl::test::elementwise_names));
  add(rocmtpl::test::render(rocmtpl::test::make_elementwise(e)));
  name_pool m(sequential_names(rocmtpl::test::gemm_names + rocmtpl::test::elementwise_names));
  module_graph graph = rocmtpl::test::make_module("hygiene_probe", m, false, 1);
  add(emit_module(graph, rocmtpl::test::hygiene_module_options(true)).source);
  for (const auto& s : sequential_names(rocmtpl::test::gemm_names + rocmtpl::test::elementwise_names)) {
    out.erase(s);  // the harmless names themselves
    out.erase(user_identifier(s));
  }
  return out;
}

// 52 single letters and the internal identifiers, keywords and ABI names included (checked below).
std::vector<std::string> candidate_names() {
  std::set<std::string> names = internal_identifiers();
  for (char c = 'a'; c <= 'z'; ++c) names.insert(std::string(1, c));
  for (char c = 'A'; c <= 'Z'; ++c) names.insert(std::string(1, c));
  // Names the C library and the GPU runtime declare (issue 22 item 12: a module's own name may not
  // take them, its buffers and nodes may: they are renamed).
  for (const char* n : {"free", "malloc", "printf", "exit", "sinf", "hipMalloc", "hipFree", "float4", "threadIdx"}) {
    names.insert(n);
  }
  return {names.begin(), names.end()};
}

// Names modules refuse for graph buffers or symbols (module.hpp keeps them for its own use).
bool module_refuses(const std::string& name) {
  return name.starts_with("rocmtpl_") || name == "main" || name.starts_with("hygiene_") ||
         name.starts_with(gemm_module_prefix) || name.starts_with(elementwise_module_prefix);
}

struct source {
  std::string label;
  std::string text;
};

// Modules of GEMM nodes and modules of elementwise nodes that together use every name once each.
void add_modules(std::vector<source>& out, const std::vector<std::string>& names, bool elementwise,
                 std::size_t nodes_per_module) {
  name_pool pool(names);
  const std::size_t need = elementwise ? rocmtpl::test::elementwise_names : rocmtpl::test::gemm_names;
  for (int i = 0; pool.left() >= need; ++i) {
    const std::string name = (elementwise ? elementwise_module_prefix : gemm_module_prefix) + std::to_string(i);
    module_graph g = rocmtpl::test::make_module(name, pool, elementwise, nodes_per_module);
    out.push_back({name, emit_module(g, rocmtpl::test::hygiene_module_options(true)).source});
  }
}

// Names padded to a multiple of n (a problem takes n names) with names used nowhere else.
std::vector<std::string> padded(std::vector<std::string> names, std::size_t n) {
  for (int i = 0; names.size() % n != 0; ++i) names.push_back("hygiene_pad_" + std::to_string(i));
  return names;
}

std::vector<source> hygiene_sources(const std::vector<std::string>& names) {
  std::vector<std::string> in_modules;
  std::vector<std::string> standalone;
  for (const auto& n : names) (module_refuses(n) ? standalone : in_modules).push_back(n);
  std::vector<source> out;
  add_modules(out, padded(in_modules, rocmtpl::test::gemm_names), false, 12);
  add_modules(out, padded(in_modules, rocmtpl::test::elementwise_names), true, 40);
  // Names a module refuses are size symbols of plain template sources (symbols only: 15 and 8 per problem).
  name_pool g(padded(standalone, 15));
  for (int i = 0; g.left() > 0; ++i) {
    std::vector<std::string> chunk;
    for (int j = 0; j < 15; ++j) chunk.push_back(g.take());
    chunk.insert(chunk.end(), {"X", "W", "Y"});
    name_pool p(chunk);
    out.push_back({"gemm_" + std::to_string(i), rocmtpl::test::render(rocmtpl::test::make_gemm(p))});
  }
  name_pool e(padded(standalone, 8));
  for (int i = 0; e.left() > 0; ++i) {
    std::vector<std::string> chunk;
    for (int j = 0; j < 8; ++j) chunk.push_back(e.take());
    chunk.insert(chunk.end(), {"X", "Bias", "Y"});
    name_pool p(chunk);
    out.push_back({"elementwise_" + std::to_string(i), rocmtpl::test::render(rocmtpl::test::make_elementwise(p))});
  }
  return out;
}

TEST(HygieneCompile, KeywordsAndAbiNamesAreRefused) {
  std::size_t refused = 0;
  for (const auto& n : candidate_names()) {
    if (is_valid_name(n)) continue;
    ++refused;
    EXPECT_THROW((void)sym_expr::symbol(n), invalid_argument_error) << n;
    EXPECT_THROW(buffer(n, layout::row_major(dtype::f32, {4})), invalid_argument_error) << n;
  }
  EXPECT_GT(refused, 10U);  // the sources use int, const, return, ... and stream, workspace
  for (auto kw : cpp_keywords) EXPECT_THROW((void)sym_expr::symbol(kw), invalid_argument_error) << kw;
  for (auto abi : entry_abi_names) EXPECT_THROW((void)sym_expr::symbol(abi), invalid_argument_error) << abi;
}

TEST(HygieneCompile, EveryInternalNameAsAUserNameBuildsWithHipcc) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  std::vector<std::string> names;
  for (const auto& n : candidate_names()) {
    if (is_valid_name(n)) names.push_back(n);
  }
  ASSERT_GT(names.size(), 300U);  // the sources have a few hundred identifiers
  const auto sources = hygiene_sources(names);
  std::cout << "[ hygiene ] " << names.size() << " names in " << sources.size() << " sources\n";

  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  compile_options opts = amd_compile_options({"gfx90a"});
  opts.opt_level = 0;  // name lookup is all that is tested
  opts.resource_usage = false;
  opts.defines = {"ROCMTPL_STANDALONE_RUNNER"};  // modules' runners too
  const std::size_t jobs = std::max(2U, std::thread::hardware_concurrency());
  for (std::size_t first = 0; first < sources.size(); first += jobs) {
    std::vector<std::future<compile_result>> running;
    const std::size_t last = std::min(sources.size(), first + jobs);
    for (std::size_t i = first; i < last; ++i) {
      running.push_back(
          std::async(std::launch::async, [&, i] { return cache.get_or_compile(cc, sources[i].text, opts); }));
    }
    for (std::size_t i = first; i < last; ++i) {
      try {
        (void)running[i - first].get();
      } catch (const compile_error& e) {
        ADD_FAILURE() << sources[i].label << ": " << e.what() << "\n" << e.log().substr(0, 4000);
      }
    }
  }
}
}  // namespace

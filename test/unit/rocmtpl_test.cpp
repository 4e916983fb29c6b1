// SPDX-License-Identifier: MIT
// The umbrella of the pure layer (rocmtpl/rocmtpl.hpp) and the include graph under it, read from the
// headers' text: the umbrella reaches every public header of the pure layer; core/, ir/ and codegen/
// never include a top-level header (no include cycle between folders); every public header of the
// pure layer has a unit test of the same name.
#include <rocmtpl/rocmtpl.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;

const fs::path test_dir = ROCMTPL_TEST_SOURCE_DIR;
const fs::path include_dir = test_dir.parent_path() / "include";

// The rocmtpl headers `header` (a path below include/) includes, as written after `<`.
std::vector<std::string> rocmtpl_includes(const std::string& header) {
  std::ifstream in(include_dir / header);
  EXPECT_TRUE(in) << "cannot read " << (include_dir / header);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '#') continue;
    const auto open = line.find("<rocmtpl/");
    if (line.find("include", first) == std::string::npos || open == std::string::npos) continue;
    out.push_back(line.substr(open + 1, line.find('>', open) - open - 1));
  }
  return out;
}

// Every header below include/rocmtpl, as "rocmtpl/...".
std::vector<std::string> all_headers() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(include_dir / "rocmtpl")) {
    if (e.is_regular_file() && e.path().extension() == ".hpp") {
      out.push_back(e.path().lexically_relative(include_dir).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_runtime(const std::string& h) { return h.starts_with("rocmtpl/runtime/") || h == "rocmtpl/runtime.hpp"; }
bool is_detail(const std::string& h) { return h.find("/detail/") != std::string::npos; }
// The folder below rocmtpl/ ("" for a top-level header).
std::string folder_of(const std::string& h) {
  const auto rest = h.substr(std::string("rocmtpl/").size());
  const auto slash = rest.find('/');
  return slash == std::string::npos ? std::string() : rest.substr(0, slash);
}

TEST(IncludeGraph, TheHeadersAreFound) {
  const auto headers = all_headers();
  EXPECT_GT(headers.size(), 20u);
  EXPECT_NE(std::find(headers.begin(), headers.end(), "rocmtpl/rocmtpl.hpp"), headers.end());
  const auto includes = rocmtpl_includes("rocmtpl/module.hpp");
  EXPECT_NE(std::find(includes.begin(), includes.end(), "rocmtpl/module/emitter.hpp"), includes.end());
}

TEST(IncludeGraph, LowerFoldersNeverIncludeAHigherOne) {
  // The folders each folder may include from; core/ is the bottom, then detail/ and ir/, then codegen/.
  const std::map<std::string, std::set<std::string>> allowed{
      {"core", {"core"}},
      {"detail", {"core", "detail"}},
      {"ir", {"core", "detail", "ir"}},
      {"codegen", {"core", "detail", "ir", "codegen", "device"}},
      {"device", {"core", "detail", "device"}},
  };
  for (const auto& h : all_headers()) {
    const auto rule = allowed.find(folder_of(h));
    if (rule == allowed.end()) continue;
    for (const auto& inc : rocmtpl_includes(h)) {
      const auto folder = folder_of(inc);
      EXPECT_TRUE(rule->second.contains(folder)) << h << " includes " << inc << ": " << rule->first
                                                 << "/ may include only " <<
          [&] {
            std::string s;
            for (const auto& f : rule->second) s += f + "/ ";
            return s;
          }() << (folder.empty() ? "(never a top-level header: move what it needs down)" : "");
    }
  }
}

TEST(Umbrella, ReachesEveryPublicHeaderOfThePureLayer) {
  std::set<std::string> seen{"rocmtpl/rocmtpl.hpp"};
  std::deque<std::string> todo{"rocmtpl/rocmtpl.hpp"};
  while (!todo.empty()) {
    const auto h = todo.front();
    todo.pop_front();
    for (const auto& inc : rocmtpl_includes(h)) {
      EXPECT_FALSE(is_runtime(inc)) << h << " (pure layer) includes " << inc;
      if (seen.insert(inc).second) todo.push_back(inc);
    }
  }
  for (const auto& h : all_headers()) {
    if (is_runtime(h) || is_detail(h)) continue;
    EXPECT_TRUE(seen.contains(h)) << h << " is not reached from rocmtpl/rocmtpl.hpp; include it there";
  }
}

TEST(Umbrella, RocmTemplateHppStillGivesEverything) {
  const auto includes = rocmtpl_includes("rocmtpl/rocm_template.hpp");
  EXPECT_NE(std::find(includes.begin(), includes.end(), "rocmtpl/rocmtpl.hpp"), includes.end());
}

TEST(Umbrella, EveryPublicHeaderOfThePureLayerHasAUnitTest) {
  for (const auto& h : all_headers()) {
    if (is_runtime(h) || is_detail(h)) continue;
    const auto rel = h.substr(std::string("rocmtpl/").size());
    const auto test = test_dir / "unit" / (rel.substr(0, rel.size() - 4) + "_test.cpp");
    EXPECT_TRUE(fs::exists(test)) << h << " has no test " << test.lexically_relative(test_dir.parent_path());
  }
}

TEST(Umbrella, RendersAndEmitsThroughOneInclude) {
  using namespace rocmtpl;
  const auto l = layout::row_major(dtype::f32, {sym_expr::symbol("M"), 16});
  rocm_template<templates::elementwise_policy> relu(templates::elementwise_policy({templates::activation::relu}),
                                                    {buffer("x", l)}, l);
  module_graph g("relu_module");
  g.add_input(buffer("x", l));
  g.add_node("y", relu.generate(templates::elementwise_config{}, {{"M", 4}}).output_node());
  g.add_output("y");
  const auto m = emit_module(g);
  EXPECT_NE(m.source.find("extern \"C\" PT_EXPORT int relu_module("), std::string::npos);
  EXPECT_EQ(std::string(version_string), std::to_string(ROCMTPL_VERSION_MAJOR) + "." +
                                             std::to_string(ROCMTPL_VERSION_MINOR) + "." +
                                             std::to_string(ROCMTPL_VERSION_PATCH));
}

}  // namespace

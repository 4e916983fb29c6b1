// SPDX-License-Identifier: MIT
// The umbrellas and the include graph, read from the headers' text: each folder includes only the
// folders below it (the table below is the one place the layering is written down; docs/ARCHITECTURE.md
// explains it), no folder includes a top-level header, the graph has no cycle, top-level headers only
// include, the umbrellas reach every public header of their layer, and every public header of the pure
// layer has a unit test of the same name.
#include <rocmtpl/rocmtpl.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
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
bool is_top_level(const std::string& h) { return h.find('/', std::string("rocmtpl/").size()) == std::string::npos; }
// The layer a header belongs to: the folder below rocmtpl/, and for runtime/ the folder below it
// ("runtime/db"); "" for a top-level header.
std::string folder_of(const std::string& h) {
  const auto rest = h.substr(std::string("rocmtpl/").size());
  const auto slash = rest.find('/');
  if (slash == std::string::npos) return {};
  const auto folder = rest.substr(0, slash);
  if (folder != "runtime") return folder;
  const auto second = rest.find('/', slash + 1);
  return second == std::string::npos ? std::string() : rest.substr(0, second);
}

// Every header `umbrella` reaches through includes, itself included.
std::set<std::string> reached_from(const std::string& umbrella) {
  std::set<std::string> seen{umbrella};
  std::deque<std::string> todo{umbrella};
  while (!todo.empty()) {
    const auto h = todo.front();
    todo.pop_front();
    for (const auto& inc : rocmtpl_includes(h)) {
      if (seen.insert(inc).second) todo.push_back(inc);
    }
  }
  return seen;
}

using folder_set = std::set<std::string>;
folder_set operator+(folder_set a, const folder_set& b) {
  a.insert(b.begin(), b.end());
  return a;
}

// The folders each folder may include from (itself included), bottom to top. The pure layers:
// core/ and detail/, ir/, device/ (the device headers' text), codegen/, kernel/ (the reference's
// classes), templates/, module/. The runtime layer: sys/ (processes, files, dlopen), gpu/, build/
// (compilers and the code cache), db/ (the tuning database), launch/, bench/, tune/, aot/ (export
// and module loading; the one runtime folder that may name templates/ and module/).
const std::map<std::string, folder_set>& layering() {
  static const auto rules = [] {
    std::map<std::string, folder_set> r;
    r["core"] = {"core"};
    r["detail"] = {"core", "detail"};
    r["ir"] = r["detail"] + folder_set{"ir"};
    r["device"] = r["detail"] + folder_set{"device"};
    r["codegen"] = r["ir"] + folder_set{"device", "codegen"};
    r["kernel"] = r["codegen"] + folder_set{"kernel"};
    r["templates"] = r["kernel"] + folder_set{"templates"};
    r["module"] = r["templates"] + folder_set{"module"};
    r["runtime/sys"] = r["detail"] + folder_set{"runtime/sys"};
    r["runtime/gpu"] = r["runtime/sys"] + folder_set{"runtime/gpu"};
    r["runtime/build"] = r["runtime/gpu"] + folder_set{"device", "runtime/build"};
    r["runtime/db"] = r["runtime/sys"] + folder_set{"runtime/db"};
    r["runtime/launch"] = r["kernel"] + r["runtime/build"] + folder_set{"runtime/launch"};
    r["runtime/bench"] = r["runtime/launch"] + folder_set{"runtime/db", "runtime/bench"};
    r["runtime/tune"] = r["runtime/bench"] + folder_set{"runtime/tune"};
    r["runtime/aot"] = r["runtime/tune"] + folder_set{"templates", "module", "runtime/aot"};
    return r;
  }();
  return rules;
}

TEST(IncludeGraph, TheHeadersAreFound) {
  const auto headers = all_headers();
  EXPECT_GT(headers.size(), 20u);
  EXPECT_NE(std::find(headers.begin(), headers.end(), "rocmtpl/rocmtpl.hpp"), headers.end());
  const auto includes = rocmtpl_includes("rocmtpl/module.hpp");
  EXPECT_NE(std::find(includes.begin(), includes.end(), "rocmtpl/module/emitter.hpp"), includes.end());
}

TEST(IncludeGraph, EveryFolderHasARuleAndIncludesOnlyTheFoldersBelowIt) {
  int checked = 0;
  for (const auto& h : all_headers()) {
    if (is_top_level(h)) continue;
    const auto rule = layering().find(folder_of(h));
    ASSERT_NE(rule, layering().end()) << h << " is in a folder the layering table does not know: add it";
    for (const auto& inc : rocmtpl_includes(h)) {
      const auto folder = folder_of(inc);
      ++checked;
      EXPECT_TRUE(rule->second.contains(folder)) << h << " includes " << inc << ": " << rule->first
                                                 << "/ may include only " <<
          [&] {
            std::string s;
            for (const auto& f : rule->second) s += f + "/ ";
            return s;
          }() << (folder.empty() ? "(never a top-level header: include the header in its folder)" : "");
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(IncludeGraph, HasNoCycle) {
  // Depth-first over every header and implementation (-inl.hpp, which never includes its own header
  // back): a header met again while it is still open closes a cycle.
  std::map<std::string, int> state;  // 0 new, 1 open, 2 done
  std::vector<std::string> path;
  std::function<void(const std::string&)> visit = [&](const std::string& h) {
    state[h] = 1;
    path.push_back(h);
    for (const auto& inc : rocmtpl_includes(h)) {
      if (state[inc] == 1) {
        std::string cycle;
        for (auto it = std::find(path.begin(), path.end(), inc); it != path.end(); ++it) cycle += *it + " -> ";
        ADD_FAILURE() << "include cycle: " << cycle << inc;
      } else if (state[inc] == 0) {
        visit(inc);
      }
    }
    path.pop_back();
    state[h] = 2;
  };
  for (const auto& h : all_headers()) {
    if (state[h] == 0) visit(h);
  }
}

TEST(IncludeGraph, TopLevelHeadersOnlyInclude) {
  // Umbrellas and the forwarding rocm_*.hpp: comments, #pragma once and #include lines, nothing else.
  for (const auto& h : all_headers()) {
    if (!is_top_level(h)) continue;
    std::ifstream in(include_dir / h);
    for (std::string line; std::getline(in, line);) {
      const auto first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line.compare(first, 2, "//") == 0) continue;
      EXPECT_TRUE(line.starts_with("#pragma once") || line.starts_with("#include <rocmtpl/"))
          << h << " is a top-level header: it may only include, but has: " << line;
    }
  }
}

TEST(Umbrella, RuntimeReachesEveryRuntimeHeader) {
  const auto seen = reached_from("rocmtpl/runtime.hpp");
  for (const auto& h : all_headers()) {
    if (is_top_level(h)) continue;  // the umbrellas and the forwarders to kernel/
    EXPECT_TRUE(seen.contains(h)) << h << " is not reached from rocmtpl/runtime.hpp; include it there";
  }
}

TEST(Umbrella, ReachesEveryPublicHeaderOfThePureLayer) {
  const auto seen = reached_from("rocmtpl/rocmtpl.hpp");
  for (const auto& h : seen) EXPECT_FALSE(is_runtime(h)) << h << " is reached from the pure layer's umbrella";
  for (const auto& h : all_headers()) {
    if (is_runtime(h) || is_detail(h) || is_top_level(h)) continue;
    EXPECT_TRUE(seen.contains(h)) << h << " is not reached from rocmtpl/rocmtpl.hpp; include it there";
  }
}

TEST(Umbrella, RocmTemplateHppStillGivesEverything) {
  const auto includes = rocmtpl_includes("rocmtpl/rocm_template.hpp");
  EXPECT_NE(std::find(includes.begin(), includes.end(), "rocmtpl/rocmtpl.hpp"), includes.end());
}

TEST(Umbrella, EveryPublicHeaderOfThePureLayerHasAUnitTest) {
  for (const auto& h : all_headers()) {
    if (is_runtime(h) || is_detail(h) || is_top_level(h) || h.ends_with("-inl.hpp")) continue;  // -inl: its header's
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

// SPDX-License-Identifier: MIT
// The description of a module (rocmtpl/module/graph.hpp): module_graph's names, inputs, nodes and
// outputs and what it refuses; module_source's hash; the bytes of a buffer in generated code.
#include <rocmtpl/module/graph.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {
using namespace rocmtpl;

const layout rows8 = layout::row_major(dtype::f16, {sym_expr::symbol("rows"), 8});

// A chosen template as the graph sees it; the graph never renders it.
rocm_template_buffer node(const std::vector<buffer>& inputs, const layout& out = rows8) {
  return {buffer("buf_out", out), inputs, make_kernel_render_fn{}, 0, "copy"};
}

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const invalid_argument_error& e) {
    return e.what();
  }
  return "no exception";
}

TEST(ModuleGraph, KeepsInputsNodesAndOutputsInOrder) {
  module_graph g("chain");
  g.add_input(buffer("x", rows8)).add_input(buffer("w", rows8));
  g.add_node("h", node({buffer("in", rows8), buffer("w", rows8)}), {"x", "w"});
  g.add_node("y", node({buffer("h", rows8)}));
  g.add_output("y").add_output("h");
  EXPECT_EQ(g.name(), "chain");
  ASSERT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(g.inputs()[1].name(), "w");
  ASSERT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(g.nodes()[0].name, "h");
  // Template input "in" reads graph buffer "x"; "w" keeps its name, so it needs no mapping.
  EXPECT_EQ(g.nodes()[0].graph_name("in"), "x");
  EXPECT_EQ(g.nodes()[0].input_names.size(), 1u);
  EXPECT_EQ(g.nodes()[0].graph_name("buf_out"), "h");
  EXPECT_EQ(g.outputs(), (std::vector<std::string>{"y", "h"}));
  EXPECT_TRUE(g.is_output("h"));
  EXPECT_FALSE(g.is_output("x"));
  ASSERT_TRUE(g.find("h"));
  EXPECT_EQ(g.find("h")->get_layout(), rows8);
  EXPECT_EQ(g.find("x")->name(), "x");
  EXPECT_FALSE(g.find("z"));
}

TEST(ModuleGraph, ReservesTheEntryPointsNames) {
  for (const char* name : {"workspace_size", "workspace", "stream", "rocmtpl_t0"}) {
    EXPECT_TRUE(module_graph::is_reserved(name)) << name;
  }
  EXPECT_FALSE(module_graph::is_reserved("x"));
  EXPECT_FALSE(module_graph::is_reserved("my_rocmtpl_buffer"));
  module_graph g("m");
  // An ABI name is refused as soon as it names a buffer (issue 8); the rocmtpl_ prefix by the graph.
  EXPECT_NE(message_of([&] { g.add_input(buffer("stream", rows8)); }).find("entry point"), std::string::npos);
  EXPECT_NE(message_of([&] { g.add_input(buffer("rocmtpl_t0", rows8)); }).find("reserved"), std::string::npos);
  EXPECT_THROW(g.add_input(buffer("m", rows8)), invalid_argument_error);  // the module's name
  EXPECT_THROW(module_graph("main"), invalid_argument_error);
  EXPECT_THROW(module_graph("rocmtpl_m"), invalid_argument_error);
  EXPECT_THROW(module_graph("not an identifier"), invalid_argument_error);
}

// Issue 22 item 12: the module's name is its entry point, exported unprefixed, so besides the rules
// of size symbols (a C identifier, no keyword, no ABI name) it may not take a name the C library or
// the GPU runtime declares in the generated source; the refusal comes when the graph is made, not
// from the compiler.
TEST(ModuleGraph, ModuleNamesFollowTheRulesOfExportedNames) {
  const std::vector<std::pair<const char*, const char*>> bad{
      {"free", "is declared by the C library or the GPU runtime"},
      {"hipMalloc", "is declared by the C library or the GPU runtime"},
      {"cudaMalloc", "is declared by the C library or the GPU runtime"},
      {"printf", "is declared by the C library or the GPU runtime"},
      {"expf", "is declared by the C library or the GPU runtime"},
      {"float4", "is declared by the C library or the GPU runtime"},
      {"__syncthreads", "is declared by the C library or the GPU runtime"},
      {"class", "is a C or C++ keyword"},
      {"template", "is a C or C++ keyword"},
      {"stream", "is a parameter of every entry point"},
      {"1st", "is not a C identifier"},
      {"9gemm", "is not a C identifier"},
      {"main", "is the program's entry point"},
      {"rocmtpl_m", "starts with 'rocmtpl_' or 'u_'"},
      {"u_m", "starts with 'rocmtpl_' or 'u_'"}};
  for (const auto& [bad_name, why] : bad) {
    const std::string name = bad_name;
    const auto msg = message_of([&] { module_graph g(name); });
    EXPECT_NE(msg.find("rocmtpl: module_graph: module name '" + name + "' " + why), std::string::npos) << msg;
  }
  for (const char* good : {"mlp", "gemm_bias_relu", "freeze", "hipster", "my_hipMalloc", "cudnn_like", "float5"}) {
    EXPECT_NO_THROW(module_graph{good}) << good;
  }
}

// Node (and input) names are user names: renamed in generated code (u_<name>) like size symbols, so
// a runtime name is harmless (test/unit/module/emitter_test.cpp renders one); keywords, ABI names
// and names that are no C identifier are refused when the node is added.
TEST(ModuleGraph, NodeNamesFollowTheRulesOfSizeSymbols) {
  module_graph g("m");
  g.add_input(buffer("x", rows8));
  for (const auto& [bad_name, why] :
       std::vector<std::pair<const char*, const char*>>{{"int", "is a C or C++ keyword"},
                                                        {"not", "is a C or C++ keyword"},
                                                        {"3h", "is not a C identifier"},
                                                        {"h-1", "is not a C identifier"},
                                                        {"workspace", "is a parameter of every entry point"}}) {
    const std::string name = bad_name;
    const auto msg = message_of([&] { g.add_node(name, node({buffer("x", rows8)})); });
    EXPECT_NE(msg.find("rocmtpl: module_graph: node output name '" + name + "' " + why), std::string::npos) << msg;
  }
  EXPECT_NE(message_of([&] { g.add_node("rocmtpl_h", node({buffer("x", rows8)})); }).find("reserved"),
            std::string::npos);
  for (const char* good : {"h", "free", "hipMalloc"}) {
    EXPECT_NO_THROW(g.add_node(good, node({buffer("x", rows8)}))) << good;
  }
  EXPECT_EQ(g.nodes().size(), 3u);
}

TEST(ModuleGraph, RefusesNodesThatReadWhatIsNotThere) {
  module_graph g("m");
  g.add_input(buffer("x", rows8));
  EXPECT_NE(message_of([&] { g.add_node("h", node({buffer("in", rows8)})); }).find("reads 'in'"), std::string::npos);
  EXPECT_NE(message_of([&] {
              g.add_node("h", node({buffer("x", rows8)}), {"x", "x"});
            }).find("1 inputs but 2"),
            std::string::npos);
  const auto f32 = layout::row_major(dtype::f32, {sym_expr::symbol("rows"), 8});
  EXPECT_NE(message_of([&] { g.add_node("h", node({buffer("x", f32)})); }).find("but the graph buffer is"),
            std::string::npos);
  // A node may not read a later node's output.
  EXPECT_THROW(g.add_node("h", node({buffer("later", rows8)})), invalid_argument_error);
  g.add_node("h", node({buffer("x", rows8)}));
  EXPECT_THROW(g.add_node("h", node({buffer("x", rows8)})), invalid_argument_error);  // repeated
  EXPECT_THROW(g.add_output("x"), invalid_argument_error);                            // an input
  g.add_output("h");
  EXPECT_THROW(g.add_output("h"), invalid_argument_error);  // twice
}

TEST(ModuleSource, HashIsTheSourcesXxh3) {
  module_source a;
  a.source = "int x;";
  module_source b = a;
  EXPECT_EQ(a.source_hash().size(), 16u);
  EXPECT_EQ(a.source_hash(), b.source_hash());
  b.source += "\n";
  EXPECT_NE(a.source_hash(), b.source_hash());
  EXPECT_TRUE(a.workspace.slots().empty());
}

TEST(ModuleOptions, Defaults) {
  const module_options o;
  EXPECT_TRUE(o.fuse_epilogues);
  EXPECT_TRUE(o.standalone_runner);
  EXPECT_EQ(o.workspace_alignment, 256u);
  EXPECT_TRUE(o.runner_sizes.empty());
  EXPECT_EQ(o.runner_iterations, 20);
}

TEST(ModuleBytes, IsTheStorageOfTheLayoutInGeneratedCode) {
  EXPECT_EQ(detail::module_impl::bytes_expr(buffer("x", rows8), "ok"),
            "rocmtpl_module_bytes(rocmtpl_size_mul(8, u_rows, &ok), rocmtpl_size_mul(8, u_rows, &ok), 2, &ok)");
  const buffer fixed("w", layout::row_major(dtype::f32, {4, 3}));
  EXPECT_EQ(detail::module_impl::bytes_expr(fixed, "ok"), "rocmtpl_module_bytes(12, 12, 4, &ok)");
}

}  // namespace

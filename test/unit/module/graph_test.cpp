// SPDX-License-Identifier: MIT
// The description of a module (rocmtpl/module/graph.hpp): module_graph's names, inputs, nodes and
// outputs and what it refuses; module_source's hash; the bytes of a buffer in generated code.
#include <rocmtpl/module/graph.hpp>

#include <gtest/gtest.h>

#include <string>
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

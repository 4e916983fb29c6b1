// SPDX-License-Identifier: MIT
// rocmtpl/module.hpp gathers module/: the graph, the planner, the emitter and the runner, and an
// emitted module's workspace follows its plan.
#include <rocmtpl/module.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;

const layout l = layout::row_major(dtype::f32, {sym_expr::symbol("n")});

// Y = X for any buffer names; its source is the same for every node.
rocm_template_buffer copy_node(const std::string& input) {
  make_kernel_render_fn make = [](const rocm_template_buffer& node, const std::vector<buffer>&) {
    auto kernel = std::make_shared<rocm_template_kernel>("KERNEL_NAME");
    const buffer out = node.output();
    const buffer in = node.inputs().front();
    return kernel_render{kernel, [kernel, in, out] {
                           (void)kernel->def_kernel({&in}, {&out}, "X, Y");
                           rendered_source s;
                           s.entry_name = kernel->kernel_name();
                           s.signature = kernel->args().signature();
                           s.entry_body = "    return 0;\n";
                           return s;
                         }};
  };
  return {buffer("buf_out", l), {buffer(input, l)}, make, 0, "copy"};
}

TEST(Module, TheGatheringHeaderGivesEveryPart) {
  module_graph g("pipeline");
  g.add_input(buffer("x", l));
  g.add_node("a", copy_node("x"));
  g.add_node("b", copy_node("a"));
  g.add_node("c", copy_node("b"));
  g.add_node("y", copy_node("c"));
  g.add_output("y");
  module_options o;
  o.runner_sizes = {{"n", 1000}};
  const module_source m = emit_module(g, o);
  // a (calls 0-1) and c (2-3) share a slot; b has its own.
  EXPECT_TRUE(m.workspace.share_slot("a", "c"));
  EXPECT_FALSE(m.workspace.share_slot("a", "b"));
  const workspace_sizes sizes = m.workspace.evaluate({{"n", 1000}}, m.workspace_alignment);
  EXPECT_EQ(sizes.offsets, (std::vector<std::size_t>{0, 4096}));  // 4000 bytes, aligned to 256
  EXPECT_NE(m.source.find("const size_t rocmtpl_slot1_offset = rocmtpl_module_add(rocmtpl_slot0_offset, "
                          "rocmtpl_slot0_bytes, &rocmtpl_sizes_ok);"),
            std::string::npos);
  EXPECT_NE(m.source.find("    int64_t u_n = 1000;\n"), std::string::npos);  // the runner, with its default
  // The runner alone, from the same description.
  indented_buffer runner;
  detail::module_impl::write_runner(runner, m, o);
  EXPECT_NE(m.source.find(runner.str()), std::string::npos);
}

}  // namespace

// SPDX-License-Identifier: MIT
// The module emitter (rocmtpl/module/emitter.hpp): includes hoisted out of kernels, the steps of
// emit_module (readers, intermediates, lifetimes, signature), and a module whose workspace follows
// plan_workspace(). The byte-exact output is in test/golden/module_golden_test.cpp.
#include <rocmtpl/module/emitter.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;
namespace impl = detail::module_impl;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const layout rows8 = layout::row_major(dtype::f16, {sym_expr::symbol("rows"), 8});

// Y = X, the same source for every node (so all share one kernel); refuses epilogues.
rocm_template_buffer copy_node(const std::string& input) {
  make_kernel_render_fn make = [](const rocm_template_buffer& node, const std::vector<buffer>&) {
    auto kernel = std::make_shared<rocm_template_kernel>("KERNEL_NAME");
    const buffer out = node.output();
    const buffer in = node.inputs().front();
    auto render = [kernel, in, out] {
      (void)kernel->def_kernel({&in}, {&out}, "X, Y");
      rendered_source s;
      s.includes = {"#include \"rocmtpl_hip_portable.h\"\n", "#include <cstring>\n"};
      s.entry_name = kernel->kernel_name();
      s.signature = kernel->args().signature();
      s.entry_body = "    return 0;\n";
      return s;
    };
    return kernel_render{kernel, render};
  };
  return {buffer("buf_out", rows8), {buffer(input, rows8)}, make, 0, "copy"};
}

// x -> h1 -> h2 -> h3 -> y
module_graph chain() {
  module_graph g("chain");
  g.add_input(buffer("x", rows8));
  g.add_node("h1", copy_node("x"));
  g.add_node("h2", copy_node("in"), {"h1"});
  g.add_node("h3", copy_node("in"), {"h2"});
  g.add_node("y", copy_node("in"), {"h3"});
  g.add_output("y");
  return g;
}

// The module is assembled from the kernels' parts: each include block and the globals once, each
// kernel's device code and static entry in its namespace, then the module's own entry with its
// packed twin and signature function, rendered from m.entry.
TEST(ModuleEmitter, KernelsAreAssembledFromTheirParts) {
  const auto m = emit_module(chain());
  ASSERT_EQ(m.kernels.size(), 1u);
  const auto& k = m.kernels[0];
  auto count = [&](const std::string& part) {
    std::size_t n = 0;
    for (auto at = m.source.find(part); at != std::string::npos; at = m.source.find(part, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("#define PT_EXPORT __attribute__"), 1u);
  EXPECT_EQ(count("#include <cstddef>\n"), 1u);  // the module's include block
  EXPECT_EQ(count("#include <cstring>\n"), 2u);  // the kernel's include block once, and the runner's
  // Each kernel's own code (its parts' kernel_text(): the symbol macro, the device code, the static
  // entry, the #undef), whole, in its namespace.
  EXPECT_EQ(k.parts.entry_name, k.name);
  EXPECT_EQ(k.parts.linkage, entry_linkage::internal);
  EXPECT_EQ(k.parts.signature.params, (std::vector<entry_param>{{"X", param_kind::tensor_in, "const uint16_t*"},
                                                                {"Y", param_kind::tensor_out, "uint16_t*"},
                                                                {"u_rows", param_kind::size, "int64_t"}}));
  EXPECT_TRUE(contains(
      m.source, "namespace " + k.name + "_ns {\n" + k.parts.kernel_text() + "}  // namespace " + k.name + "_ns\n"))
      << m.source;
  EXPECT_EQ(count("_packed("), 1u);  // the module's entry only: its kernels are internal
  EXPECT_EQ(m.entry.params.size(), 3u);
  EXPECT_EQ(m.entry.params[2], (entry_param{"u_rows", param_kind::size, "int64_t"}));
  EXPECT_EQ(m.signature, entry_declaration("chain", m.entry));
  EXPECT_TRUE(contains(m.source, packed_entry_text("chain", m.entry)));
}

TEST(ModuleEmitter, NodeReadersFollowGraphNames) {
  const auto g = chain();
  EXPECT_EQ(impl::node_readers(g, "x"), (std::vector<std::size_t>{0}));
  EXPECT_EQ(impl::node_readers(g, "h2"), (std::vector<std::size_t>{2}));
  EXPECT_TRUE(impl::node_readers(g, "y").empty());
}

TEST(ModuleEmitter, IntermediatesLiveFromTheirWriterToTheirLastReader) {
  const auto m = emit_module(chain());
  EXPECT_EQ(m.intermediates, (std::vector<std::string>{"h1", "h2", "h3"}));
  std::vector<buffer> intermediates;
  for (const auto& name : m.intermediates) intermediates.emplace_back(name, rows8);
  const auto lifetimes = impl::intermediate_lifetimes(m, intermediates);
  ASSERT_EQ(lifetimes.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(lifetimes[i].name, m.intermediates[i]);
    EXPECT_EQ(lifetimes[i].first_use, i);
    EXPECT_EQ(lifetimes[i].last_use, i + 1);
    EXPECT_EQ(lifetimes[i].bytes.evaluate({{"rows", 3}}), 3 * 8 * 2);
  }
}

TEST(ModuleEmitter, TheWorkspaceFollowsThePlan) {
  module_options o;
  o.standalone_runner = false;
  o.workspace_alignment = 64;
  const auto m = emit_module(chain(), o);
  ASSERT_EQ(m.workspace.slots().size(), 2u);
  EXPECT_TRUE(m.workspace.share_slot("h1", "h3"));
  EXPECT_EQ(m.workspace.evaluate({{"rows", 5}}, m.workspace_alignment).total, 2u * 128u);  // 80 bytes -> 128
  EXPECT_TRUE(contains(m.source, "// h1, h3\n"));
  EXPECT_TRUE(contains(m.source, "uint16_t* u_h3 = reinterpret_cast<uint16_t*>(workspace + rocmtpl_slot0_offset);"));
  EXPECT_TRUE(contains(m.source, "uint16_t* u_h2 = reinterpret_cast<uint16_t*>(workspace + rocmtpl_slot1_offset);"));
  EXPECT_TRUE(contains(m.source, "return (bytes + 63) / 64 * 64;"));
  EXPECT_FALSE(contains(m.source, "ROCMTPL_STANDALONE_RUNNER"));
}

TEST(ModuleEmitter, OneKernelOneEntryPointIncludesAtFileScope) {
  const auto m = emit_module(chain());
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.calls.size(), 4u);
  EXPECT_EQ(
      m.signature,
      "extern \"C\" PT_EXPORT int chain(const uint16_t* u_x, uint16_t* u_y, int64_t u_rows, size_t* workspace_size, "
      "uint8_t* workspace, hipStream_t stream)");
  EXPECT_EQ(m.size_args, (std::vector<std::string>{"rows"}));
  const auto include = m.source.find("#include <cstring>\n");
  ASSERT_NE(include, std::string::npos);
  EXPECT_LT(include, m.source.find("namespace " + m.kernels[0].name + "_ns {"));
  const auto runner = m.source.find("#ifdef ROCMTPL_STANDALONE_RUNNER");  // the runner includes it too
  EXPECT_GT(m.source.find("#include <cstring>", include + 1), runner);    // once in the module
  EXPECT_TRUE(contains(m.source, "if (u_rows < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_TRUE(contains(m.source, "#ifdef ROCMTPL_STANDALONE_RUNNER"));
  EXPECT_TRUE(m.notes.empty());  // copy nodes are no elementwise nodes: nothing was offered
}

// Issue 22 item 12: nodes named after runtime functions are renamed like every user name, so
// they cannot meet the runtime's declarations (test/runtime/compile/hygiene_compile_test.cpp
// compiles such names with hipcc).
TEST(ModuleEmitter, NodesNamedAfterRuntimeFunctionsAreRenamed) {
  module_graph g("runtime_names");
  g.add_input(buffer("free", rows8));
  g.add_node("hipMalloc", copy_node("in"), {"free"});
  g.add_node("malloc", copy_node("in"), {"hipMalloc"});
  g.add_output("malloc");
  const auto m = emit_module(g);
  EXPECT_EQ(m.signature,
            "extern \"C\" PT_EXPORT int runtime_names(const uint16_t* u_free, uint16_t* u_malloc, int64_t u_rows, "
            "size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
  EXPECT_TRUE(contains(m.source, "uint16_t* u_hipMalloc = reinterpret_cast<uint16_t*>(workspace + ")) << m.source;
}

TEST(ModuleEmitter, AModuleWithoutIntermediatesHasAnEmptyPlan) {
  module_graph g("single");
  g.add_input(buffer("x", rows8));
  g.add_node("y", copy_node("x"));
  g.add_output("y");
  const auto m = emit_module(g);
  EXPECT_TRUE(m.intermediates.empty());
  EXPECT_TRUE(m.workspace.slots().empty());
  EXPECT_EQ(m.workspace.evaluate({{"rows", 7}}).total, 0u);
  EXPECT_TRUE(contains(m.source, "const size_t rocmtpl_scratch_offset = 0;"));
  EXPECT_FALSE(contains(m.source, "rocmtpl_slot0"));
}

TEST(ModuleEmitter, RefusesBadOptionsAndGraphsWithoutOutputs) {
  module_options o;
  o.workspace_alignment = 48;
  EXPECT_THROW((void)emit_module(chain(), o), invalid_argument_error);
  module_graph none("none");
  none.add_input(buffer("x", rows8));
  none.add_node("h", copy_node("x"));
  EXPECT_THROW((void)emit_module(none), invalid_argument_error);
}

}  // namespace

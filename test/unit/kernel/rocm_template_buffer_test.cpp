// SPDX-License-Identifier: MIT
// rocmtpl/kernel/rocm_template_buffer.hpp: a chosen template's output node and its render closure.
#include <rocmtpl/kernel/rocm_template_buffer.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
using namespace rocmtpl;

const layout l = layout::row_major(dtype::f32, {sym_expr::symbol("M"), 4});

TEST(RocmTemplateBuffer, DescribesTheOutputAndInputs) {
  const rocm_template_buffer node(buffer("buf_out", l), {buffer("x", l), buffer("w", l)}, {}, 1024, "gemm");
  EXPECT_EQ(node.name(), "buf_out");
  EXPECT_EQ(node.output().name(), "buf_out");
  EXPECT_EQ(node.get_layout(), l);
  ASSERT_EQ(node.inputs().size(), 2u);
  EXPECT_EQ(node.inputs()[1].name(), "w");
  EXPECT_EQ(node.template_name(), "gemm");
  EXPECT_EQ(node.get_workspace_size(), 1024u);
}

TEST(RocmTemplateBuffer, UnknownWorkspaceIsZero) {
  const rocm_template_buffer node(buffer("buf_out", l), {}, {}, std::nullopt, "t");
  EXPECT_EQ(node.get_workspace_size(), 0u);
}

TEST(RocmTemplateBuffer, MakeKernelRenderPassesItselfAndTheEpilogues) {
  std::string seen;
  make_kernel_render_fn make = [&seen](const rocm_template_buffer& node, const std::vector<buffer>& epilogues) {
    seen = node.name() + ":" + std::to_string(epilogues.size());
    return kernel_render{nullptr, [] {
                           rendered_source s;
                           s.device_code = "rendered\n";
                           return s;
                         }};
  };
  const rocm_template_buffer node(buffer("buf_out", l), {}, make, 0, "t");
  auto r = node.make_kernel_render();
  EXPECT_EQ(seen, "buf_out:0");
  EXPECT_EQ(r.render().device_code, "rendered\n");
  (void)node.make_kernel_render({buffer("e1", l), buffer("e2", l)});
  EXPECT_EQ(seen, "buf_out:2");
}

TEST(RocmTemplateBuffer, CarriesTheWorkspaceExpression) {
  const sym_expr bytes = sym_expr(16) * sym_expr::symbol("M");
  const rocm_template_buffer node(buffer("buf_out", l), {}, {}, 160, "t", bytes);
  ASSERT_TRUE(node.workspace_bytes());
  EXPECT_EQ(*node.workspace_bytes(), bytes);
  EXPECT_EQ(node.get_workspace_size(), 160u);
  const rocm_template_buffer unknown(buffer("buf_out", l), {}, {}, 160, "t");
  EXPECT_FALSE(unknown.workspace_bytes());
}

TEST(RocmTemplateBuffer, WithoutARenderClosureItCannotBeRenderedAgain) {
  const rocm_template_buffer node(buffer("buf_out", l), {}, {}, 0, "gemm");
  EXPECT_FALSE(node.has_kernel_render());
  try {
    (void)node.make_kernel_render();
    FAIL() << "expected invalid_argument_error";
  } catch (const invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'buf_out' of template 'gemm' cannot be rendered again"),
              std::string::npos)
        << e.what();
  }
  make_kernel_render_fn make = [](const rocm_template_buffer&, const std::vector<buffer>&) { return kernel_render{}; };
  EXPECT_TRUE(rocm_template_buffer(buffer("buf_out", l), {}, make, 0, "t").has_kernel_render());
}

}  // namespace

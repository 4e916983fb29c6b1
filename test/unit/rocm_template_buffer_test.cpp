// SPDX-License-Identifier: MIT
// rocmtpl/rocm_template_buffer.hpp: a chosen template's output node and its render closure.
#include <rocmtpl/rocm_template_buffer.hpp>

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

}  // namespace

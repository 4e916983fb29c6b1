// SPDX-License-Identifier: MIT
// Modules: emitted sources compared with checked-in files in test/golden/expected/ (regenerate
// after an intended change with ROCMTPL_UPDATE_GOLDEN=1 and review the diff), and the structure
// of emitted modules: one exported entry point, static kernels, deduplication, workspace slots,
// fusion decisions, graph validation.
#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/templates/elementwise.hpp>

#include "support/golden.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {
using namespace rocmtpl;
using templates::activation;
using templates::elementwise_config;
using templates::elementwise_policy;
using templates::gemm_config;
using templates::gemm_policy;

using rocmtpl::test::check_golden;

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
  return n;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const sym_expr m_sym = sym_expr::symbol("M");

// gemm -> bias + gelu -> gemm, with a symbolic batch M: the three-node module of the issue.
module_graph mlp_graph() {
  const buffer x("x", layout::row_major(dtype::f32, {m_sym, 64}));
  const buffer w1("w1", layout::row_major(dtype::f32, {64, 96}));
  const buffer b1("b1", layout::row_major(dtype::f32, {96}));
  const buffer w2("w2", layout::row_major(dtype::f32, {96, 32}));
  const auto hidden = layout::row_major(dtype::f32, {m_sym, 96});
  const size_hints hints{{"M", 100}};
  rocm_template<gemm_policy> up(gemm_policy(), {x, w1}, hidden);
  rocm_template<elementwise_policy> act(elementwise_policy({activation::gelu}), {buffer("h", hidden), b1}, hidden);
  rocm_template<gemm_policy> down(gemm_policy(), {buffer("a", hidden), w2}, layout::row_major(dtype::f32, {m_sym, 32}));
  module_graph g("mlp");
  g.add_input(x).add_input(w1).add_input(b1).add_input(w2);
  g.add_node("h", up.generate(gemm_config{}, hints).output_node());
  g.add_node("a", act.generate(elementwise_config{}, hints).output_node());
  g.add_node("y", down.generate(gemm_config{}, hints).output_node());
  g.add_output("y");
  return g;
}

// A small test policy, Y = 2 * X on a [rows, 8] f16 matrix; its source names no buffer, so nodes
// of one shape share one kernel.
struct twice_config {
  int block = 64;
  friend bool operator==(const twice_config&, const twice_config&) = default;
};
inline std::vector<std::pair<std::string, std::string>> describe(const twice_config& c) {
  return {{"block", std::to_string(c.block)}};
}
struct twice_policy {
  using policy_concept = kernel_template_tag;
  using config_type = twice_config;
  static std::string_view name() { return "twice"; }
  std::vector<twice_config> configs() const { return {{64}}; }
  rendered_source render(rocm_template_kernel& k, const template_context& ctx, const twice_config& c) const {
    const buffer* x = ctx.input(0);
    (void)k.def_kernel({x}, {&ctx.output_node()}, "X, Y");
    rendered_source out = k.start_source(ctx);
    indented_buffer s;
    s.writeline("namespace {");
    s.writeline("__global__ void twice_kernel(const uint16_t* X, uint16_t* Y, int64_t n) {");
    s.writeline("    const int64_t i = static_cast<int64_t>(blockIdx.x) * " + std::to_string(c.block) +
                " + threadIdx.x;");
    s.writeline("    if (i < n) Y[i] = rocmtpl_dev::float_to_half_bits(2.0f * rocmtpl_dev::half_bits_to_float(X[i]));");
    s.writeline("}");
    s.writeline("}  // namespace");
    out.device_code = std::move(s).str();
    indented_buffer e;
    e.writeline("    if (workspace_size) { *workspace_size = 0; return ROCMTPL_STATUS_OK; }");
    e.writeline("    (void)workspace;");
    e.write_lines(k.check_not_null(x));
    e.writeline("    const int64_t n = " + k.size(x, 0, -1) + ";");
    e.writeline("    if (n == 0) return ROCMTPL_STATUS_OK;");
    e.writeline("    twice_kernel<<<dim3(static_cast<unsigned>((n + " + std::to_string(c.block - 1) + ") / " +
                std::to_string(c.block) + ")), dim3(" + std::to_string(c.block) + "), 0, stream>>>(X, Y, n);");
    e.writeline("    return hipGetLastError() == hipSuccess ? ROCMTPL_STATUS_OK : ROCMTPL_STATUS_LAUNCH_FAILED;");
    out.entry_body = std::move(e).str();
    return out;
  }
};
static_assert(kernel_template<twice_policy>);

rocm_template_buffer twice_node(const std::string& input) {
  const auto l = layout::row_major(dtype::f16, {sym_expr::symbol("rows"), 8});
  rocm_template<twice_policy> t(twice_policy{}, {buffer(input, l)}, l);
  return t.generate({64}, {{"rows", 4}}).output_node();
}

// x -> h1 -> h2 -> h3 -> y: one kernel called four times; h3 reuses h1's slot.
module_graph chain_graph() {
  module_graph g("chain");
  g.add_input(buffer("x", layout::row_major(dtype::f16, {sym_expr::symbol("rows"), 8})));
  g.add_node("h1", twice_node("in"), {"x"});
  g.add_node("h2", twice_node("in"), {"h1"});
  g.add_node("h3", twice_node("in"), {"h2"});
  g.add_node("y", twice_node("in"), {"h3"});
  g.add_output("y");
  return g;
}

TEST(ModuleGolden, MlpSymbolicF32WithRunner) {
  module_options o;
  o.runner_sizes = {{"M", 512}};
  const auto m = emit_module(mlp_graph(), o);
  check_golden("module_mlp_symbolic_f32.hip", m.source);
}

TEST(ModuleGolden, ChainDedupAndSlotReuse) {
  module_options o;
  o.standalone_runner = false;
  const auto m = emit_module(chain_graph(), o);
  check_golden("module_chain_f16.hip", m.source);
}

TEST(Module, OneExportedEntryPointAndStaticKernels) {
  const auto m = emit_module(mlp_graph());
  // Three exported definitions: the entry, its packed twin and its signature function (the first
  // line of the file only mentions the entry in a comment); the other extern "C" definitions are
  // the kernels' __global__ functions, named after their kernels.
  EXPECT_EQ(count(m.source, "\nextern \"C\" PT_EXPORT"), 3U);
  EXPECT_EQ(count(m.source, "\nextern \"C\""), 3U + count(m.source, "\nextern \"C\" __global__ void "));
  EXPECT_EQ(count(m.source, "\nextern \"C\" PT_EXPORT int mlp("), 1U);
  EXPECT_EQ(count(m.source, "\nextern \"C\" PT_EXPORT int mlp_packed(void* const* args,"), 1U);
  EXPECT_EQ(count(m.source, "\nextern \"C\" PT_EXPORT const char* mlp_signature(void)"), 1U);
  EXPECT_EQ(count(m.source, "PT_EXPORT int "), 3U);
  EXPECT_TRUE(contains(m.source, m.signature + " {"));
  EXPECT_EQ(m.signature,
            "extern \"C\" PT_EXPORT int mlp(const float* u_x, const float* u_w1, const float* u_b1, const float* u_w2, "
            "float* u_y, int64_t u_M, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
  ASSERT_EQ(m.kernels.size(), 3U);
  for (const auto& k : m.kernels) {
    EXPECT_TRUE(contains(m.source, "namespace " + k.name + "_ns {")) << k.name;
    EXPECT_TRUE(contains(m.source, "static int " + k.name + "(")) << k.name;
    // Its __global__ kernels are named through the device-symbol macro, defined from its name.
    EXPECT_EQ(count(m.source, "#define ROCMTPL_KERNEL_SYMBOL(suffix) " + k.name + "_##suffix\n"), 1U) << k.name;
    EXPECT_TRUE(contains(m.source, k.metadata_comment())) << k.name;
  }
  EXPECT_EQ(m.kernels[1].name, "rocm_fused_elementwise_1");
  EXPECT_EQ(m.size_args, (std::vector<std::string>{"M"}));
  EXPECT_EQ(m.intermediates, (std::vector<std::string>{"h", "a"}));
  // Includes stay at file scope, once each; the globals are written once.
  EXPECT_EQ(count(m.source, "#include \"rocmtpl_hip_portable.h\""), 1U);
  EXPECT_EQ(count(m.source, "#define PT_EXPORT __attribute__"), 1U);
  EXPECT_LT(m.source.find("#include \"rocmtpl_hip_portable.h\""), m.source.find("namespace rocm_fused_gemm_0_ns"));
  // The runner is there, behind its macro, and calls the module.
  EXPECT_TRUE(contains(m.source, "#ifdef ROCMTPL_STANDALONE_RUNNER\n"));
  EXPECT_TRUE(contains(m.source, "int main(int argc, char** argv) {"));
  EXPECT_TRUE(contains(m.source, "    int64_t u_M = -1;\n"));  // no default size: the runner asks for one
  EXPECT_EQ(emit_module(mlp_graph()).source, m.source);        // deterministic
}

// Issue 9 part 5: a module is assembled from its kernels' parts and never rewrites them. Each
// kernel's code in the module is exactly what its node renders (make_kernel_render, as the scheduler
// calls it) with only the entry's name and linkage set: nothing is renamed or replaced after
// rendering, and the kernels' device symbols still differ (two GEMMs in one translation unit).
TEST(Module, KernelTextIsTheRenderedPartsUnchanged) {
  const auto g = mlp_graph();
  const auto m = emit_module(g);
  ASSERT_EQ(m.kernels.size(), g.nodes().size());  // the epilogue is refused: one kernel per node
  for (std::size_t i = 0; i < m.kernels.size(); ++i) {
    const auto& k = m.kernels[i];
    auto [kernel, render] = g.nodes()[i].node.make_kernel_render({});
    rendered_source expected = render();
    expected.rename(k.name);
    expected.linkage = entry_linkage::internal;
    EXPECT_EQ(k.parts, expected) << k.name;
    const std::string ns = rocm_cpp_scheduling::kernel_namespace(k.name);
    const std::string block =
        k.metadata_comment() + "namespace " + ns + " {\n" + expected.kernel_text() + "}  // namespace " + ns + "\n";
    EXPECT_EQ(count(m.source, block), 1U) << k.name;
  }
  EXPECT_NE(m.kernels[0].name, m.kernels[2].name);
}

TEST(Module, GemmRefusesTheBiasGeluEpilogueAndTheModuleSaysWhy) {
  const auto m = emit_module(mlp_graph());
  ASSERT_EQ(m.notes.size(), 1U);
  EXPECT_TRUE(m.notes[0].starts_with("a (elementwise) not fused into h (gemm): ")) << m.notes[0];
  EXPECT_TRUE(contains(m.notes[0], "does not fuse epilogue nodes")) << m.notes[0];
  EXPECT_TRUE(contains(m.source, "// " + m.notes[0] + "\n"));
  module_options no_fusion;
  no_fusion.fuse_epilogues = false;
  EXPECT_TRUE(emit_module(mlp_graph(), no_fusion).notes.empty());
  EXPECT_EQ(emit_module(mlp_graph(), no_fusion).kernels.size(), 3U);
}

TEST(Module, SameSourceNodesShareAKernelAndDeadBuffersShareASlot) {
  module_options o;
  o.standalone_runner = false;
  const auto m = emit_module(chain_graph(), o);
  ASSERT_EQ(m.kernels.size(), 1U);
  EXPECT_EQ(m.kernels[0].name, "rocm_fused_twice_0");
  EXPECT_EQ(m.kernels[0].origins.size(), 4U);
  ASSERT_EQ(m.calls.size(), 4U);
  EXPECT_EQ(m.intermediates, (std::vector<std::string>{"h1", "h2", "h3"}));
  EXPECT_TRUE(contains(m.source,
                       "const size_t rocmtpl_slot0_bytes = rocmtpl_module_max(rocmtpl_module_align(rocmtpl_bytes_h1, "
                       "&rocmtpl_sizes_ok), rocmtpl_module_align(rocmtpl_bytes_h3, &rocmtpl_sizes_ok));  // h1, h3"))
      << m.source;
  EXPECT_TRUE(contains(m.source, "uint16_t* u_h3 = reinterpret_cast<uint16_t*>(workspace + rocmtpl_slot0_offset);"));
  EXPECT_TRUE(contains(m.source, "uint16_t* u_h2 = reinterpret_cast<uint16_t*>(workspace + rocmtpl_slot1_offset);"));
  EXPECT_FALSE(contains(m.source, "rocmtpl_slot2"));
  EXPECT_FALSE(contains(m.source, "ROCMTPL_STANDALONE_RUNNER"));
  EXPECT_EQ(m.size_args, (std::vector<std::string>{"rows"}));
}

// A template that fuses its elementwise consumer: one kernel, and the intermediate between the
// two nodes is never allocated.
rocm_template_buffer fusing_node(const layout& l) {
  make_kernel_render_fn make = [](const rocm_template_buffer& node, const std::vector<buffer>& epilogues) {
    auto kernel = std::make_shared<rocm_template_kernel>("KERNEL_NAME");
    const buffer target = epilogues.empty() ? node.output() : epilogues.back();
    const buffer input = node.inputs().front();
    auto render = [kernel, target, input] {
      (void)kernel->def_kernel({&input}, {&target}, "X, Y");
      rendered_source s;
      s.includes = {"#include \"rocmtpl_hip_portable.h\"\n"};
      s.entry_name = kernel->kernel_name();
      s.signature = kernel->args().signature();
      s.entry_body = "    return 0;\n";
      return s;
    };
    return kernel_render{kernel, render};
  };
  return {buffer("buf_out", l), {buffer("x", l)}, make, 0, "copy"};
}

TEST(Module, FusedEpilogueRemovesTheIntermediate) {
  const auto l = layout::row_major(dtype::f32, {m_sym, 16});
  rocm_template<elementwise_policy> relu(elementwise_policy({activation::relu}), {buffer("t", l)}, l);
  module_graph g("fused");
  g.add_input(buffer("x", l));
  g.add_node("t", fusing_node(l));
  g.add_node("y", relu.generate(elementwise_config{}, {{"M", 4}}).output_node());
  g.add_output("y");
  const auto m = emit_module(g);
  ASSERT_EQ(m.kernels.size(), 1U);
  EXPECT_EQ(m.kernels[0].name, "rocm_fused_copy_elementwise_0");
  ASSERT_EQ(m.notes.size(), 1U);
  EXPECT_EQ(m.notes[0], "y (elementwise) fused into t (copy)");
  EXPECT_TRUE(m.intermediates.empty());
  EXPECT_FALSE(contains(m.source, "rocmtpl_bytes_t"));
  EXPECT_TRUE(
      contains(m.source, "rocm_fused_copy_elementwise_0_ns::rocm_fused_copy_elementwise_0(u_x, u_y, u_M, nullptr,"));
}

TEST(Module, SymbolsOfIntermediatesBecomeArguments) {
  // The intermediate h is [cols, 8]: no input or output has the symbol cols.
  const auto rows = layout::row_major(dtype::f16, {sym_expr::symbol("rows"), 8});
  const auto cols = layout::row_major(dtype::f16, {sym_expr::symbol("cols"), 8});
  rocm_template<twice_policy> first(twice_policy{}, {buffer("x", rows)}, cols);
  rocm_template<twice_policy> second(twice_policy{}, {buffer("h", cols)}, rows);
  const size_hints hints{{"rows", 2}, {"cols", 2}};
  module_graph g("sym");
  g.add_input(buffer("x", rows));
  g.add_node("h", first.generate({64}, hints).output_node());
  g.add_node("y", second.generate({64}, hints).output_node());
  g.add_output("y");
  const auto m = emit_module(g);
  EXPECT_EQ(m.size_args, (std::vector<std::string>{"rows", "cols"}));
  EXPECT_TRUE(contains(m.signature,
                       "(const uint16_t* u_x, uint16_t* u_y, int64_t u_rows, int64_t u_cols, size_t* workspace_size"))
      << m.signature;
  EXPECT_TRUE(contains(m.source, "if (u_cols < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
}

TEST(ModuleGraph, RejectsBadGraphs) {
  const auto l = layout::row_major(dtype::f16, {sym_expr::symbol("rows"), 8});
  module_graph g("chain");
  g.add_input(buffer("x", l));
  EXPECT_THROW(g.add_input(buffer("x", l)), invalid_argument_error);                    // repeated
  EXPECT_THROW(g.add_input(buffer("workspace", l)), invalid_argument_error);            // reserved
  EXPECT_THROW(g.add_input(buffer("rocmtpl_tmp", l)), invalid_argument_error);          // reserved prefix
  EXPECT_THROW(g.add_input(buffer("chain", l)), invalid_argument_error);                // the module name
  EXPECT_THROW(g.add_node("h", twice_node("nope")), invalid_argument_error);            // unknown input
  EXPECT_THROW(g.add_node("h", twice_node("in"), {"x", "x"}), invalid_argument_error);  // two names for one input
  EXPECT_THROW(g.add_output("x"), invalid_argument_error);                              // not a node output
  try {
    g.add_node("h", twice_node("x"), {});
    const auto other = layout::row_major(dtype::f32, {sym_expr::symbol("rows"), 8});
    rocm_template<elementwise_policy> e(elementwise_policy(), {buffer("h", other)}, other);
    g.add_node("z", e.generate(elementwise_config{}, {{"rows", 2}}).output_node());
    FAIL() << "a layout mismatch must be rejected";
  } catch (const invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "reads 'h' as float32[rows, 8]")) << e.what();
  }
  EXPECT_THROW(g.add_node("h", twice_node("x")), invalid_argument_error);  // h exists
  EXPECT_THROW((void)emit_module(g), invalid_argument_error);              // no outputs
  g.add_output("h");
  EXPECT_THROW(g.add_output("h"), invalid_argument_error);
  EXPECT_NO_THROW((void)emit_module(g));
  module_options bad;
  bad.workspace_alignment = 48;
  EXPECT_THROW((void)emit_module(g, bad), invalid_argument_error);
  EXPECT_THROW(module_graph("main"), invalid_argument_error);
  EXPECT_THROW(module_graph("2fast"), invalid_argument_error);
}

TEST(ModuleGraph, SizeSymbolNamedLikeABufferIsRejected) {
  const auto l = layout::row_major(dtype::f16, {sym_expr::symbol("h"), 8});
  rocm_template<twice_policy> t(twice_policy{}, {buffer("x", l)}, l);
  module_graph g("clash");
  g.add_input(buffer("x", l));
  g.add_node("h", t.generate({64}, {{"h", 2}}).output_node());
  g.add_output("h");
  EXPECT_THROW((void)emit_module(g), invalid_argument_error);
}

}  // namespace

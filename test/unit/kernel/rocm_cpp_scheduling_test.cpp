// SPDX-License-Identifier: MIT
// rocm_cpp_scheduling: kernel naming and deduplication, codegen_template with and without epilogue
// fusion, the emitted calls; elementwise_policy, the kernel an unfused epilogue becomes.
#include <rocmtpl/kernel/rocm_cpp_scheduling.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/templates/elementwise.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
using namespace rocmtpl;
using templates::activation;
using templates::elementwise_config;
using templates::elementwise_policy;
using templates::gemm_config;
using templates::gemm_policy;

// Parts as make_kernel_render() produces them: the entry named KERNEL_NAME, `body` as device code.
rendered_source placeholder_source(const std::string& body) {
  rendered_source s;
  s.includes = {"#include <cstdint>\n"};
  s.device_code = "// " + body + "\n";
  s.entry_name = "KERNEL_NAME";
  s.signature.params = {{"X", param_kind::tensor_in, "const float*"}, {"Y", param_kind::tensor_out, "float*"}};
  s.entry_body = "    return 0;\n";
  return s;
}

const sym_expr m_sym = sym_expr::symbol("M");

rocm_template_buffer gemm_node(const std::string& x, const std::string& w, std::int64_t k = 64, std::int64_t n = 32) {
  rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer(x, layout::row_major(dtype::f32, {m_sym, k})), buffer(w, layout::row_major(dtype::f32, {k, n}))},
      layout::row_major(dtype::f32, {m_sym, n}));
  return t.generate(gemm_config{}, {{"M", 128}}).output_node();
}

rocm_template_buffer bias_gelu_node(const std::string& x, const std::string& bias, std::int64_t n = 32) {
  rocm_template<elementwise_policy> t(
      elementwise_policy({activation::gelu}),
      {buffer(x, layout::row_major(dtype::f32, {m_sym, n})), buffer(bias, layout::row_major(dtype::f32, {n}))},
      layout::row_major(dtype::f32, {m_sym, n}));
  return t.generate(elementwise_config{}, {{"M", 128}}).output_node();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RocmCppScheduling, SameSourceDefinesOneKernel) {
  rocm_cpp_scheduling sched;
  const auto src = placeholder_source("one");
  const auto first = sched.define_kernel(src, {{"h", "gemm"}});
  const auto second = sched.define_kernel(src, {{"y", "gemm"}});
  EXPECT_EQ(first, "rocm_fused_gemm_0");
  EXPECT_EQ(second, first);
  ASSERT_EQ(sched.kernels().size(), 1U);
  const auto& def = sched.kernels().front();
  EXPECT_EQ(def.origins, (std::vector<kernel_origin>{{"h", "gemm"}, {"y", "gemm"}}));
  EXPECT_TRUE(contains(def.metadata_comment(), "// Topologically Sorted Source Nodes: [h, y], Original ops: [gemm]\n"))
      << def.metadata_comment();
  EXPECT_TRUE(contains(def.metadata_comment(), "//   y => gemm\n"));
  EXPECT_TRUE(contains(def.metadata_comment(), "source hash " + def.source_hash));
  EXPECT_EQ(def.source_hash, detail::hash_hex(def.source));
  // The next new kernel continues the counter: the reused one took no number.
  EXPECT_EQ(sched.define_kernel(placeholder_source("two"), {{"z", "gemm"}}), "rocm_fused_gemm_1");
}

TEST(RocmCppScheduling, DifferentSourcesGetDifferentNames) {
  rocm_cpp_scheduling sched;
  const auto a = sched.define_kernel(placeholder_source("a"), {{"h", "gemm"}});
  const auto b = sched.define_kernel(placeholder_source("b"), {{"y", "gemm"}});
  EXPECT_NE(a, b);
  ASSERT_EQ(sched.kernels().size(), 2U);
  for (const auto& k : sched.kernels()) {
    EXPECT_EQ(k.parts.entry_name, k.name);
    EXPECT_EQ(k.parts.linkage, entry_linkage::exported);
    EXPECT_EQ(k.source, k.parts.str());
    EXPECT_FALSE(contains(k.source, "KERNEL_NAME")) << k.source;
  }
  EXPECT_NE(sched.kernels()[0].source_hash, sched.kernels()[1].source_hash);
}

// The names depend only on the sequence of definitions: a fresh scheduler fed the same nodes gives
// the same names and sources, however many choices were generated in between (the choice counter
// is process-wide, the kernel counter is per scheduler).
TEST(RocmCppScheduling, NamesAreStableAcrossRuns) {
  auto run = [] {
    rocm_cpp_scheduling sched;
    (void)sched.codegen_template({"h", gemm_node("x", "w1")});
    (void)sched.codegen_template({"a", bias_gelu_node("h", "b1")});
    (void)sched.codegen_template({"y", gemm_node("a", "w2", 32, 16)});
    (void)sched.codegen_template({"z", gemm_node("x", "w1")});
    std::vector<std::string> out;
    for (const auto& k : sched.kernels()) out.push_back(k.name + "\n" + k.source);
    out.push_back(sched.wrapper_code().str());
    return out;
  };
  const auto first = run();
  (void)gemm_node("unrelated", "choices");  // moves the process-wide choice counter
  const auto second = run();
  EXPECT_EQ(first, second);
  ASSERT_EQ(first.size(), 4U);  // h and z share a kernel: 3 kernels + the wrapper
  EXPECT_EQ(first[0].substr(0, first[0].find('\n')), "rocm_fused_gemm_0");
  EXPECT_EQ(first[1].substr(0, first[1].find('\n')), "rocm_fused_elementwise_1");
  EXPECT_EQ(first[2].substr(0, first[2].find('\n')), "rocm_fused_gemm_2");
}

TEST(RocmCppScheduling, NameListsSortedUniqueOrigins) {
  rocm_cpp_scheduling sched;
  EXPECT_EQ(sched.define_kernel(placeholder_source("a"), {{"h", "gemm"}, {"a", "bias+gelu"}, {"y", "gemm"}}),
            "rocm_fused_bias_gelu_gemm_0");
  EXPECT_EQ(sched.define_kernel(placeholder_source("b"), {}), "rocm_1");
  rocm_cpp_scheduling plain({entry_linkage::exported, /*descriptive_names=*/false});
  EXPECT_EQ(plain.define_kernel(placeholder_source("a"), {{"h", "gemm"}}), "rocm_0");
  EXPECT_EQ(rocm_cpp_scheduling::fused_kernel_name({{"n", "mm"}, {"m", "addmm"}, {"o", "mm"}}), "fused_addmm_mm");
}

// Naming sets the parts' entry name: the generated text is never searched for it, so the
// placeholder spelt as a whole word elsewhere (here in a comment of the device code) stays as it was.
TEST(RocmCppScheduling, NamingSetsTheEntryNameNotTheText) {
  rocm_cpp_scheduling sched;
  const auto name = sched.define_kernel(placeholder_source("MY_KERNEL_NAME KERNEL_NAMES KERNEL_NAME"), {{"h", "op"}});
  const auto& def = sched.kernels().front();
  EXPECT_EQ(def.parts.entry_name, name);
  EXPECT_EQ(def.parts.device_code, "// MY_KERNEL_NAME KERNEL_NAMES KERNEL_NAME\n");
  EXPECT_EQ(def.source, def.parts.str());
  EXPECT_EQ(def.parts.signature, placeholder_source("").signature);
  EXPECT_EQ(def.parts.linkage, entry_linkage::exported);
  // The packed twin and the signature function follow the name.
  EXPECT_TRUE(contains(def.source, packed_entry_text(name, def.parts.signature))) << def.source;
}

// The kernel's device symbols (its extern "C" __global__ kernels) are spelt through the
// device-symbol macro, which the parts define from the entry's name around the kernel's code: the
// symbols follow the kernel's name (kernels of one module never share one) while the device code
// and the entry body stay byte for byte as rendered.
TEST(RocmCppScheduling, DeviceSymbolsFollowTheKernelNameThroughTheMacro) {
  rocm_cpp_scheduling sched;
  auto parts = placeholder_source("KERNEL_NAME_v8_8 MY_KERNEL_NAME_v1 KERNEL_NAME");
  parts.device_code += "extern \"C\" __global__ void " + device_symbol_ref("v8_8") + "(const float* X, float* Y) {}\n";
  parts.entry_body = "    " + device_symbol_ref("v8_8") + "<<<1, 1>>>(X, Y);\n    return 0;\n";
  const auto first = sched.define_kernel(parts, {{"h", "op"}});
  const auto& def = sched.kernels().front();
  EXPECT_EQ(def.parts.device_code, parts.device_code);
  EXPECT_EQ(def.parts.entry_body, parts.entry_body);
  const std::string define = "#define ROCMTPL_KERNEL_SYMBOL(suffix) " + first + "_##suffix\n";
  EXPECT_TRUE(contains(def.source, define + parts.device_code)) << def.source;
  EXPECT_TRUE(contains(def.source, "#undef ROCMTPL_KERNEL_SYMBOL\n")) << def.source;
  auto other = parts;
  other.device_code += "// another kernel\n";
  const auto second = sched.define_kernel(other, {{"g", "op"}});
  ASSERT_NE(first, second);
  EXPECT_TRUE(
      contains(sched.kernels().back().source, "#define ROCMTPL_KERNEL_SYMBOL(suffix) " + second + "_##suffix\n"));
  EXPECT_EQ(sched.kernels().back().parts.device_code, other.device_code);
}

// Issue 9 part 5: nothing rewrites generated text after rendering. A definition's parts are the
// template's rendering with only the entry's name and linkage set (the same node rendered again gives
// them back field by field), and its source is those parts assembled.
TEST(RocmCppScheduling, DefinitionsAreTheRenderedPartsUnchanged) {
  rocm_cpp_scheduling sched({entry_linkage::internal, true});
  const scheduler_node node{"h", gemm_node("x", "w1")};
  (void)sched.codegen_template(node);
  (void)sched.codegen_template({"a", bias_gelu_node("h", "b1")});
  ASSERT_EQ(sched.kernels().size(), 2U);
  const auto& def = sched.kernels().front();
  auto [kernel, render] = node.node.make_kernel_render({});
  const rendered_source fresh = render();
  EXPECT_EQ(fresh.entry_name, "KERNEL_NAME");
  EXPECT_EQ(def.parts.includes, fresh.includes);
  EXPECT_EQ(def.parts.globals, fresh.globals);
  EXPECT_EQ(def.parts.device_code, fresh.device_code);
  EXPECT_EQ(def.parts.entry_body, fresh.entry_body);
  EXPECT_EQ(def.parts.signature, fresh.signature);
  auto named = fresh;
  named.rename(def.name);
  named.linkage = entry_linkage::internal;
  EXPECT_EQ(def.parts, named);
  EXPECT_EQ(def.source, named.str());
  // The launch description the parts carry names the final symbols.
  ASSERT_TRUE(def.parts.launch);
  EXPECT_EQ(def.parts.launch->kernel_name, def.name);
  const auto bound = bind(*def.parts.launch, {128}, {});
  EXPECT_EQ(bound.variants.at(0).launches.at(0).symbol, def.name + "_v4_4");
  EXPECT_TRUE(contains(def.source, "#define ROCMTPL_KERNEL_SYMBOL(suffix) " + def.name + "_##suffix\n"));
  // The rendered device code names no kernel: its symbols go through the macro.
  EXPECT_TRUE(contains(fresh.device_code, "ROCMTPL_KERNEL_SYMBOL(v")) << fresh.device_code;
  for (const auto& k : sched.kernels()) {
    EXPECT_FALSE(contains(k.parts.device_code, k.name)) << k.name;
    EXPECT_FALSE(contains(k.parts.entry_body, k.name)) << k.name;
    EXPECT_FALSE(contains(k.parts.device_code, "KERNEL_NAME")) << k.name;
  }
}

// Deduplication compares the parts with the entry's name and linkage set aside: parts that were
// already named (the definition's own) find the same kernel.
TEST(RocmCppScheduling, DedupIsKeyedOnThePartsWithoutTheEntryName) {
  rocm_cpp_scheduling sched;
  const auto src = placeholder_source("k");
  const auto name = sched.define_kernel(src, {{"h", "op"}});
  EXPECT_EQ(sched.kernel_for_source(src), name);
  EXPECT_EQ(sched.kernel_for_source(sched.kernels().front().parts), name);
  EXPECT_EQ(sched.kernel_for_source(placeholder_source("other")), std::nullopt);
  EXPECT_EQ(sched.define_kernel(sched.kernels().front().parts, {{"y", "op"}}), name);
  EXPECT_EQ(sched.kernels().size(), 1U);
  auto other_signature = src;
  other_signature.signature.params.pop_back();
  EXPECT_NE(sched.define_kernel(other_signature, {{"z", "op"}}), name);
}

TEST(RocmCppScheduling, InternalLinkageMakesTheEntryPointStatic) {
  rocm_cpp_scheduling sched({entry_linkage::internal, true});
  const auto name = sched.define_kernel(placeholder_source("k"), {{"h", "gemm"}});
  const auto& def = sched.kernels().front();
  EXPECT_EQ(def.parts.linkage, entry_linkage::internal);
  EXPECT_EQ(def.parts.entry_name, name);
  EXPECT_EQ(def.parts.signature, placeholder_source("k").signature);
  EXPECT_EQ(def.source, def.parts.str());
  EXPECT_FALSE(contains(def.source, "extern \"C\"")) << def.source;
  EXPECT_FALSE(contains(def.source, "_packed")) << def.source;  // the module exports its own
  EXPECT_EQ(rocm_cpp_scheduling::kernel_namespace(name), name + "_ns");
}

TEST(RocmCppScheduling, CodegenTemplateDefinesAndCallsTheKernel) {
  rocm_cpp_scheduling sched;
  const auto r = sched.codegen_template({"h", gemm_node("x", "w1")});
  EXPECT_EQ(r.kernel_name, "rocm_fused_gemm_0");
  EXPECT_EQ(r.origins, (std::vector<kernel_origin>{{"h", "gemm"}}));
  ASSERT_TRUE(r.kernel);
  EXPECT_EQ(r.kernel->kernel_name(), "KERNEL_NAME");
  ASSERT_EQ(sched.kernels().size(), 1U);
  const auto& def = sched.kernels()[0];
  EXPECT_EQ(def.parts.entry_name, "rocm_fused_gemm_0");
  EXPECT_EQ(def.parts.linkage, entry_linkage::exported);
  EXPECT_EQ(def.parts.signature.params, (std::vector<entry_param>{{"X", param_kind::tensor_in, "const float*"},
                                                                  {"W", param_kind::tensor_in, "const float*"},
                                                                  {"Y", param_kind::tensor_out, "float*"},
                                                                  {"u_M", param_kind::size, "int64_t"}}));
  EXPECT_EQ(def.source, def.parts.str());
  ASSERT_EQ(sched.calls().size(), 1U);
  const auto& call = sched.calls()[0];
  EXPECT_EQ(call.callee, "rocm_fused_gemm_0");
  EXPECT_EQ(call.input_buffers, (std::vector<std::string>{"x", "w1"}));
  EXPECT_EQ(call.output_buffers, (std::vector<std::string>{"h"}));
  EXPECT_EQ(call.size_args, (std::vector<std::string>{"M"}));
  const auto& query = sched.query_code().str();
  const auto& wrapper = sched.wrapper_code().str();
  // The GEMM describes its workspace (none without split-K): no query call at run time.
  EXPECT_TRUE(contains(query, "const size_t rocmtpl_call0_workspace = 0;")) << query;
  EXPECT_FALSE(contains(query, "rocm_fused_gemm_0(")) << query;
  EXPECT_TRUE(
      contains(query, "rocmtpl_scratch_bytes = rocmtpl_module_max(rocmtpl_scratch_bytes, rocmtpl_call0_workspace);"));
  EXPECT_TRUE(contains(wrapper, "uint8_t* rocmtpl_call_workspace = nullptr;")) << wrapper;
  EXPECT_TRUE(contains(wrapper, "rocm_fused_gemm_0(u_x, u_w1, u_h, u_M, nullptr, rocmtpl_call_workspace, stream);"))
      << wrapper;
  EXPECT_TRUE(contains(wrapper, "if (rocmtpl_status != ROCMTPL_STATUS_OK) return rocmtpl_status;"));
}

TEST(RocmCppScheduling, SameTemplateTwiceSharesOneKernelWithItsOwnArguments) {
  rocm_cpp_scheduling sched({entry_linkage::internal, true});
  scheduler_node first{"h", gemm_node("x", "w1"), {}};
  // The same template (so the same source), bound to other graph buffers.
  scheduler_node second{"y", gemm_node("x", "w1"), {{"x", "h2"}, {"w1", "w2"}}};
  const auto a = sched.codegen_template(first);
  const auto b = sched.codegen_template(second);
  EXPECT_EQ(a.kernel_name, b.kernel_name);
  EXPECT_EQ(sched.kernels().size(), 1U);
  ASSERT_EQ(sched.calls().size(), 2U);
  EXPECT_EQ(sched.calls()[1].input_buffers, (std::vector<std::string>{"h2", "w2"}));
  EXPECT_EQ(sched.calls()[1].output_buffers, (std::vector<std::string>{"y"}));
  EXPECT_EQ(sched.calls()[1].callee, "rocm_fused_gemm_0_ns::rocm_fused_gemm_0");
  EXPECT_TRUE(
      contains(sched.wrapper_code().str(), "rocm_fused_gemm_0_ns::rocm_fused_gemm_0(u_h2, u_w2, u_y, u_M, nullptr"));
  EXPECT_TRUE(contains(sched.query_code().str(), "const size_t rocmtpl_call1_workspace = 0;"));
}

// Runtime split-K: the workspace depends on M; the scheduler computes it from the size symbols with
// checked arithmetic and allocates it from the scratch region around the call.
TEST(RocmCppScheduling, SplitKWorkspaceIsComputedFromTheSizes) {
  rocm_template<gemm_policy> t(
      gemm_policy({.runtime_split_k = true}),
      {buffer("x", layout::row_major(dtype::f32, {m_sym, 64})), buffer("w", layout::row_major(dtype::f32, {64, 32}))},
      layout::row_major(dtype::f32, {m_sym, 32}));
  const gemm_config c = gemm_config{}.with_split_k(4);
  auto caller = t.generate(c, {{"M", 100}});
  const auto node = caller.output_node();
  const sym_expr expected = sym_expr(4 * 32 * 4) * m_sym;  // split_k * N * sizeof(float) * M
  ASSERT_TRUE(node.workspace_bytes());
  EXPECT_EQ(*node.workspace_bytes(), expected);
  EXPECT_EQ(node.get_workspace_size(), 4U * 100 * 32 * sizeof(float));
  rocm_cpp_scheduling sched;
  (void)sched.codegen_template({"h", node});
  const auto query = sched.query_code().str();
  const std::string text = expected.to_string(), checked = expected.to_cpp_checked("rocmtpl_ok");
  EXPECT_TRUE(contains(query, "workspace " + text + " bytes, known at code generation")) << query;
  EXPECT_TRUE(contains(query, "const int64_t rocmtpl_bytes = " + checked + ";")) << query;
  EXPECT_TRUE(contains(query, "if (!rocmtpl_ok || rocmtpl_bytes < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_FALSE(contains(query, "&rocmtpl_call0_workspace")) << query;  // no run-time query
  EXPECT_TRUE(contains(
      sched.wrapper_code().str(),
      "uint8_t* rocmtpl_call_workspace = rocmtpl_call0_workspace > 0 ? workspace + rocmtpl_scratch_offset : nullptr;"));
}

// A node whose workspace expression uses a symbol the kernel does not take cannot be called.
TEST(RocmCppScheduling, WorkspaceOfOtherSymbolsIsRefused) {
  const buffer x("x", layout::row_major(dtype::f32, {m_sym}));
  make_kernel_render_fn make = [](const rocm_template_buffer& node, const std::vector<buffer>&) {
    auto kernel = std::make_shared<rocm_template_kernel>("KERNEL_NAME");
    auto render = [kernel, node] {
      (void)kernel->def_kernel({&node.inputs().front()}, {&node.output()}, "X, Y");
      rendered_source s;
      s.entry_name = kernel->kernel_name();
      s.signature = kernel->args().signature();
      s.entry_body = "    return 0;\n";
      return s;
    };
    return kernel_render{kernel, render};
  };
  rocm_cpp_scheduling sched;
  const rocm_template_buffer bad(buffer("buf_out", x.get_layout()), {x}, make, 8, "t", sym_expr::symbol("Q") * 2);
  try {
    (void)sched.codegen_template({"y", bad});
    FAIL() << "expected invalid_argument_error";
  } catch (const invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "uses 'Q', which is not one of its size arguments [M]")) << e.what();
  }
  const rocm_template_buffer good(buffer("buf_out", x.get_layout()), {x}, make, 8, "t", m_sym * 2);
  (void)sched.codegen_template({"y", good});
  EXPECT_TRUE(contains(sched.query_code().str(), "workspace 2*M bytes")) << sched.query_code().str();
}

TEST(RocmCppScheduling, GroupFnMultipliesEachList) {
  const sym_expr n = sym_expr::symbol("N");
  const auto g = rocm_cpp_scheduling::group_fn({{m_sym, n, 2}, {}, {n, n}});
  ASSERT_EQ(g.size(), 3U);
  EXPECT_EQ(g[0], sym_expr(2) * m_sym * n);
  EXPECT_EQ(g[1], sym_expr(1));  // the empty product: a template's rnumel
  EXPECT_EQ(g[2], n * n);
  EXPECT_TRUE(rocm_cpp_scheduling::group_fn({}).empty());
}

// A node is a ROCm C++ template when it can be rendered again; a reference choice cannot, and
// codegen_template() refuses it with a typed error instead of calling an empty function.
TEST(RocmCppScheduling, OnlyRenderableNodesAreRocmCppTemplates) {
  const scheduler_node gemm{"h", gemm_node("x", "w1"), {}};
  EXPECT_TRUE(rocm_cpp_scheduling::is_rocm_cpp_template(gemm));
  rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f32, {8, 8})), buffer("w", layout::row_major(dtype::f32, {8, 8}))},
      layout::row_major(dtype::f32, {8, 8}));
  const scheduler_node reference{"r", t.generate_reference().output_node(), {}};
  EXPECT_FALSE(rocm_cpp_scheduling::is_rocm_cpp_template(reference));
  rocm_cpp_scheduling sched;
  try {
    (void)sched.codegen_template(reference);
    FAIL() << "expected invalid_argument_error";
  } catch (const invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "node 'r' of template 'gemm' cannot be rendered again")) << e.what();
  }
  EXPECT_TRUE(sched.calls().empty());
}

TEST(RocmCppScheduling, CallFollowsTheInputReorder) {
  rocm_template<gemm_policy> addmm(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f32, {64, 32})), buffer("w", layout::row_major(dtype::f32, {32, 16})),
       buffer("bias", layout::row_major(dtype::f32, {16}))},
      layout::row_major(dtype::f32, {64, 16}), std::vector<int>{2, 0, 1});
  rocm_cpp_scheduling sched;
  (void)sched.codegen_template({"y", addmm.generate(gemm_config{}).output_node()});
  ASSERT_EQ(sched.calls().size(), 1U);
  EXPECT_EQ(sched.calls()[0].input_buffers, (std::vector<std::string>{"bias", "x", "w"}));
  EXPECT_TRUE(sched.calls()[0].size_args.empty());
  EXPECT_TRUE(
      contains(sched.wrapper_code().str(), "(u_bias, u_x, u_w, u_y, nullptr, rocmtpl_call_workspace, stream);"));
}

TEST(RocmCppScheduling, GemmRefusesEpiloguesAndSaysWhy) {
  rocm_cpp_scheduling sched;
  const scheduler_node gemm{"h", gemm_node("x", "w1"), {}};
  const scheduler_node epilogue{"a", bias_gelu_node("h", "b1"), {}};
  const auto decision = sched.can_fuse_epilogues(gemm, {epilogue});
  EXPECT_FALSE(decision);
  EXPECT_TRUE(contains(decision.reason, "does not fuse epilogue nodes")) << decision.reason;
  EXPECT_TRUE(sched.can_fuse_epilogues(gemm, {}));
  try {
    (void)sched.codegen_template(gemm, {epilogue});
    FAIL() << "expected a fusion_error";
  } catch (const fusion_error& e) {
    EXPECT_EQ(e.template_name(), "gemm");
    EXPECT_EQ(e.node(), "h");
    EXPECT_EQ(e.epilogues(), (std::vector<std::string>{"a"}));
    EXPECT_EQ(e.reason(), decision.reason);
    EXPECT_TRUE(contains(e.what(), "template 'gemm' of node 'h' does not fuse epilogue nodes [a]")) << e.what();
  }
  // Nothing was defined or emitted.
  EXPECT_TRUE(sched.kernels().empty());
  EXPECT_TRUE(sched.calls().empty());
  EXPECT_EQ(sched.wrapper_code().str(), "");
  EXPECT_EQ(sched.query_code().str(), "");
}

// A template that fuses epilogues: it writes the last epilogue's output instead of its own.
rocm_template_buffer fusing_node() {
  const buffer x("x", layout::row_major(dtype::f32, {m_sym}));
  const buffer out("buf_out", layout::row_major(dtype::f32, {m_sym}));
  make_kernel_render_fn make = [](const rocm_template_buffer& node, const std::vector<buffer>& epilogues) {
    auto kernel = std::make_shared<rocm_template_kernel>("KERNEL_NAME");
    const buffer target = epilogues.empty() ? node.output() : epilogues.back();
    const buffer input = node.inputs().front();
    auto render = [kernel, target, input, fused = epilogues.size()] {
      (void)kernel->def_kernel({&input}, {&target}, "X, Y");
      rendered_source s;
      s.device_code = "// scale with " + std::to_string(fused) + " fused epilogue(s)\n";
      s.entry_name = kernel->kernel_name();
      s.signature = kernel->args().signature();
      s.entry_body = "    return 0;\n";
      return s;
    };
    return kernel_render{kernel, render};
  };
  return {out, {x}, make, 0, "scale"};
}

TEST(RocmCppScheduling, TemplateThatFusesGetsOneKernelForBothNodes) {
  rocm_cpp_scheduling sched;
  const scheduler_node node{"h", fusing_node(), {}};
  rocm_template<elementwise_policy> act(elementwise_policy({activation::relu}),
                                        {buffer("h", layout::row_major(dtype::f32, {m_sym, 1}))},
                                        layout::row_major(dtype::f32, {m_sym, 1}));
  const scheduler_node epilogue{"a", act.generate(elementwise_config{}, {{"M", 8}}).output_node(), {}};
  EXPECT_TRUE(sched.can_fuse_epilogues(node, {epilogue}));
  const auto r = sched.codegen_template(node, {epilogue});
  EXPECT_EQ(r.kernel_name, "rocm_fused_elementwise_scale_0");
  EXPECT_EQ(r.origins, (std::vector<kernel_origin>{{"h", "scale"}, {"a", "elementwise"}}));
  ASSERT_EQ(sched.calls().size(), 1U);
  EXPECT_EQ(sched.calls()[0].input_buffers, (std::vector<std::string>{"x"}));
  EXPECT_EQ(sched.calls()[0].output_buffers, (std::vector<std::string>{"a"}));  // h is never written
  EXPECT_EQ(sched.kernels()[0].parts.device_code, "// scale with 1 fused epilogue(s)\n");
  EXPECT_TRUE(contains(sched.wrapper_code().str(), "// h = scale, a = elementwise (x): rocm_fused_elementwise_scale_0"))
      << sched.wrapper_code().str();
}

// A policy with a runtime argument: its value is passed as a typed literal.
struct split_config {
  int split = 2;
  friend bool operator==(const split_config&, const split_config&) = default;
};
inline std::vector<std::pair<std::string, std::string>> describe(const split_config& c) {
  return {{"split", std::to_string(c.split)}};
}
struct split_policy {
  using policy_concept = kernel_template_tag;
  using config_type = split_config;
  static constexpr kernel_capabilities capabilities{.runtime_args = true};
  static std::string_view name() { return "split"; }
  std::vector<split_config> configs() const { return {{2}, {4}}; }
  std::vector<arg_info> runtime_arg_info() const { return {{"split", "int32_t"}}; }
  std::vector<runtime_arg_value> runtime_arg_values(const split_config& c) const { return {c.split}; }
  rendered_source render(rocm_template_kernel& k, const template_context& ctx, const split_config&) const {
    (void)k.def_kernel({ctx.input(0)}, {&ctx.output_node()}, "X, Y");
    auto s = k.start_source(ctx);
    s.entry_body = "    return 0;\n";
    return s;
  }
};

TEST(RocmCppScheduling, RuntimeArgumentValuesArePassedAsTypedLiterals) {
  const auto l = layout::row_major(dtype::f32, {m_sym});
  rocm_template<split_policy> t(split_policy{}, {buffer("x", l)}, l);
  rocm_cpp_scheduling sched;
  (void)sched.codegen_template({"y", t.generate({4}, {{"M", 8}}).output_node()});
  ASSERT_EQ(sched.calls().size(), 1U);
  EXPECT_EQ(sched.calls()[0].runtime_args, (std::vector<runtime_arg_value>{4}));
  EXPECT_TRUE(contains(sched.wrapper_code().str(),
                       "(u_x, u_y, u_M, static_cast<int32_t>(4), nullptr, rocmtpl_call_workspace, stream);"))
      << sched.wrapper_code().str();
  EXPECT_TRUE(
      contains(sched.query_code().str(), "(nullptr, nullptr, u_M, static_cast<int32_t>(4), &rocmtpl_call0_workspace,"));
}

TEST(ElementwisePolicy, RendersBiasAndActivation) {
  rocm_template<elementwise_policy> t(
      elementwise_policy({activation::gelu}),
      {buffer("h", layout::row_major(dtype::f16, {m_sym, 96})), buffer("b", layout::row_major(dtype::f16, {96}))},
      layout::row_major(dtype::bf16, {m_sym, 96}));
  const auto caller = t.generate(elementwise_config{128}, {{"M", 10}});
  const auto& src = caller.source();
  EXPECT_EQ(caller.bmreq().kernel_name, "rocm_elementwise");
  EXPECT_EQ(caller.bmreq().signature.params,
            (std::vector<entry_param>{{"X", param_kind::tensor_in, "const uint16_t*"},
                                      {"Bias", param_kind::tensor_in, "const uint16_t*"},
                                      {"Y", param_kind::tensor_out, "uint16_t*"},
                                      {"u_M", param_kind::size, "int64_t"}}));
  EXPECT_TRUE(contains(src, "constexpr int block_threads = 128;"));
  EXPECT_TRUE(contains(src, "rocmtpl_dev::gelu(v)"));
  EXPECT_TRUE(contains(src, "const int64_t bias_stride_m = 0;"));
  EXPECT_TRUE(contains(
      src, "v += rocmtpl_dev::half_bits_to_float(Bias[bias_offset + gm * bias_stride_m + gn * bias_stride_n]);"));
  EXPECT_TRUE(contains(src, "= rocmtpl_dev::float_to_bf16_bits(apply_activation(v));"));
  EXPECT_TRUE(contains(src, "if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  EXPECT_EQ(t.policy().configs().size(), 3U);
}

TEST(ElementwisePolicy, RejectsProblemsItCannotRun) {
  const auto ok = layout::row_major(dtype::f32, {8, 4});
  auto render = [](std::vector<buffer> inputs, layout out, elementwise_config c = {}) {
    rocm_template<elementwise_policy> t(elementwise_policy(), std::move(inputs), std::move(out));
    return t.generate(c).source();
  };
  EXPECT_NO_THROW((void)render({buffer("x", ok), buffer("b", layout::row_major(dtype::f32, {8, 4}))}, ok));
  EXPECT_THROW((void)render({buffer("x", layout::row_major(dtype::f32, {32}))}, layout::row_major(dtype::f32, {32})),
               invalid_argument_error);
  EXPECT_THROW((void)render({buffer("x", ok), buffer("b", layout::row_major(dtype::f32, {8}))}, ok),
               invalid_argument_error);  // bias must be [N] = [4]
  EXPECT_THROW((void)render({buffer("x", ok)}, layout::row_major(dtype::f32, {4, 8})), invalid_argument_error);
  EXPECT_THROW((void)render({buffer("x", layout::row_major(dtype::i32, {8, 4}))}, ok), invalid_argument_error);
  EXPECT_THROW((void)render({buffer("x", ok)}, ok, {100}), invalid_argument_error);
}

}  // namespace

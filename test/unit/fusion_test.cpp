// SPDX-License-Identifier: MIT
// Epilogue fusion through the scheduler (issue 12): pointwise nodes carry their chain; the GEMM fuses
// them on every path (store_output for SIMT, mma, MFMA and the split-K reduction; the Hopper
// path's staged rows), the fused intermediate leaves the module's workspace, call_kernel maps the
// epilogue's buffers to graph names, and refusals say why (module notes, the scheduler's report).
#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_template.hpp>

#include "support/fusion.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;
namespace fu = rocmtpl::test::fusion;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (auto at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

TEST(Fusion, PointwiseNodesCarryTheirChain) {
  const fu::gemm_problem p;
  const auto g = fu::chain_module("m", p, {fu::bias_gelu_mul()}, dtype::f16);
  ASSERT_EQ(g.nodes().size(), 2U);
  EXPECT_FALSE(g.nodes()[0].node.pointwise().has_value());
  EXPECT_TRUE(g.nodes()[0].node.has_fused_render());
  ASSERT_TRUE(g.nodes()[1].node.pointwise().has_value());
  EXPECT_EQ(*g.nodes()[1].node.pointwise(), fu::bias_gelu_mul());
  EXPECT_FALSE(g.nodes()[1].node.has_fused_render());  // pointwise_policy does not fuse epilogues itself
}

TEST(Fusion, ModuleFusesTheChainAndDropsTheIntermediate) {
  const fu::gemm_problem p;
  const auto fused = fu::emit_chain_module("m", p, {fu::bias_gelu_mul()}, dtype::f16, true);
  ASSERT_EQ(fused.notes.size(), 1U);
  EXPECT_EQ(fused.notes[0],
            "y (pointwise) fused into h (gemm): cast(float16) -> add(in0 row_vector) -> gelu -> mul(in1 full)");
  ASSERT_EQ(fused.kernels.size(), 1U);
  ASSERT_EQ(fused.calls.size(), 1U);
  // call_kernel maps the epilogue's buffers back to the graph's names.
  EXPECT_EQ(fused.calls[0].input_buffers, (std::vector<std::string>{"x", "w", "bias", "d"}));
  EXPECT_EQ(fused.calls[0].output_buffers, (std::vector<std::string>{"y"}));
  EXPECT_TRUE(fused.intermediates.empty());
  EXPECT_TRUE(fused.workspace.slots().empty());
  EXPECT_FALSE(fused.workspace.find("h").has_value());
  EXPECT_TRUE(contains(fused.source, "v = rocmtpl_epilogue(t.epi, batch, gm, gn, v);"));
  EXPECT_EQ(fused.kernels[0].fused_epilogue, "y: cast(float16) -> add(in0 row_vector) -> gelu -> mul(in1 full)");

  const auto unfused = fu::emit_chain_module("m", p, {fu::bias_gelu_mul()}, dtype::f16, false);
  EXPECT_EQ(unfused.kernels.size(), 2U);
  EXPECT_EQ(unfused.intermediates, (std::vector<std::string>{"h"}));
  EXPECT_TRUE(unfused.workspace.find("h").has_value());
  EXPECT_TRUE(unfused.notes.empty());
}

TEST(Fusion, RunOfPointwiseNodesFusesWithRoundingWhereTheyStore) {
  const fu::gemm_problem p;
  const epilogue_chain add{{epilogue_op::add(0, epilogue_broadcast::row_vector)}};
  const epilogue_chain gelu{{epilogue_op::activation(activation::gelu)}};
  const epilogue_chain mul{{epilogue_op::mul(0, epilogue_broadcast::full)}};
  const auto m = fu::emit_chain_module("m", p, {add, gelu, mul}, dtype::f32, true);
  ASSERT_EQ(m.notes.size(), 1U);
  EXPECT_EQ(m.notes[0],
            "e0 (pointwise), e1 (pointwise), y (pointwise) fused into h (gemm): cast(float16) -> add(in0 "
            "row_vector) -> cast(float16) -> gelu -> cast(float16) -> mul(in1 full)");
  EXPECT_EQ(m.calls.size(), 1U);
  EXPECT_TRUE(m.intermediates.empty());
  EXPECT_EQ(m.calls[0].input_buffers, (std::vector<std::string>{"x", "w", "bias", "d"}));
}

TEST(Fusion, AnOperandTwoNodesReadIsPassedOnce) {
  const fu::gemm_problem p;
  const epilogue_chain add{{epilogue_op::add(0, epilogue_broadcast::row_vector)}};
  const epilogue_chain mul{{epilogue_op::mul(0, epilogue_broadcast::row_vector)}};
  const auto m = fu::emit_chain_module("m", p, {add, mul}, dtype::f16, true);
  ASSERT_EQ(m.calls.size(), 1U);
  EXPECT_EQ(m.calls[0].input_buffers, (std::vector<std::string>{"x", "w", "bias"}));
  ASSERT_EQ(m.notes.size(), 1U);
  EXPECT_TRUE(m.notes[0].ends_with("add(in0 row_vector) -> cast(float16) -> mul(in0 row_vector)")) << m.notes[0];
}

TEST(Fusion, EveryMathPathCallsTheSameEpilogueFunction) {
  for (int split : {1, 4}) {
    fu::gemm_problem p;
    std::tie(p.config, p.options) = fu::simt_config(split);
    const auto m = fu::emit_chain_module("m", p, {fu::bias_gelu_mul()}, dtype::f16, true);
    EXPECT_EQ(m.calls.size(), 1U) << split;
    EXPECT_TRUE(contains(m.source, "v = rocmtpl_epilogue(t.epi, batch, gm, gn, v);"));
    if (split > 1) {
      EXPECT_TRUE(contains(m.source, "store_output(p, t, idx / mn, rest / p.n_size, rest % p.n_size, sum)"));
    }
  }
  fu::gemm_problem mma;
  mma.config = fu::mma_config();
  const auto m2 = fu::emit_chain_module("m", mma, {fu::bias_gelu_mul()}, dtype::f16, true);
  EXPECT_EQ(m2.calls.size(), 1U);
  EXPECT_TRUE(contains(m2.source, "v = rocmtpl_epilogue(t.epi, batch, gm, gn, v);"));
  fu::gemm_problem mma_split = mma;
  mma_split.config = mma_split.config.with_split_k(2);
  mma_split.options.runtime_split_k = true;
  const auto m4 = fu::emit_chain_module("m", mma_split, {fu::bias_gelu_mul()}, dtype::f16, true);
  EXPECT_EQ(m4.calls.size(), 1U);
  EXPECT_TRUE(contains(m4.source, "gemm_split_k_reduce_body("));
  fu::gemm_problem hopper;
  hopper.config = fu::hopper_config();
  hopper.n = sym_expr(256);
  const auto m3 = fu::emit_chain_module("m", hopper, {fu::bias_gelu_mul()}, dtype::f16, true);
  ASSERT_EQ(m3.calls.size(), 1U) << (m3.notes.empty() ? "" : m3.notes[0]);
  EXPECT_TRUE(contains(m3.source, "#define ROCMTPL_GEMM_SM90_HAS_EPILOGUE 1"));
  // Skinny (matrix-vector) paths: each result goes through store_output(); with static K slices
  // the kernel stores fp32 partials and the shared reduction applies the chain once, after the sum.
  for (int split : {1, 4}) {
    for (auto side : {templates::skinny_side::m, templates::skinny_side::n}) {
      fu::gemm_problem sk;
      auto c = *fu::skinny_config(split).get_if<templates::skinny_config>();
      c.side = side;
      sk.config = c;
      const auto ms = fu::emit_chain_module("m", sk, {fu::bias_gelu_mul()}, dtype::f16, true);
      ASSERT_EQ(ms.calls.size(), 1U) << (ms.notes.empty() ? "" : ms.notes[0]);
      EXPECT_TRUE(contains(ms.source, "skinny_mainloop<")) << split;
      EXPECT_TRUE(contains(ms.source, "v = rocmtpl_epilogue(t.epi, batch, gm, gn, v);")) << split;
      EXPECT_EQ(count(ms.source, "rocmtpl_epilogue(t.epi"), 1U) << "only store_output() applies the chain";
      EXPECT_EQ(contains(ms.source, "gemm_split_k_reduce_body("), split > 1) << split;
    }
  }
  // The skinny matrix-core kernel (issue 10) too: its K warps' sums and K slices reach the chain
  // only through store_output() (here in the shared reduction, after the sum).
  fu::gemm_problem skm;
  skm.config = fu::skinny_mma_config(4);
  const auto mm = fu::emit_chain_module("m", skm, {fu::bias_gelu_mul()}, dtype::f16, true);
  ASSERT_EQ(mm.calls.size(), 1U) << (mm.notes.empty() ? "" : mm.notes[0]);
  EXPECT_TRUE(contains(mm.source, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
  EXPECT_EQ(count(mm.source, "rocmtpl_epilogue(t.epi"), 1U) << "only store_output() applies the chain";
  EXPECT_TRUE(contains(mm.source, "gemm_split_k_reduce_body("));
  // A batch folded into M is split back out of the row for the chain's operands; the Hopper epilogue
  // applies the chain's vector form (issue 12: 8 columns of a row at a time).
  EXPECT_TRUE(contains(m3.source, "r[it] = rocmtpl_epilogue_row_at(t.epi, b, g - b * rows);"));
  EXPECT_TRUE(contains(m3.source, "rocmtpl_epilogue8(cr.r[it], ec, cur.s[it], ev);"));
  EXPECT_FALSE(contains(m3.source, "gemm_split_k_reduce_body("));
  // Hopper split-K: the consumers store fp32 partials (no chain there); the shared reduction applies
  // the chain once, after the sum, through store_output(). The chain is called in exactly two places:
  // the Hopper epilogue (split_k 1 at run time, vector form) and store_output() (scalar form).
  fu::gemm_problem hopper_split = hopper;
  hopper_split.config = hopper_split.config.with_split_k(3);
  hopper_split.options.runtime_split_k = true;
  const auto m5 = fu::emit_chain_module("m", hopper_split, {fu::bias_gelu_mul()}, dtype::f16, true);
  ASSERT_EQ(m5.calls.size(), 1U) << (m5.notes.empty() ? "" : m5.notes[0]);
  EXPECT_TRUE(contains(m5.source, "gemm_sm90::mainloop(&map_X, &map_W, p, t, split_k);"));
  EXPECT_TRUE(contains(m5.source, "gemm_split_k_reduce_body("));
  EXPECT_TRUE(contains(m5.source, "v = rocmtpl_epilogue(t.epi, batch, gm, gn, v);"));
  EXPECT_EQ(count(m5.source, "rocmtpl_epilogue(t.epi"), 1U);
  EXPECT_EQ(count(m5.source, "rocmtpl_epilogue8(cr.r[it]"), 1U);
  const auto partial = m5.source.find("void store_partial_m64(");
  ASSERT_NE(partial, std::string::npos);
  const auto partial_end = m5.source.find("\n}\n", partial);
  EXPECT_EQ(m5.source.substr(partial, partial_end - partial).find("rocmtpl_epilogue"), std::string::npos);
}

TEST(Fusion, EveryGpuTestPathFusesEveryOp) {
  // What test/gpu/fusion_gpu_test.cpp runs renders here: one kernel fused; unfused, the GEMM and one
  // kernel per chain.
  for (const auto& c : fu::gpu_paths()) {
    const auto fused = fu::emit_chain_module("f", c.p, fu::every_op(), c.p.type, true);
    EXPECT_EQ(fused.calls.size(), 1U) << c.name << ": " << (fused.notes.empty() ? "" : fused.notes[0]);
    EXPECT_TRUE(fused.intermediates.empty()) << c.name;
    const auto unfused = fu::emit_chain_module("u", c.p, fu::every_op(), c.p.type, false);
    EXPECT_EQ(unfused.calls.size(), fu::every_op().size() + 1) << c.name;
    EXPECT_EQ(unfused.intermediates.size(), fu::every_op().size()) << c.name;
  }
}

TEST(Fusion, RefusalsKeepTwoKernelsAndSayWhy) {
  // The Hopper path stages Y in the GEMM's dtype: a float32 epilogue output is refused.
  fu::gemm_problem hopper;
  hopper.config = fu::hopper_config();
  hopper.n = sym_expr(256);
  const auto m = fu::emit_chain_module("m", hopper, {fu::bias_gelu_mul()}, dtype::f32, true);
  ASSERT_EQ(m.notes.size(), 1U);
  EXPECT_TRUE(m.notes[0].starts_with("y (pointwise) not fused into h (gemm): ")) << m.notes[0];
  EXPECT_TRUE(contains(m.notes[0], "must have the GEMM's output dtype")) << m.notes[0];
  EXPECT_EQ(m.calls.size(), 2U);
  EXPECT_EQ(m.intermediates, (std::vector<std::string>{"h"}));
  EXPECT_TRUE(contains(m.source, "// y (pointwise) not fused into h (gemm): "));
}

TEST(Fusion, SchedulerReportsDecisionsAndRefusesTemplatesWithoutTheCapability) {
  const fu::gemm_problem p;
  const auto g = fu::chain_module("m", p, {fu::bias_gelu_mul()}, dtype::f16);
  rocm_cpp_scheduling sched;
  (void)sched.codegen_template(g.nodes()[0], {g.nodes()[1]});
  ASSERT_EQ(sched.fusion_report().size(), 1U);
  const auto& r = sched.fusion_report()[0];
  EXPECT_TRUE(r.fused);
  EXPECT_EQ(r.to_string(), "y fused into h (gemm): cast(float16) -> add(in0 row_vector) -> gelu -> mul(in1 full)");
  EXPECT_TRUE(contains(sched.kernels()[0].metadata_comment(), "// Fused epilogue: y: cast(float16)"));

  // A pointwise template as the producer: it does not declare kernel_capabilities::epilogue.
  const epilogue_chain relu{{epilogue_op::activation(activation::relu)}};
  const auto l = layout::row_major(dtype::f32, {8, 8});
  rocm_template<templates::pointwise_policy> first(templates::pointwise_policy(relu), {buffer("a", l)}, l);
  rocm_template<templates::pointwise_policy> second(templates::pointwise_policy(relu), {buffer("b", l)}, l);
  const scheduler_node a{"b", first.generate({}).output_node(), {}};
  const scheduler_node b{"c", second.generate({}).output_node(), {}};
  const auto decision = sched.can_fuse_epilogues(a, {b});
  EXPECT_FALSE(decision.fused);
  EXPECT_TRUE(contains(decision.reason, "does not declare kernel_capabilities::epilogue")) << decision.reason;
  EXPECT_THROW((void)sched.codegen_template(a, {b}), fusion_error);
  ASSERT_EQ(sched.fusion_report().size(), 2U);
  EXPECT_FALSE(sched.fusion_report()[1].fused);
  EXPECT_TRUE(contains(sched.fusion_report()[1].to_string(), "c not fused into b (pointwise): "))
      << sched.fusion_report()[1].to_string();
}

TEST(Fusion, BufferOnlyTemplateRefusesNodesThatCarryChains) {
  // A template that renders epilogues from their buffers alone would write them without their
  // chains: pointwise nodes are refused before it is asked.
  const fu::gemm_problem p;
  const auto g = fu::chain_module("m", p, {fu::bias_gelu_mul()}, dtype::f16);
  bool asked = false;
  make_kernel_render_fn make = [&asked](const rocm_template_buffer&, const std::vector<buffer>&) -> kernel_render {
    asked = true;
    throw invalid_argument_error("unreachable");
  };
  const auto& h = g.nodes()[0].node;
  const scheduler_node copy{"h", rocm_template_buffer(h.output(), h.inputs(), make, 0, "copy"), {}};
  rocm_cpp_scheduling sched;
  const auto d = sched.can_fuse_epilogues(copy, {g.nodes()[1]});
  EXPECT_FALSE(d.fused);
  EXPECT_FALSE(asked);
  EXPECT_TRUE(contains(d.reason, "does not fuse epilogue nodes that carry pointwise chains")) << d.reason;
}

TEST(Fusion, EpilogueReadingTheIntermediateIsNotFused) {
  // y = h * h: the chain's operand is the intermediate fusion would remove.
  const fu::gemm_problem p;
  const auto h = layout::row_major(p.type, {p.m, p.n});
  const buffer x("x", layout::row_major(p.type, {p.m, p.k}));
  const buffer w("w", layout::row_major(p.type, {p.k, p.n}));
  module_graph g("sq");
  g.add_input(x).add_input(w);
  rocm_template<templates::gemm_policy> gemm(templates::gemm_policy(), {x, w}, h);
  g.add_node("h", gemm.generate(p.config, p.hints).output_node());
  const epilogue_chain sq{{epilogue_op::mul(0, epilogue_broadcast::full)}};
  rocm_template<templates::pointwise_policy> pw(templates::pointwise_policy(sq), {buffer("v", h), buffer("o", h)}, h);
  g.add_node("y", pw.generate({}, p.hints).output_node(), {"h", "h"});
  g.add_output("y");
  const auto m = emit_module(g);
  ASSERT_EQ(m.notes.size(), 1U);
  EXPECT_TRUE(contains(m.notes[0], "y (pointwise) not fused into h (gemm): ")) << m.notes[0];
  EXPECT_TRUE(contains(m.notes[0], "reads 'h' as an operand, which fusion removes")) << m.notes[0];
  EXPECT_EQ(m.calls.size(), 2U);
  rocm_cpp_scheduling sched;
  const auto d = sched.can_fuse_epilogues(g.nodes()[0], {g.nodes()[1]});
  EXPECT_FALSE(d.fused);
  EXPECT_TRUE(contains(d.reason, "reads 'h' as an operand, which fusion removes")) << d.reason;
}

TEST(Fusion, ReferenceAppliesTheSameChain) {
  const fu::gemm_problem p;
  const auto h = layout::row_major(p.type, {p.m, p.n});
  const buffer x("x", layout::row_major(p.type, {p.m, p.k}));
  const buffer w("w", layout::row_major(p.type, {p.k, p.n}));
  fused_epilogue e;
  e.chain = fu::bias_gelu_mul();
  e.inputs = {buffer("rocmtpl_epilogue_in0", layout::row_major(dtype::f32, {p.n})), buffer("rocmtpl_epilogue_in1", h)};
  e.output = buffer("rocmtpl_epilogue_out", h);
  rocm_template<templates::gemm_policy> t(templates::gemm_policy(), {x, w}, h);
  rocm_template_kernel k("ref");
  const auto parts = t.policy().render_epilogue_reference(k, t.context(), e);
  const auto src = parts.str();
  EXPECT_TRUE(contains(src, "r = rocmtpl_epilogue(rocmtpl_epilogue_make(E0, E1, u_M), b, gm, gn, r);")) << src;
  EXPECT_TRUE(contains(src, "// Fused epilogue: add(in0 row_vector) -> gelu -> mul(in1 full)"));
  EXPECT_EQ(parts.signature.params, (std::vector<entry_param>{{"X", param_kind::tensor_in, "const uint16_t*"},
                                                              {"W", param_kind::tensor_in, "const uint16_t*"},
                                                              {"E0", param_kind::tensor_in, "const float*"},
                                                              {"E1", param_kind::tensor_in, "const uint16_t*"},
                                                              {"Y", param_kind::tensor_out, "uint16_t*"},
                                                              {"u_M", param_kind::size, "int64_t"}}));
  // Device-only form: an extern "C" kernel under its described symbol, launched from the description
  // with the chain's operands between the GEMM's inputs and Y.
  EXPECT_TRUE(contains(src, "extern \"C\" __global__ void __launch_bounds__(256) ROCMTPL_KERNEL_SYMBOL(reference)("))
      << src;
  ASSERT_TRUE(parts.launch.has_value());
  ASSERT_EQ(parts.launch->variants.size(), 1U);
  ASSERT_EQ(parts.launch->variants.front().launches.size(), 1U);
  const auto& l = parts.launch->variants.front().launches.front();
  EXPECT_EQ(device_symbol(*parts.launch, l), "ref_reference");
  std::vector<std::string> names;
  for (const auto& prm : l.params) names.push_back(prm.name);
  EXPECT_EQ(names, (std::vector<std::string>{"X", "W", "E0", "E1", "Y", "u_M"}));
  ASSERT_EQ(l.params.size(), 6U);
  EXPECT_EQ(l.params[2].index, 2U);  // E0 is the entry's third tensor
  EXPECT_EQ(l.params[4].index, 4U);  // Y after E1
  EXPECT_TRUE(contains(parts.entry_body, "hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(reference), ")) << parts.entry_body;
}

}  // namespace

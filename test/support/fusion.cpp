// SPDX-License-Identifier: MIT
#include "support/fusion.hpp"

namespace rocmtpl::test::fusion {

buffer operand(const gemm_problem& p, epilogue_broadcast b) {
  switch (b) {
    case epilogue_broadcast::row_vector: return buffer("bias", layout::row_major(dtype::f32, {p.n}));
    case epilogue_broadcast::column_vector: return buffer("rscale", layout::row_major(dtype::f32, {p.m}));
    case epilogue_broadcast::full: break;
  }
  return buffer("d", layout::row_major(p.type, {p.m, p.n}));
}

epilogue_chain bias_gelu_mul() {
  return {{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::activation(activation::gelu),
           epilogue_op::mul(1, epilogue_broadcast::full)}};
}

std::vector<std::pair<std::string, epilogue_chain>> every_op_chains() {
  using b = epilogue_broadcast;
  using a = activation;
  return {
      {"bias_gelu_mul", bias_gelu_mul()},
      {"sub_column_relu", {{epilogue_op::sub(0, b::column_vector), epilogue_op::activation(a::relu)}}},
      {"scale_silu_add_full",
       {{epilogue_op::scale(0.75F), epilogue_op::activation(a::silu), epilogue_op::add(0, b::full)}}},
      {"mul_row_sigmoid", {{epilogue_op::mul(0, b::row_vector), epilogue_op::activation(a::sigmoid)}}},
      {"cast_bf16_tanh_mul_column",
       {{epilogue_op::cast(dtype::bf16), epilogue_op::activation(a::tanh), epilogue_op::mul(0, b::column_vector)}}},
      {"scale_gelu_tanh_add_row",
       {{epilogue_op::scale(1.5F), epilogue_op::activation(a::gelu_tanh), epilogue_op::add(0, b::row_vector)}}},
  };
}

std::vector<buffer> chain_operands(const gemm_problem& p, const epilogue_chain& c) {
  std::vector<buffer> out(c.input_count(), operand(p, epilogue_broadcast::full));
  for (const auto& o : c.ops) {
    if (o.has_input()) out[o.input] = operand(p, o.broadcast);
  }
  return out;
}

module_graph chain_module(const std::string& name, const gemm_problem& p, const std::vector<epilogue_chain>& chains,
                          dtype out) {
  const buffer x("x", layout::row_major(p.type, {p.m, p.k}));
  const buffer w("w", layout::row_major(p.type, {p.k, p.n}));
  const auto h = layout::row_major(p.type, {p.m, p.n});
  module_graph g(name);
  g.add_input(x).add_input(w);
  std::vector<std::string> inputs{"x", "w"};
  for (const auto& c : chains) {
    for (const auto& b : chain_operands(p, c)) {
      if (std::find(inputs.begin(), inputs.end(), b.name()) == inputs.end()) {
        g.add_input(b);
        inputs.push_back(b.name());
      }
    }
  }
  rocm_template<templates::gemm_policy> gemm(templates::gemm_policy(p.options), {x, w}, h);
  g.add_node("h", gemm.generate(p.config, p.hints).output_node());
  std::string prev = "h";
  layout prev_layout = h;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    const bool last = i + 1 == chains.size();
    const std::string node = last ? "y" : rocmtpl::detail::indexed_name("e", i);
    const auto ops = chain_operands(p, chains[i]);
    std::vector<buffer> tin{buffer("value", prev_layout)};
    std::vector<std::string> names{prev};
    for (std::size_t j = 0; j < ops.size(); ++j) {
      tin.emplace_back(rocmtpl::detail::indexed_name("operand", j), ops[j].get_layout());
      names.push_back(ops[j].name());
    }
    const auto out_layout = layout::row_major(last ? out : p.type, {p.m, p.n});
    rocm_template<templates::pointwise_policy> pw(templates::pointwise_policy(chains[i]), tin, out_layout);
    g.add_node(node, pw.generate(templates::elementwise_config{}, p.hints).output_node(), names);
    prev = node;
    prev_layout = out_layout;
  }
  g.add_output("y");
  return g;
}

module_source emit_chain_module(const std::string& name, const gemm_problem& p,
                                const std::vector<epilogue_chain>& chains, dtype out, bool fuse, bool runner) {
  module_options o;
  o.fuse_epilogues = fuse;
  o.standalone_runner = runner;
  o.runner_sizes = p.hints;
  return emit_module(chain_module(name, p, chains, out), o);
}

templates::gemm_config mma_config() {
  return templates::mma_config{.block_m = 64, .block_n = 64, .block_k = 32, .warp_m = 32, .warp_n = 32, .stages = 3};
}

templates::gemm_config hopper_config() { return templates::wgmma_config{.block_m = 128, .block_n = 128, .stages = 4}; }

std::pair<templates::gemm_config, templates::gemm_options> simt_config(int split) {
  templates::gemm_options o;
  o.runtime_split_k = split > 1;
  return {templates::simt_config{.split_k = split}, o};
}

templates::gemm_config skinny_config(int split) {
  return templates::skinny_config{.side = templates::skinny_side::m,
                                  .rows = 4,
                                  .k_threads = 8,
                                  .p_threads = 32,
                                  .p_units = 1,
                                  .k_step = 8,
                                  .vector = 8,
                                  .split_k = split};
}

templates::gemm_config skinny_mma_config(int split) {
  return templates::skinny_mma_config{
      .side = templates::skinny_side::m, .rows = 8, .k_warps = 2, .p_warps = 1, .k_step = 8, .split_k = split};
}

std::vector<epilogue_chain> every_op() {
  std::vector<epilogue_chain> out;
  for (const auto& [name, c] : every_op_chains()) out.push_back(c);
  return out;
}

std::vector<path_case> gpu_paths() {
  std::vector<path_case> out;
  gemm_problem simt;
  simt.type = dtype::f32;
  simt.n = sym_expr(96);
  simt.k = sym_expr(128);
  out.push_back({"simt_f32", simt});
  std::tie(simt.config, simt.options) = simt_config(3);
  out.push_back({"simt_f32_split_k", simt});
  for (dtype t : {dtype::f16, dtype::bf16}) {
    gemm_problem mc;
    mc.type = t;
    mc.config = mma_config();
    mc.n = sym_expr(96);
    mc.k = sym_expr(128);
    out.push_back({"mma_" + std::string(name(t)), mc});
  }
  gemm_problem mcs;
  mcs.config = mma_config();
  mcs.config = mcs.config.with_split_k(2);
  mcs.options.runtime_split_k = true;
  mcs.n = sym_expr(96);
  mcs.k = sym_expr(256);
  out.push_back({"mma_f16_split_k", mcs});
  gemm_problem sk;  // skinny_m (any M: tiles of 4 rows), unsplit and with 4 static K slices
  sk.config = skinny_config();
  sk.n = sym_expr(96);
  sk.k = sym_expr(256);
  out.push_back({"skinny_m_f16", sk});
  sk.config = skinny_config(4);
  out.push_back({"skinny_m_f16_split_k", sk});
  sk.config = skinny_mma_config(4);
  out.push_back({"skinny_mma_f16_split_k", sk, true});  // NVIDIA only (the sm_90 flag keeps it off AMD)
  gemm_problem h;
  h.config = hopper_config();
  h.n = sym_expr(256);
  h.k = sym_expr(256);
  out.push_back({"hopper_f16", h, true});
  // Hopper with runtime split-K: the consumers write fp32 partials, the shared reduction applies the
  // chain once after the sum (K = 256: 4 k-blocks in 3 slices).
  h.config = h.config.with_split_k(3);
  h.options.runtime_split_k = true;
  out.push_back({"hopper_f16_split_k", h, true});
  // Ping-pong (each consumer warpgroup its own 64 x 256 tiles): N = 4096 gives 144 tiles at M = 517,
  // more than the SMs, so some blocks run a second tile while the first one's chain runs.
  h.config = templates::wgmma_config{.block_m = 64, .block_n = 256, .stages = 4, .pingpong = 1};
  h.options.runtime_split_k = false;
  h.n = sym_expr(4096);
  out.push_back({"hopper_f16_pingpong", h, true});
  // 160-column tiles (W in three 64-column slabs, the epilogue's last chunk 32 columns wide); N = 264:
  // the second tile ends inside its second chunk.
  h.config = templates::wgmma_config{.block_m = 128, .block_n = 160, .stages = 5};
  h.n = sym_expr(264);
  out.push_back({"hopper_f16_n160", h, true});
  // Stream-K (K = 256: 4 k-blocks; N = 256, 128 x 128 tiles: 10 at M = 517, 20 blocks): the block
  // finishing a tile sums the others' partials, then applies the chain.
  h.config = templates::wgmma_config{.block_m = 128, .block_n = 128, .stages = 4, .stream_k = 2};
  h.n = sym_expr(256);
  out.push_back({"hopper_f16_stream_k", h, true});
  return out;
}

}  // namespace rocmtpl::test::fusion

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/skinny/render.hpp: included at its end (header-only) or
// compiled once by src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/gemm/skinny/device_code.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE std::optional<skinny_problem> make_skinny_problem(const gemm_view& v, const size_hints& hints) {
  skinny_problem sp{};
  sp.m = size_value(v.m, hints, 1024);
  sp.n = size_value(v.n, hints, 1024);
  sp.k = size_value(v.k, hints, 1024);
  sp.b = size_value(v.batch, hints, 1);
  sp.small = std::min(sp.m, sp.n);
  if (sp.small > gemm_skinny_max_small) return std::nullopt;
  sp.q_is_m = sp.m <= sp.n;
  sp.large = sp.q_is_m ? &v.w : &v.x;
  sp.facts = copy_facts(*sp.large, sp.q_is_m);
  sp.vec = widest_vector(8, sp.facts, element_size(sp.large->node->type()), hints);
  return sp;
}

ROCMTPL_INLINE std::vector<int> skinny_splits(std::int64_t k, std::int64_t block_step) {
  std::vector<int> out{1};
  for (int s : {2, 4, 8, 16, 32}) {
    if (k / s < 2 * block_step) break;
    out.push_back(s);
  }
  return out;
}

ROCMTPL_INLINE skinny_large skinny_large_of(const gemm_plan& plan, const skinny_shape& c) {
  skinny_large l;
  const bool q_is_m = c.q_is_m;
  l.is_x = !q_is_m;
  l.name = q_is_m ? "W" : "X";
  l.op = q_is_m ? &plan.v.w : &plan.v.x;
  l.facts = q_is_m ? plan.fw : plan.fx;
  l.vec = render_vector(c.vector, l.facts, l.op->node->type());
  l.dot = l.facts.k_major;
  l.mma = c.mma;
  if (l.mma && l.vec < 8) l.vec = 1;  // the matrix-core kernel loads 16 bytes or one element at a time
  return l;
}

ROCMTPL_INLINE skinny_small skinny_small_of(const gemm_plan& plan, const skinny_shape& c) {
  skinny_small s;
  const bool q_is_m = c.q_is_m;
  s.is_x = q_is_m;
  s.name = q_is_m ? "X" : "W";
  s.op = q_is_m ? &plan.v.x : &plan.v.w;
  s.facts = q_is_m ? plan.fx : plan.fw;
  const int vec = render_vector(c.vector, s.facts, s.op->node->type());
  s.vec = c.mma && s.facts.k_contiguous && vec >= c.k_step ? c.k_step : 1;
  return s;
}

ROCMTPL_INLINE launch_description skinny_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan,
                                                            const skinny_shape& c) {
  const auto& v = plan.v;
  const auto large = skinny_large_of(plan, c);
  const bool q_is_m = c.q_is_m;
  launch_description d = launch_description_for(kernel.kernel_name(), kernel.args());
  if (c.split_k > 1) d.workspace_bytes = {.sizes = sym_expr(c.split_k) * split_k_slice_bytes(v)};
  const auto params = gemm_launch_params(kernel, plan);
  const sym_expr& q = q_is_m ? v.m : v.n;
  const sym_expr& p = q_is_m ? v.n : v.m;
  const auto main = [&](int vec) {
    kernel_launch l;
    l.suffix = "skinny_v" + std::to_string(vec);
    // block_n counts units: rows of P (dot), groups of vec elements (streaming), elements (mma).
    const sym_expr units = large.dot || large.mma || vec == 1 ? p : floor_div(p + sym_expr(vec - 1), sym_expr(vec));
    l.grid[0].sizes = floor_div(q + sym_expr(c.rows - 1), sym_expr(c.rows)) *
                      floor_div(units + sym_expr(c.units - 1), sym_expr(c.units));
    l.grid[1].sizes = v.batch;
    l.grid[2].sizes = sym_expr(c.split_k);
    l.block = {c.threads, 1, 1};
    l.params = params;
    return l;
  };
  const auto variant = [&](int vec, std::vector<launch_requirement> req) {
    launch_variant lv;
    lv.requirements = std::move(req);
    lv.launches.push_back(main(vec));
    if (c.split_k > 1) lv.launches.push_back(split_k_reduce_launch(plan, params));
    return lv;
  };
  // The matrix-core kernel's vectorised instantiation also loads the small operand in vectors.
  const auto small = skinny_small_of(plan, c);
  const bool small_vec = large.vec > 1 && small.vec > 1;
  if (large.vec > 1) {
    std::vector<launch_requirement> req;
    add_vector_requirements(req, kernel, large.name, *large.op, large.facts, large.vec, large.is_x);
    if (small_vec) add_vector_requirements(req, kernel, small.name, *small.op, small.facts, small.vec, small.is_x);
    d.variants.push_back(variant(large.vec, std::move(req)));
  }
  if (large.vec == 1 || !large.facts.statically_aligned(large.vec).has_value() ||
      (small_vec && !small.facts.statically_aligned(small.vec).has_value())) {
    d.variants.push_back(variant(1, {}));
  }
  return d;
}

ROCMTPL_INLINE void write_skinny_code(indented_buffer& src, const gemm_plan& plan, const skinny_shape& c,
                                      const launch_description& d) {
  const bool q_is_m = c.q_is_m;
  const auto large = skinny_large_of(plan, c);
  const auto line = [&](const std::string& name, int value) {
    src.writeline("constexpr int " + name + " = " + std::to_string(value) + ";");
  };
  line("skinny_q", c.rows);
  line("skinny_tk", c.k_threads);
  line("skinny_tp", c.p_threads);
  line("skinny_units", c.p_units);
  line("skinny_u", c.k_step);
  line("skinny_split", c.split_k);
  line("block_threads", c.threads);
  if (large.mma) {
    line("skinny_warps_k", c.k_threads);
    line("skinny_warps_p", c.p_threads);
    src.writeline(std::string("constexpr bool skinny_s_vector = ") +
                  (large.vec > 1 && skinny_small_of(plan, c).vec > 1 ? "true" : "false") + ";");
  }
  src.writeline(std::string("constexpr bool skinny_q_is_m = ") + (q_is_m ? "true" : "false") + ";");
  src.writeline(std::string("using skinny_l_type = ") + (q_is_m ? "w_type" : "x_type") + ";");
  src.writeline(std::string("using skinny_s_type = ") + (q_is_m ? "x_type" : "w_type") + ";");
  src.writeline(
      "__host__ __device__ __forceinline__ int64_t gemm_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }");
  src.writeline("");
  src.write_verbatim(skinny_view_text(q_is_m));
  src.write_verbatim(skinny_common_text);
  src.write_verbatim(large.mma ? skinny_mma_stream_text : (large.dot ? skinny_dot_text : skinny_stream_text));
  src.writeline("");
  if (plan.partials) write_split_k_reduce_body(src, plan);
  write_launcher(src);
  for (std::size_t vi = 0; vi < d.variants.size(); ++vi) {
    const int vec = vi == 0 && large.vec > 1 ? large.vec : 1;
    // The scalar fallback states one resident block per SM as its minimum: without it ptxas (CUDA
    // 13, sm_90a through nvcc) capped the f32 bm2 bk4 and bm8 bk4 tiles at 32 and 48 registers and
    // spilled (4/8 and 36/44 bytes); with it they take 55 and 96 registers, no spills. The
    // vectorised kernels keep ptxas's own choice (their occupancy hides the DRAM latency).
    const std::string bounds = vec == 1 ? "__launch_bounds__(block_threads, 1) " : "__launch_bounds__(block_threads) ";
    src.writeline("extern \"C\" __global__ void " + bounds + device_symbol_ref(d.variants[vi].launches.front().suffix) +
                  "(" + plan.params + ") {");
    src.writeline("    const gemm_problem p = make_problem(" + plan.sym_args + ");");
    src.writeline("    const gemm_pointers t" + plan.pointers + ";");
    src.writeline("    skinny_mainloop<" + std::to_string(vec) + ">(p, t);");
    src.writeline("}");
  }
  if (plan.partials) write_split_k_reduce_kernel(src, plan, d.variants.front().launches.back().suffix);
  src.writeline("");
}

ROCMTPL_INLINE void render_skinny(rendered_source& out, rocm_template_kernel& kernel, const gemm_plan& plan,
                                  const skinny_shape& c, const launch_description& d) {
  indented_buffer src;
  src.reserve(48 * 1024);
  indented_buffer entry;
  write_source_head(src, plan, true);
  write_skinny_code(src, plan, c, d);
  if (c.mma) {
    write_nvidia_only_entry(entry, kernel, plan, d, "skinny matrix-core path", entry_split_k::static_slices);
  } else {
    write_entry(entry, kernel, plan, d, entry_split_k::static_slices);
  }
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
}

}  // namespace rocmtpl::templates::detail

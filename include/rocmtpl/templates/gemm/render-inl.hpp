// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/render.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/device_code.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>
#include <rocmtpl/templates/gemm/skinny_device_code.hpp>
#include <rocmtpl/templates/gemm/sm90_device_code.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE bool gemm_splits_k_statically(const gemm_config& c) noexcept {
  return is_skinny(c.math) || c.math == gemm_math::simt;
}

ROCMTPL_INLINE void check_gemm_renderable(const gemm_config& config, const gemm_view& v, const gemm_options& options) {
  if (config.math == gemm_math::wgmma) {
    if (const auto why = wgmma_static_reason(v)) {
      throw invalid_argument_error("rocmtpl: gemm: wgmma config " + config.name() + ": " + *why +
                                   "; use a matrix_core or simt config");
    }
  }
  if (config.math == gemm_math::matrix_core && !v.matrix_core_eligible()) {
    throw invalid_argument_error("rocmtpl: gemm: matrix-core config " + config.name() +
                                 " needs X and W of one dtype, float16 or bfloat16; got " +
                                 std::string(rocmtpl::name(v.x.node->type())) + " and " +
                                 std::string(rocmtpl::name(v.w.node->type())) + "; use a simt config");
  }
  if (is_skinny_mma(config)) {
    const bool q_is_m = config.math == gemm_math::skinny_m;
    if (!v.matrix_core_eligible() || copy_facts(q_is_m ? v.w : v.x, q_is_m).k_major) {
      throw invalid_argument_error("rocmtpl: gemm: skinny mma config " + config.name() +
                                   " needs X and W of one dtype, float16 or bfloat16, and the large operand (" +
                                   (q_is_m ? "W" : "X") + ") contiguous along " + (q_is_m ? "N" : "M") +
                                   "; use a skinny config with stages 1");
    }
  }
  if (config.split_k != 1 && !options.runtime_split_k && !gemm_splits_k_statically(config)) {
    throw invalid_argument_error("rocmtpl: gemm: config " + config.name() +
                                 " splits K but gemm_options::runtime_split_k is off; turn it on (SIMT and skinny "
                                 "configurations split K statically)");
  }
}

ROCMTPL_INLINE int render_vector(const gemm_config& config, const gemm_copy_facts& f, dtype t) {
  if (!f.fast_copy) return 1;
  int vec = std::min<int>(config.vector, static_cast<int>(16 / element_size(t)));
  while (vec > 1 && f.statically_aligned(vec) == std::optional<bool>(false)) vec /= 2;
  return vec;
}

ROCMTPL_INLINE void plan_gemm_params(gemm_plan& plan) {
  const bool skinny = is_skinny(plan.config.math);
  plan.partials = (plan.split && !skinny) || plan.config.split_k > 1;
  plan.split_arg = plan.split && !skinny;
  const auto tensors = gemm_tensor_params(plan.v, true);
  plan.params = tensors.first + (plan.partials ? ", float* __restrict__ Partial" : "");
  plan.args = tensors.second + (plan.partials ? ", Partial" : "");
  std::string sym_params;
  for (const auto& s : plan.symbols) {
    sym_params += ", int64_t " + s;
    plan.sym_args += (plan.sym_args.empty() ? "" : ", ") + s;
  }
  plan.params += sym_params + (plan.split_arg ? ", int32_t split_k" : "");
  plan.args += (plan.symbols.empty() ? "" : ", " + plan.sym_args) + (plan.split_arg ? ", split_k" : "");
  plan.pointers = gemm_pointer_init(plan.v, plan.partials ? "Partial" : "nullptr", plan.symbols);
}

ROCMTPL_INLINE gemm_plan make_gemm_plan(rocm_template_kernel& kernel, const template_context& ctx,
                                        const gemm_config& config, const gemm_options& options, gemm_view v) {
  gemm_plan plan;
  plan.v = std::move(v);
  plan.config = config;
  plan.options = options;
  plan.signature = bind_gemm_tensors(kernel, ctx, plan.v);
  plan.symbols = kernel.args().size_params();
  plan.mc = config.math == gemm_math::matrix_core;
  plan.split = options.runtime_split_k;
  plan.fx = copy_facts(plan.v.x, false);
  plan.fw = copy_facts(plan.v.w, true);
  plan.va = render_vector(config, plan.fx, plan.v.x.node->type());
  plan.vb = render_vector(config, plan.fw, plan.v.w.node->type());
  plan.fast = plan.va > 1 || plan.vb > 1;
  plan.needs_fallback = (plan.va > 1 && !plan.fx.statically_aligned(plan.va).has_value()) ||
                        (plan.vb > 1 && !plan.fw.statically_aligned(plan.vb).has_value());
  plan_gemm_params(plan);
  return plan;
}

ROCMTPL_INLINE std::vector<launch_param> gemm_launch_params(const rocm_template_kernel& kernel, const gemm_plan& plan) {
  std::vector<launch_param> params;
  const auto tensor = [&](const std::string& n) {
    params.push_back({.kind = launch_param_kind::tensor, .index = abi_tensor_index(kernel.args(), n), .name = n});
  };
  tensor("X");
  tensor("W");
  if (plan.v.bias.node != nullptr) tensor("Bias");
  if (plan.v.residual.node != nullptr) tensor("Residual");
  for (std::size_t i = 0; i < plan.v.epi.size(); ++i) tensor(rocmtpl::detail::indexed_name("E", i));
  tensor("Y");
  if (plan.partials) {
    params.push_back({.kind = launch_param_kind::workspace, .name = "Partial", .cpp_type = "float*"});
  }
  for (std::size_t i = 0; i < plan.symbols.size(); ++i) {
    params.push_back({.kind = launch_param_kind::size, .index = i, .name = plan.symbols[i]});
  }
  if (plan.split_arg) {
    params.push_back(
        {.kind = launch_param_kind::runtime_arg, .index = 0, .name = "split_k", .scalar = launch_scalar::i32});
  }
  return params;
}

ROCMTPL_INLINE void add_vector_requirements(std::vector<launch_requirement>& req, const rocm_template_kernel& kernel,
                                            const std::string& name, const gemm_operand& op, const gemm_copy_facts& f,
                                            int vec, bool is_x) {
  if (vec == 1) return;
  const auto index = abi_tensor_index(kernel.args(), name);
  req.push_back({.kind = launch_requirement_kind::aligned_pointer,
                 .tensor = index,
                 .expr = sym_expr(0),
                 .value = vec * static_cast<std::int64_t>(element_size(op.node->type()))});
  // x: (rows m, cols k); w: (rows k, cols n). The other stride: along M/N when K-major, else along K.
  const sym_expr& other = f.k_major ? (is_x ? op.stride_r : op.stride_c) : (is_x ? op.stride_c : op.stride_r);
  for (const sym_expr* e : {&op.offset, &other, &op.stride_b}) {
    if (const auto c = e->constant(); c && *c % vec == 0) continue;
    req.push_back({.kind = launch_requirement_kind::multiple_of, .expr = *e, .value = vec});
  }
}

ROCMTPL_INLINE sym_expr split_k_slice_bytes(const gemm_view& v) {
  return v.batch * v.m * v.n * sym_expr(static_cast<std::int64_t>(sizeof(float)));
}

ROCMTPL_INLINE kernel_launch split_k_reduce_launch(const gemm_plan& plan, std::vector<launch_param> params) {
  const auto& v = plan.v;
  kernel_launch r;
  r.suffix = "split_k_reduce";
  r.grid[0] = {.sizes = floor_div(v.batch * v.m * v.n + sym_expr(255), sym_expr(256)), .at_most = 65536};
  if (plan.split_arg) r.grid[0].only_when_runtime_arg_above_one = 0;
  r.block = {256, 1, 1};
  r.params = std::move(params);
  return r;
}

ROCMTPL_INLINE launch_description gemm_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan) {
  const auto& c = plan.config;
  const auto& v = plan.v;
  launch_description d = launch_description_for(kernel.kernel_name(), kernel.args());
  if (plan.split) {
    d.workspace_bytes = {.sizes = split_k_slice_bytes(v), .times_runtime_arg = 0, .only_when_runtime_arg_above_one = 0};
  } else if (plan.partials) {
    d.workspace_bytes = {.sizes = sym_expr(c.split_k) * split_k_slice_bytes(v)};
  }
  const auto params = gemm_launch_params(kernel, plan);
  const auto main = [&](int va, int vb) {
    kernel_launch l;
    l.suffix = "v" + std::to_string(va) + "_" + std::to_string(vb);
    l.grid[0].sizes = floor_div(v.m + sym_expr(c.block_m - 1), sym_expr(c.block_m)) *
                      floor_div(v.n + sym_expr(c.block_n - 1), sym_expr(c.block_n));
    l.grid[1].sizes = v.batch;
    if (plan.split) l.grid[2].times_runtime_arg = 0;
    if (!plan.split && plan.partials) l.grid[2].sizes = sym_expr(c.split_k);
    l.block = {c.threads(), 1, 1};
    l.shared_bytes = c.shared_bytes();
    if (plan.mc) {
      l.amd_block = {64 * c.warps(), 1, 1};  // 64-thread waves; static LDS
      l.amd_shared_bytes = 0;
    }
    l.params = params;
    return l;
  };
  std::vector<kernel_launch> tail;
  if (plan.partials) tail.push_back(split_k_reduce_launch(plan, params));
  const auto variant = [&](int va, int vb, std::vector<launch_requirement> req) {
    launch_variant lv;
    lv.requirements = std::move(req);
    lv.launches.push_back(main(va, vb));
    lv.launches.insert(lv.launches.end(), tail.begin(), tail.end());
    return lv;
  };
  if (plan.fast) {
    std::vector<launch_requirement> req;
    add_vector_requirements(req, kernel, "X", v.x, plan.fx, plan.va, true);
    add_vector_requirements(req, kernel, "W", v.w, plan.fw, plan.vb, false);
    d.variants.push_back(variant(plan.va, plan.vb, std::move(req)));
  }
  if (!plan.fast || plan.needs_fallback) d.variants.push_back(variant(1, 1, {}));
  return d;
}

ROCMTPL_INLINE std::vector<launch_requirement> sm90_requirements(const rocm_template_kernel& kernel,
                                                                 const gemm_view& v) {
  std::vector<launch_requirement> req;
  const auto add = [&](launch_requirement r) {
    const auto c = r.expr.constant();
    if (c && r.kind == launch_requirement_kind::equals && *c == r.value) return;
    if (c && r.kind == launch_requirement_kind::at_most && *c <= r.value) return;
    if (c && r.kind == launch_requirement_kind::multiple_of && *c % r.value == 0) return;
    req.push_back(std::move(r));
  };
  const sym_expr rows = v.batch * v.m;  // X's and Y's rows with the batch folded in
  if (const auto b = v.batch.constant(); !b || *b != 1) {
    for (auto& c : wgmma_fold_conditions(v)) {
      add({.kind = launch_requirement_kind::equals, .expr = std::move(c), .value = 0, .unless_at_most_one = v.batch});
    }
  }
  for (const sym_expr* e : {&rows, &v.n, &v.k}) {
    add({.kind = launch_requirement_kind::at_most, .expr = *e, .value = 2147483647});
  }
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.n, .value = 8});
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.x.stride_r, .value = 8, .unless_at_most_one = rows});
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.w.stride_r, .value = 8, .unless_at_most_one = v.k});
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.y.stride_r, .value = 8});
  for (const auto& [name, op] : {std::pair{"X", &v.x}, std::pair{"W", &v.w}, std::pair{"Y", &v.y}}) {
    req.push_back({.kind = launch_requirement_kind::aligned_pointer,
                   .tensor = abi_tensor_index(kernel.args(), name),
                   .expr = op->offset,
                   .value = 16});
  }
  return req;
}

ROCMTPL_INLINE launch_description sm90_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan) {
  const auto& c = plan.config;
  const auto& v = plan.v;
  launch_description d = launch_description_for(kernel.kernel_name(), kernel.args());
  if (plan.split) {
    d.workspace_bytes = {.sizes = split_k_slice_bytes(v), .times_runtime_arg = 0, .only_when_runtime_arg_above_one = 0};
  }
  kernel_launch l;
  l.suffix = "sm90";
  const sym_expr rows = v.batch * v.m;  // the batch folds into M (sm90_requirements())
  l.grid[0] = {.sizes = floor_div(rows + sym_expr(c.block_m - 1), sym_expr(c.block_m)) *
                        floor_div(v.n + sym_expr(c.block_n - 1), sym_expr(c.block_n)),
               .at_most_sm_count = true};
  if (plan.split) l.grid[0].times_runtime_arg = 0;
  l.block = {128 * 3, 1, 1};  // gemm_sm90::threads: a producer and two consumer warpgroups
  l.shared_bytes = c.shared_bytes();
  const auto map = [&](const std::string& name, const gemm_operand& op, const sym_expr& rows, const sym_expr& cols,
                       std::int64_t box_rows, sym_expr one_row_pitch) {
    const auto index = abi_tensor_index(kernel.args(), name);
    l.params.push_back({.kind = launch_param_kind::tensor_map,
                        .index = index,
                        .name = "map_" + name,
                        .map = tensor_map_spec{.tensor = index,
                                               .element = op.node->type(),
                                               .offset = op.offset,
                                               .rows = rows,
                                               .cols = cols,
                                               .pitch = op.stride_r,
                                               .box_rows = box_rows,
                                               .box_cols = 64,
                                               .pitch_if_one_row = std::move(one_row_pitch)}});
  };
  map("X", v.x, rows, v.k, c.block_m, floor_div(v.k + sym_expr(7), sym_expr(8)) * sym_expr(8));
  map("W", v.w, v.k, v.n, 64, v.n);
  const auto params = gemm_launch_params(kernel, plan);  // the kernel's parameters after the maps: plan.params
  l.params.insert(l.params.end(), params.begin(), params.end());
  std::vector<kernel_launch> launches{std::move(l)};
  if (plan.split) launches.push_back(split_k_reduce_launch(plan, params));
  d.variants.push_back({sm90_requirements(kernel, v), std::move(launches)});
  return d;
}

ROCMTPL_INLINE std::vector<std::pair<std::string, const gemm_operand*>> prelude_operands(const gemm_view& v) {
  std::vector<std::pair<std::string, const gemm_operand*>> ops{{"x", &v.x}, {"w", &v.w}};
  if (v.bias.node != nullptr) ops.emplace_back("bias", &v.bias);
  if (v.residual.node != nullptr) ops.emplace_back("residual", &v.residual);
  ops.emplace_back("y", &v.y);
  return ops;
}

ROCMTPL_INLINE std::pair<std::string, std::string> operand_axes(const std::string& n) {
  if (n == "x") return {"m", "k"};
  if (n == "w") return {"k", "n"};
  return {"m", "n"};
}

ROCMTPL_INLINE void write_operand_types(indented_buffer& src, const gemm_view& v, activation act) {
  src.write_verbatim(gemm_dtype_text);
  std::vector<int> kinds;
  for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) {
    if (op->node != nullptr) kinds.push_back(dtype_kind(op->node->type()));
  }
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  for (int kind : kinds) src.write_verbatim(gemm_dtype_kind_text[kind]);
  src.write_verbatim(gemm_vector_text);
  src.writeline("");
  const auto kind = [](const gemm_operand& op) { return std::to_string(dtype_kind(op.node->type())); };
  src.writeline("using x_type = gemm_dtype<" + kind(v.x) + ">;");
  src.writeline("using w_type = gemm_dtype<" + kind(v.w) + ">;");
  if (v.bias.node != nullptr) src.writeline("using bias_type = gemm_dtype<" + kind(v.bias) + ">;");
  if (v.residual.node != nullptr) src.writeline("using residual_type = gemm_dtype<" + kind(v.residual) + ">;");
  src.writeline("using y_type = gemm_dtype<" + kind(v.y) + ">;");
  src.writeline("[[maybe_unused]] constexpr int x_kind = " + kind(v.x) + ";");
  src.writeline("");
  src.writeline(activation_device_function(act));
  src.writeline("");
}

ROCMTPL_INLINE void write_problem_struct(indented_buffer& src, const gemm_view& v,
                                         const std::vector<std::string>& symbols) {
  const auto ops = prelude_operands(v);
  src.writeline("// Sizes, strides (0 where a tensor broadcasts) and offsets, in elements.");
  src.writeline("struct gemm_problem {");
  src.writeline("    int64_t m_size, n_size, k_size, batch;");
  for (const auto& [n, op] : ops) {
    const auto [rows, cols] = operand_axes(n);
    src.writeline("    int64_t " + n + "_stride_b, " + n + "_stride_" + rows + ", " + n + "_stride_" + cols + ", " + n +
                  "_offset;");
  }
  src.writeline("};");
  src.writeline("");
  std::string sym_params;
  for (const auto& s : symbols) sym_params += (sym_params.empty() ? "" : ", ") + std::string("int64_t ") + s;
  src.writeline("__host__ __device__ __forceinline__ gemm_problem make_problem(" + sym_params + ") {");
  src.writeline("    gemm_problem problem_{};");
  auto set = [&](const std::string& field, const sym_expr& e) {
    src.writeline("    problem_." + field + " = " + e.to_cpp() + ";");
  };
  set("m_size", v.m);
  set("n_size", v.n);
  set("k_size", v.k);
  set("batch", v.batch);
  for (const auto& [n, op] : ops) {
    const auto [rows, cols] = operand_axes(n);
    set(n + "_stride_b", op->stride_b);
    set(n + "_stride_" + rows, op->stride_r);
    set(n + "_stride_" + cols, op->stride_c);
    set(n + "_offset", op->offset);
  }
  src.writeline("    return problem_;");
  src.writeline("}");
  src.writeline("");
}

ROCMTPL_INLINE void write_pointers_and_epilogue(indented_buffer& src, const gemm_view& v, const gemm_options& options,
                                                bool with_store_output) {
  src.writeline("struct gemm_pointers {");
  src.writeline("    const x_type::storage* X;");
  src.writeline("    const w_type::storage* W;");
  if (v.bias.node != nullptr) src.writeline("    const bias_type::storage* Bias;");
  if (v.residual.node != nullptr) src.writeline("    const residual_type::storage* Residual;");
  src.writeline("    y_type::storage* Y;");
  src.writeline("    float* Partial;  // split-K slices");
  if (v.fused != nullptr) src.writeline("    rocmtpl_epilogue_args epi;  // the fused epilogue's operands");
  src.writeline("};");
  if (!with_store_output) return;
  src.writeline("");
  src.writeline("// The fused epilogue of one output element.");
  src.writeline(
      "__device__ __forceinline__ void store_output(const gemm_problem& p, const gemm_pointers& t, int64_t batch,");
  src.writeline("                                             int64_t gm, int64_t gn, float acc) {");
  src.writeline(options.alpha == 1.0F ? "    float v = acc;"
                                      : "    float v = " + float_literal(options.alpha) + " * acc;");
  if (v.bias.node != nullptr) {
    const std::string load =
        "bias_type::to_float(t.Bias[p.bias_offset + batch * p.bias_stride_b + gm * p.bias_stride_m + gn * "
        "p.bias_stride_n])";
    src.writeline("    v += " + (options.beta == 1.0F ? load : float_literal(options.beta) + " * " + load) + ";");
  }
  src.writeline("    v = apply_activation(v);");
  if (v.residual.node != nullptr) {
    src.writeline(
        "    v += residual_type::to_float(t.Residual[p.residual_offset + batch * p.residual_stride_b + gm * "
        "p.residual_stride_m + gn * p.residual_stride_n]);");
  }
  // The fused epilogue chain (codegen/epilogue.hpp) after the template's own: every path and the
  // split-K reduction store through here.
  if (v.fused != nullptr) src.writeline("    v = rocmtpl_epilogue(t.epi, batch, gm, gn, v);");
  src.writeline(
      "    t.Y[p.y_offset + batch * p.y_stride_b + gm * p.y_stride_m + gn * p.y_stride_n] = y_type::from_float(v);");
  src.writeline("}");
}

ROCMTPL_INLINE void write_source_head(indented_buffer& src, const gemm_plan& plan) {
  src.writeline("// gemm " + plan.config.name() + ": " + gemm_formula(plan.v, plan.options));
  for (const auto* op : {&plan.v.x, &plan.v.w, &plan.v.bias, &plan.v.residual, &plan.v.y}) {
    if (op->node != nullptr) src.writeline("// " + op->node->name() + " " + op->node->get_layout().to_string());
  }
  src.writeline("namespace {");
  src.writeline("");
  write_operand_types(src, plan.v, plan.options.act);
  write_problem_struct(src, plan.v, plan.symbols);
  if (plan.v.fused != nullptr) {
    src.write_verbatim(epilogue_device_code(plan.v.fused->chain, plan.v.epi, plan.symbols));
    src.writeline("");
  }
  // The Hopper path has its own epilogue; its split-K reduction uses store_output().
  write_pointers_and_epilogue(src, plan.v, plan.options, plan.config.math != gemm_math::wgmma || plan.split);
  src.writeline("");
}

ROCMTPL_INLINE int gemm_min_blocks(const gemm_config& c) {
  if (c.math == gemm_math::matrix_core) return 1;
  return std::clamp(65536 / (std::max(c.threads(), 32) * c.register_estimate()), 1, 2);
}

ROCMTPL_INLINE bool gemm_simt_prefetch(const gemm_config& c) {
  if (c.math != gemm_math::simt) return false;
  if (c.thread_m * c.thread_n >= 128) return true;
  const int room = std::min(255, 65536 / (std::max(c.threads(), 32) * gemm_min_blocks(c)));
  return room >= c.register_estimate() + c.thread_m + c.thread_n;
}

ROCMTPL_INLINE void write_tile_constants(indented_buffer& src, const gemm_plan& plan) {
  const auto& c = plan.config;
  const auto bool_text = [](bool b) { return std::string(b ? "true" : "false"); };
  src.writeline("constexpr int block_m = " + std::to_string(c.block_m) + ";");
  src.writeline("constexpr int block_n = " + std::to_string(c.block_n) + ";");
  src.writeline("constexpr int block_k = " + std::to_string(c.block_k) + ";");
  if (plan.mc) {
    src.writeline("constexpr int warp_m = " + std::to_string(c.warp_m) + ";");
    src.writeline("constexpr int warp_n = " + std::to_string(c.warp_n) + ";");
  } else {
    src.writeline("constexpr int thread_m = " + std::to_string(c.thread_m) + ";");
    src.writeline("constexpr int thread_n = " + std::to_string(c.thread_n) + ";");
    src.writeline("[[maybe_unused]] constexpr bool simt_prefetch = " + bool_text(gemm_simt_prefetch(c)) + ";");
  }
  src.writeline("constexpr int group_m = " + std::to_string(c.group_m) + ";");
  src.writeline("[[maybe_unused]] constexpr int stages = " + std::to_string(c.stages) + ";");
  src.writeline("[[maybe_unused]] constexpr bool x_k_contiguous = " + bool_text(plan.fx.k_contiguous) + ";");
  src.writeline("[[maybe_unused]] constexpr bool x_m_contiguous = " + bool_text(plan.fx.mn_contiguous) + ";");
  src.writeline("[[maybe_unused]] constexpr bool x_k_major = " + bool_text(plan.fx.k_major) + ";");
  src.writeline("[[maybe_unused]] constexpr bool w_k_contiguous = " + bool_text(plan.fw.k_contiguous) + ";");
  src.writeline("[[maybe_unused]] constexpr bool w_n_contiguous = " + bool_text(plan.fw.mn_contiguous) + ";");
  src.writeline("[[maybe_unused]] constexpr bool w_k_major = " + bool_text(plan.fw.k_major) + ";");
  src.writeline("");
}

ROCMTPL_INLINE void write_device_code(indented_buffer& src, const gemm_plan& plan) {
  src.write_verbatim(gemm_common_text);
  src.writeline("");
  src.write_verbatim(plan.mc ? gemm_matrix_core_text() : gemm_simt_text());
  src.writeline("");
}

ROCMTPL_INLINE void write_split_k_reduce_body(indented_buffer& src, const gemm_plan& plan) {
  const std::string slices = plan.split_arg ? "split_k" : std::to_string(plan.config.split_k);
  src.writeline("// Split-K: sums the fp32 partials of every slice and applies the epilogue.");
  src.writeline("__device__ __forceinline__ void gemm_split_k_reduce_body(" + plan.params + ") {");
  // Pre-indented fragment (written verbatim: rendering speed).
  src.write_verbatim(R"hip(    const gemm_problem p = make_problem()hip" + plan.sym_args + R"hip();
    const gemm_pointers t)hip" +
                     plan.pointers + R"hip(;
    const int64_t mn = p.m_size * p.n_size;
    const int64_t total = p.batch * mn;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step) {
        float sum = 0.0f;
        for (int z = 0; z < )hip" +
                     slices + R"hip(; ++z) sum += Partial[z * total + idx];
        const int64_t rest = idx % mn;
        store_output(p, t, idx / mn, rest / p.n_size, rest % p.n_size, sum);
    }
}
)hip");
  src.writeline("");
}

ROCMTPL_INLINE void write_kernels(indented_buffer& src, const gemm_plan& plan) {
  src.writeline("#if defined(ROCMTPL_PLATFORM_NVIDIA)");
  src.writeline("#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads, " +
                std::to_string(gemm_min_blocks(plan.config)) + ")");
  src.writeline("#else");
  src.writeline("#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads)");
  src.writeline("#endif");
  src.writeline("template <int VecA, int VecB>");
  src.writeline("__device__ __forceinline__ void gemm_kernel_body(" + plan.params + ") {");
  src.writeline("    const gemm_problem p = make_problem(" + plan.sym_args + ");");
  src.writeline("    const gemm_pointers t" + plan.pointers + ";");
  src.writeline("    gemm_mainloop<VecA, VecB>(p, t, " +
                (plan.split ? "split_k" : std::to_string(plan.config.split_k)) + ");");
  src.writeline("}");
  src.writeline("");
  if (plan.partials) write_split_k_reduce_body(src, plan);
}

ROCMTPL_INLINE void write_launcher(indented_buffer& src) {
  src.write_verbatim(checked_size_helpers_text);
  src.write_verbatim(launch_cpp_helpers);
  src.writeline("");
  src.writeline("}  // namespace");
  src.writeline("");
}

ROCMTPL_INLINE sym_expr gemm_workspace_bytes(const gemm_view& v, const gemm_config& config,
                                             const gemm_options& options) {
  if (config.split_k <= 1 || !(options.runtime_split_k || gemm_splits_k_statically(config))) return sym_expr(0);
  return sym_expr(config.split_k) * split_k_slice_bytes(v);
}

ROCMTPL_INLINE void write_split_k_reduce_kernel(indented_buffer& src, const gemm_plan& plan,
                                                const std::string& suffix) {
  src.writeline("extern \"C\" __global__ void __launch_bounds__(256) " + device_symbol_ref(suffix) + "(" + plan.params +
                ") {");
  src.writeline("    gemm_split_k_reduce_body(" + plan.args + ");");
  src.writeline("}");
}

ROCMTPL_INLINE void write_global_kernels(indented_buffer& src, const gemm_plan& plan, const launch_description& d) {
  for (std::size_t vi = 0; vi < d.variants.size(); ++vi) {
    const auto& launches = d.variants[vi].launches;
    const bool vectorised = plan.fast && vi == 0;
    src.writeline("extern \"C\" __global__ void ROCMTPL_GEMM_LAUNCH_BOUNDS " +
                  device_symbol_ref(launches.front().suffix) + "(" + plan.params + ") {");
    src.writeline("    gemm_kernel_body<" + std::to_string(vectorised ? plan.va : 1) + ", " +
                  std::to_string(vectorised ? plan.vb : 1) + ">(" + plan.args + ");");
    src.writeline("}");
  }
  if (plan.partials) write_split_k_reduce_kernel(src, plan, d.variants.front().launches.back().suffix);
  src.writeline("");
}

ROCMTPL_INLINE void write_entry_prologue(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                                         const launch_description& d) {
  for (const auto& s : plan.symbols) src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  const bool skinny = is_skinny(plan.config.math);
  if (plan.split && skinny) {
    src.writeline("if (split_k != " + std::to_string(plan.config.split_k) +
                  ") return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;  // K slices are static here");
  } else if (plan.split) {
    src.writeline("if (split_k < 1 || split_k > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  } else if (plan.config.math != gemm_math::wgmma && !skinny) {
    src.writeline("constexpr int32_t split_k = " + std::to_string(plan.config.split_k) + ";");
  }
  src.writeline("const gemm_problem p = make_problem(" + plan.sym_args + ");");
  // Pre-indented fragment (written verbatim: rendering speed); sizes are non-negative here.
  src.write_verbatim(R"hip(    int64_t rocmtpl_elements = 0;
    if (!rocmtpl_checked_mul(p.batch, p.m_size, rocmtpl_elements) ||
        !rocmtpl_checked_mul(rocmtpl_elements, p.n_size, rocmtpl_elements)) {
        return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    }
)hip");
  write_workspace_query(src, d);
  const auto& v = plan.v;
  for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) src.write_lines(kernel.check_not_null(op->node));
  for (const auto& e : v.epi) src.write_lines(kernel.check_not_null(e.node));
  src.writeline("if (p.m_size == 0 || p.n_size == 0 || p.batch == 0) return ROCMTPL_STATUS_OK;");
}

ROCMTPL_INLINE void write_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                                const launch_description& d) {
  auto body = src.indent();
  write_entry_prologue(src, kernel, plan, d);
  write_launches(src, d, abi_tensor_names(kernel.args()));
}

ROCMTPL_INLINE void write_sm90_code(indented_buffer& src, const gemm_plan& plan) {
  const auto& c = plan.config;
  const auto line = [&](const std::string& name, int value) {
    src.writeline("[[maybe_unused]] constexpr int " + name + " = " + std::to_string(value) + ";");
  };
  line("block_m", c.block_m);
  line("block_n", c.block_n);
  line("block_k", c.block_k);
  line("warp_m", c.warp_m);
  line("warp_n", c.warp_n);
  line("group_m", c.group_m);
  line("stages", c.stages);
  line("gemm_dynamic_shared", c.shared_bytes());
  line("y_kind", dtype_kind(plan.v.y.node->type()));
  line("gemm_sm90_bias_mode", wgmma_bias_mode(plan.v));
  src.writeline("[[maybe_unused]] constexpr float gemm_sm90_alpha = " + float_literal(plan.options.alpha) + ";");
  src.writeline("[[maybe_unused]] constexpr float gemm_sm90_beta = " + float_literal(plan.options.beta) + ";");
  src.writeline(std::string("#define ROCMTPL_GEMM_SM90_HAS_BIAS ") + (plan.v.bias.node != nullptr ? "1" : "0"));
  src.writeline(std::string("#define ROCMTPL_GEMM_SM90_HAS_RESIDUAL ") + (plan.v.residual.node != nullptr ? "1" : "0"));
  src.writeline(std::string("#define ROCMTPL_GEMM_SM90_HAS_EPILOGUE ") + (plan.v.fused != nullptr ? "1" : "0"));
  src.writeline("");
  src.write_verbatim(checked_size_helpers_text);
  src.writeline("");
  src.write_verbatim(sm90_head_text);
  src.write_verbatim(sm90_wgmma_text(c.block_n, plan.v.x.node->type() == dtype::bf16));
  src.write_verbatim(sm90_body_text);
  src.writeline("");
  src.write_verbatim(sm90_host_text);
  if (plan.split) write_split_k_reduce_body(src, plan);
  src.write_verbatim(launch_cpp_helpers);
  src.writeline("");
  src.writeline("}  // namespace");
  src.writeline("");
}

ROCMTPL_INLINE void write_sm90_kernel(indented_buffer& src, const gemm_plan& plan, const launch_description& d) {
  const auto& launches = d.variants.front().launches;
  src.writeline("#if defined(ROCMTPL_PLATFORM_NVIDIA)");
  src.writeline("extern \"C\" __global__ void __launch_bounds__(gemm_sm90::threads, 1) " +
                device_symbol_ref(launches.front().suffix) +
                "(const __grid_constant__ CUtensorMap map_X, const __grid_constant__ CUtensorMap map_W, " +
                plan.params + ") {");
  src.writeline("#if defined(ROCMTPL_GEMM_SM90_DEVICE)");
  src.writeline("    const gemm_problem p = make_problem(" + plan.sym_args + ");");
  src.writeline("    const gemm_pointers t" + plan.pointers + ";");
  src.writeline(std::string("    gemm_sm90::mainloop(&map_X, &map_W, p, t, ") + (plan.split ? "split_k" : "1") + ");");
  src.writeline("#elif defined(__CUDA_ARCH__)");
  src.writeline("    __trap();  // built without sm_90a features: the entry refuses other devices");
  src.writeline("#endif");
  src.writeline("}");
  if (plan.split) write_split_k_reduce_kernel(src, plan, launches.back().suffix);
  src.writeline("#endif  // ROCMTPL_PLATFORM_NVIDIA");
  src.writeline("");
}

ROCMTPL_INLINE void write_nvidia_only_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                                            const launch_description& d, std::string_view path) {
  auto body = src.indent();
  write_entry_prologue(src, kernel, plan, d);
  src.writeline("#if defined(ROCMTPL_PLATFORM_NVIDIA)");
  write_launches(src, d, abi_tensor_names(kernel.args()));
  src.writeline("#else");
  src.writeline("(void)workspace;");
  src.writeline("(void)stream;");
  std::string refusal = "return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;  // the ";  // in steps: g++ 12 -O3 -Wrestrict
  refusal += path;
  refusal += " exists on NVIDIA only";
  src.writeline(refusal);
  src.writeline("#endif");
}

ROCMTPL_INLINE skinny_large skinny_large_of(const gemm_plan& plan) {
  skinny_large l;
  const bool q_is_m = plan.config.math == gemm_math::skinny_m;
  l.is_x = !q_is_m;
  l.name = q_is_m ? "W" : "X";
  l.op = q_is_m ? &plan.v.w : &plan.v.x;
  l.facts = q_is_m ? plan.fw : plan.fx;
  l.vec = render_vector(plan.config, l.facts, l.op->node->type());
  l.dot = l.facts.k_major;
  l.mma = is_skinny_mma(plan.config);
  if (l.mma && l.vec < 8) l.vec = 1;  // the matrix-core kernel loads 16 bytes or one element at a time
  return l;
}

ROCMTPL_INLINE skinny_small skinny_small_of(const gemm_plan& plan) {
  skinny_small s;
  const bool q_is_m = plan.config.math == gemm_math::skinny_m;
  s.is_x = q_is_m;
  s.name = q_is_m ? "X" : "W";
  s.op = q_is_m ? &plan.v.x : &plan.v.w;
  s.facts = q_is_m ? plan.fx : plan.fw;
  const int vec = render_vector(plan.config, s.facts, s.op->node->type());
  s.vec = is_skinny_mma(plan.config) && s.facts.k_contiguous && vec >= plan.config.block_k ? plan.config.block_k : 1;
  return s;
}

ROCMTPL_INLINE launch_description skinny_launch_description(const rocm_template_kernel& kernel, const gemm_plan& plan) {
  const auto& c = plan.config;
  const auto& v = plan.v;
  const auto large = skinny_large_of(plan);
  const bool q_is_m = c.math == gemm_math::skinny_m;
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
    l.grid[0].sizes = floor_div(q + sym_expr(c.block_m - 1), sym_expr(c.block_m)) *
                      floor_div(units + sym_expr(c.block_n - 1), sym_expr(c.block_n));
    l.grid[1].sizes = v.batch;
    l.grid[2].sizes = sym_expr(c.split_k);
    l.block = {c.threads(), 1, 1};
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
  const auto small = skinny_small_of(plan);
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

ROCMTPL_INLINE void write_skinny_code(indented_buffer& src, const gemm_plan& plan, const launch_description& d) {
  const auto& c = plan.config;
  const bool q_is_m = c.math == gemm_math::skinny_m;
  const auto large = skinny_large_of(plan);
  const auto line = [&](const std::string& name, int value) {
    src.writeline("constexpr int " + name + " = " + std::to_string(value) + ";");
  };
  line("skinny_q", c.block_m);
  line("skinny_tk", c.warp_m);
  line("skinny_tp", c.warp_n);
  line("skinny_units", c.thread_n);
  line("skinny_u", c.block_k);
  line("skinny_split", c.split_k);
  line("block_threads", c.threads());
  if (large.mma) {
    line("skinny_warps_k", c.warp_m);
    line("skinny_warps_p", c.warp_n);
    src.writeline(std::string("constexpr bool skinny_s_vector = ") +
                  (large.vec > 1 && skinny_small_of(plan).vec > 1 ? "true" : "false") + ";");
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

ROCMTPL_INLINE void write_skinny_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                                       const launch_description& d) {
  if (is_skinny_mma(plan.config)) {
    write_nvidia_only_entry(src, kernel, plan, d, "skinny matrix-core path");
  } else {
    write_entry(src, kernel, plan, d);
  }
}

ROCMTPL_INLINE launch_description describe_plan_launch(const rocm_template_kernel& kernel, const gemm_plan& plan) {
  if (is_skinny(plan.config.math)) return skinny_launch_description(kernel, plan);
  return plan.config.math == gemm_math::wgmma ? sm90_launch_description(kernel, plan)
                                              : gemm_launch_description(kernel, plan);
}

ROCMTPL_INLINE launch_description describe_gemm_launch(rocm_template_kernel& kernel, const template_context& ctx,
                                                       const gemm_config& config, const gemm_options& options) {
  validate(config);
  auto v = make_gemm_view(ctx, options);
  check_gemm_renderable(config, v, options);
  const gemm_plan plan = make_gemm_plan(kernel, ctx, config, options, std::move(v));
  return describe_plan_launch(kernel, plan);
}

ROCMTPL_INLINE void check_gemm_fusable(const gemm_config& config, const template_context& ctx,
                                       const fused_epilogue& e) {
  if (config.math == gemm_math::wgmma && e.output.type() != ctx.output_node().type()) {
    throw invalid_argument_error(
        "rocmtpl: gemm: wgmma config " + config.name() +
        " stages the output in its own dtype before a fused epilogue; the epilogue's output (" +
        std::string(rocmtpl::name(e.output.type())) + ") must have the GEMM's output dtype (" +
        std::string(rocmtpl::name(ctx.output_node().type())) + ")");
  }
}

ROCMTPL_INLINE rendered_source render_gemm(rocm_template_kernel& kernel, const template_context& ctx,
                                           const gemm_config& config, const gemm_options& options,
                                           const fused_epilogue* fused) {
  validate(config);
  if (fused != nullptr) check_gemm_fusable(config, ctx, *fused);
  auto v = make_gemm_view(ctx, options, fused);
  check_gemm_renderable(config, v, options);
  const gemm_plan plan = make_gemm_plan(kernel, ctx, config, options, std::move(v));
  rendered_source out = kernel.start_source(ctx);
  indented_buffer src;
  src.reserve(48 * 1024);
  indented_buffer entry;
  write_source_head(src, plan);
  // The launch description: the entry's launch lines and the kernels come from it, and the parts
  // carry it (rocm_template::generate() gives it to the caller: no second pass).
  auto d = describe_plan_launch(kernel, plan);
  if (config.math == gemm_math::wgmma) {
    out.includes.emplace_back(sm90_includes_text);
    write_sm90_code(src, plan);
    write_sm90_kernel(src, plan, d);
    write_nvidia_only_entry(entry, kernel, plan, d, "Hopper path");  // workspace: split-K's partials
  } else if (is_skinny(config.math)) {
    write_skinny_code(src, plan, d);
    write_skinny_entry(entry, kernel, plan, d);
  } else {
    write_tile_constants(src, plan);
    write_device_code(src, plan);
    write_kernels(src, plan);
    write_launcher(src);
    write_global_kernels(src, plan, d);
    write_entry(entry, kernel, plan, d);
  }
  for (auto& block : launch_includes(d)) out.includes.push_back(std::move(block));
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
  out.launch = std::move(d);
  return out;
}

}  // namespace rocmtpl::templates::detail

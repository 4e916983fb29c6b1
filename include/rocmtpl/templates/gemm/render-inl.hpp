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

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE int render_vector(int vector, const gemm_copy_facts& f, dtype t) {
  if (!f.fast_copy) return 1;
  int vec = std::min<int>(vector, static_cast<int>(16 / element_size(t)));
  while (vec > 1 && f.statically_aligned(vec) == std::optional<bool>(false)) vec /= 2;
  return vec;
}

ROCMTPL_INLINE void plan_gemm_params(gemm_plan& plan) {
  const bool skinny = plan.config.static_slices;
  plan.partials = (plan.split && !skinny) || plan.config.split_k > 1 || plan.config.stream_k > 0;
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
                                        gemm_plan_config config, const gemm_options& options, gemm_view v) {
  gemm_plan plan;
  plan.v = std::move(v);
  plan.config = std::move(config);
  plan.options = options;
  plan.signature = bind_gemm_tensors(kernel, ctx, plan.v);
  plan.symbols = kernel.args().size_params();
  plan.split = options.runtime_split_k;
  plan.fx = copy_facts(plan.v.x, false);
  plan.fw = copy_facts(plan.v.w, true);
  plan.va = render_vector(plan.config.vector, plan.fx, plan.v.x.node->type());
  plan.vb = render_vector(plan.config.vector, plan.fw, plan.v.w.node->type());
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

ROCMTPL_INLINE launch_description block_tiled_launch_description(const rocm_template_kernel& kernel,
                                                                 const gemm_plan& plan, const gemm_block_tile& c) {
  const auto& v = plan.v;
  launch_description d = launch_description_for(kernel.kernel_name(), kernel.args());
  if (plan.split) {
    d.workspace_bytes = {.sizes = split_k_slice_bytes(v), .times_runtime_arg = 0, .only_when_runtime_arg_above_one = 0};
  } else if (plan.partials) {
    d.workspace_bytes = {.sizes = sym_expr(plan.config.split_k) * split_k_slice_bytes(v)};
  }
  const auto params = gemm_launch_params(kernel, plan);
  const auto main = [&](int va, int vb) {
    kernel_launch l;
    l.suffix = "v" + std::to_string(va) + "_" + std::to_string(vb);
    l.grid[0].sizes = floor_div(v.m + sym_expr(c.block_m - 1), sym_expr(c.block_m)) *
                      floor_div(v.n + sym_expr(c.block_n - 1), sym_expr(c.block_n));
    l.grid[1].sizes = v.batch;
    if (plan.split) l.grid[2].times_runtime_arg = 0;
    if (!plan.split && plan.partials) l.grid[2].sizes = sym_expr(plan.config.split_k);
    l.block = {c.threads, 1, 1};
    l.shared_bytes = c.shared_bytes;
    if (c.matrix_cores) {
      l.amd_block = {c.amd_threads, 1, 1};  // 64-thread waves; static LDS
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

ROCMTPL_INLINE void write_source_head(indented_buffer& src, const gemm_plan& plan, bool store_output) {
  src.writeline("// gemm " + plan.config.name + ": " + gemm_formula(plan.v, plan.options));
  for (const auto* op : {&plan.v.x, &plan.v.w, &plan.v.bias, &plan.v.residual, &plan.v.y}) {
    if (op->node != nullptr) src.writeline("// " + op->node->name() + " " + op->node->get_layout().to_string());
  }
  src.writeline("namespace {");
  src.writeline("");
  write_operand_types(src, plan.v, plan.options.act);
  write_problem_struct(src, plan.v, plan.symbols);
  if (plan.v.fused != nullptr) {
    // The vector form's one caller, the Hopper path, stages its rows in Y's 16-bit type.
    const dtype y = plan.v.y.node->get_layout().type();
    const auto staged = y == dtype::f16 || y == dtype::bf16 ? std::optional<dtype>(y) : std::nullopt;
    src.write_verbatim(epilogue_device_code(plan.v.fused->chain, plan.v.epi, plan.symbols, staged));
    src.writeline("");
  }
  write_pointers_and_epilogue(src, plan.v, plan.options, store_output);
  src.writeline("");
}

ROCMTPL_INLINE void write_tile_constants(indented_buffer& src, const gemm_plan& plan, const gemm_block_tile& c) {
  const auto bool_text = [](bool b) { return std::string(b ? "true" : "false"); };
  src.writeline("constexpr int block_m = " + std::to_string(c.block_m) + ";");
  src.writeline("constexpr int block_n = " + std::to_string(c.block_n) + ";");
  src.writeline("constexpr int block_k = " + std::to_string(c.block_k) + ";");
  for (const auto& [name, value] : c.constants)
    src.writeline("constexpr int " + name + " = " + std::to_string(value) + ";");
  if (!c.matrix_cores) {
    src.writeline("[[maybe_unused]] constexpr bool simt_prefetch = " + bool_text(c.simt_prefetch) + ";");
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

ROCMTPL_INLINE void write_device_code(indented_buffer& src, const gemm_block_tile& c) {
  src.write_verbatim(gemm_common_text);
  src.writeline("");
  src.write_verbatim(*c.main_loop);
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

ROCMTPL_INLINE void write_kernels(indented_buffer& src, const gemm_plan& plan, const gemm_block_tile& c) {
  src.writeline("#if defined(ROCMTPL_PLATFORM_NVIDIA)");
  src.writeline("#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads, " + std::to_string(c.min_blocks) +
                ")");
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
                                         const launch_description& d, entry_split_k split) {
  for (const auto& s : plan.symbols) src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  if (plan.split && split == entry_split_k::static_slices) {
    src.writeline("if (split_k != " + std::to_string(plan.config.split_k) +
                  ") return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;  // K slices are static here");
  } else if (plan.split) {
    src.writeline("if (split_k < 1 || split_k > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  } else if (split == entry_split_k::constant) {
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
                                const launch_description& d, entry_split_k split) {
  auto body = src.indent();
  write_entry_prologue(src, kernel, plan, d, split);
  write_launches(src, d, abi_tensor_names(kernel.args()));
}

ROCMTPL_INLINE void write_nvidia_only_entry(indented_buffer& src, rocm_template_kernel& kernel, const gemm_plan& plan,
                                            const launch_description& d, std::string_view path, entry_split_k split) {
  auto body = src.indent();
  write_entry_prologue(src, kernel, plan, d, split);
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

ROCMTPL_INLINE void render_block_tiled(rendered_source& out, rocm_template_kernel& kernel, const gemm_plan& plan,
                                       const gemm_block_tile& t, const launch_description& d) {
  indented_buffer src;
  src.reserve(48 * 1024);
  indented_buffer entry;
  write_source_head(src, plan, true);
  write_tile_constants(src, plan, t);
  write_device_code(src, t);
  write_kernels(src, plan, t);
  write_launcher(src);
  write_global_kernels(src, plan, d);
  write_entry(entry, kernel, plan, d, entry_split_k::constant);
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
}

}  // namespace rocmtpl::templates::detail

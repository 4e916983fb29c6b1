// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/elementwise.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::string elementwise_config::to_string() const { return to_text().str(); }

ROCMTPL_INLINE std::vector<std::pair<std::string, std::string>> describe(const elementwise_config& c) {
  return {{"block_threads", std::to_string(c.block_threads)}};
}

ROCMTPL_INLINE launch_description elementwise_policy::describe_launch(rocm_template_kernel& kernel,
                                                                      const template_context& ctx,
                                                                      const elementwise_config& config) const {
  bind_tensors(kernel, ctx, config);
  return launch_of(kernel, ctx, config);
}

ROCMTPL_INLINE rendered_source elementwise_policy::render(rocm_template_kernel& kernel, const template_context& ctx,
                                                          const elementwise_config& config) const {
  bind_tensors(kernel, ctx, config);
  const buffer* x = ctx.input(0);
  const buffer* bias = ctx.input(1);
  const buffer& y = ctx.output_node();
  const bool has_bias = bias != nullptr;
  const auto d = launch_of(kernel, ctx, config);

  std::string params = "const " + storage(*x) + "* __restrict__ X, ";
  params += has_bias ? "const " + storage(*bias) + "* __restrict__ Bias, " : std::string();
  params += storage(y) + "* __restrict__ Y";
  std::string args = has_bias ? "X, Bias, Y" : "X, Y";
  detail::append_size_symbols(params, args, kernel.args().size_params());

  rendered_source out = kernel.start_source(ctx);
  indented_buffer src;
  src.writeline("// elementwise: Y = " + std::string(to_string(options_.act)) + "(X" + (has_bias ? " + Bias" : "") +
                ")");
  src.writeline("// X " + x->get_layout().to_string());
  if (has_bias) src.writeline("// Bias " + bias->get_layout().to_string());
  src.writeline("// Y " + y.get_layout().to_string());
  src.writeline("namespace {");
  src.writeline("");
  src.writeline("constexpr int block_threads = " + std::to_string(config.block_threads) + ";");
  src.writeline("");
  src.writeline(activation_function());
  src.writeline("");
  write_kernel(src, kernel, x, bias, y, params);
  src.write_verbatim(detail::checked_size_helpers_text);
  src.write_verbatim(launch_cpp_helpers);
  src.writeline("");
  src.writeline("}  // namespace");
  src.writeline("");
  src.writeline("extern \"C\" __global__ void __launch_bounds__(block_threads) " +
                device_symbol_ref(d.variants.front().launches.front().suffix) + "(" + params + ") {");
  src.writeline("    elementwise_body(" + args + ");");
  src.writeline("}");
  src.writeline("");
  indented_buffer entry;
  write_entry(entry, kernel, x, bias, y, d);
  for (auto& block : launch_includes(d)) out.includes.push_back(std::move(block));
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
  out.launch = d;  // rocm_template::generate() takes it from the parts: no second pass
  return out;
}

ROCMTPL_INLINE void elementwise_policy::bind_tensors(rocm_template_kernel& kernel, const template_context& ctx,
                                                     const elementwise_config& config) const {
  if (config.block_threads < 64 || config.block_threads > 1024 || config.block_threads % 64 != 0) {
    throw config_error("elementwise", config.to_string(), "block_threads must be a multiple of 64 from 64 to 1024");
  }
  const buffer* x = ctx.input(0);
  const buffer* bias = ctx.input(1);
  const buffer& y = ctx.output_node();
  check_problem(x, bias, y);
  std::vector<const buffer*> inputs{x};
  if (bias != nullptr) inputs.push_back(bias);
  (void)kernel.def_kernel(inputs, {&y}, bias != nullptr ? "X, Bias, Y" : "X, Y", ctx.input_reorder());
}

ROCMTPL_INLINE launch_description elementwise_policy::launch_of(const rocm_template_kernel& kernel,
                                                                const template_context& ctx,
                                                                const elementwise_config& config) {
  const buffer* x = ctx.input(0);
  auto d = launch_description_for(kernel.kernel_name(), kernel.args());
  kernel_launch l;
  l.suffix = "main";
  const sym_expr threads(config.block_threads);
  l.grid[0] = {.sizes = floor_div(x->sizes()[0] * x->sizes()[1] + threads - sym_expr(1), threads), .at_most = 65535};
  l.block = {config.block_threads, 1, 1};
  l.params.push_back({.kind = launch_param_kind::tensor, .index = abi_tensor_index(kernel.args(), "X"), .name = "X"});
  if (ctx.input(1) != nullptr) {
    l.params.push_back(
        {.kind = launch_param_kind::tensor, .index = abi_tensor_index(kernel.args(), "Bias"), .name = "Bias"});
  }
  l.params.push_back({.kind = launch_param_kind::tensor, .index = abi_tensor_index(kernel.args(), "Y"), .name = "Y"});
  const auto sizes = kernel.args().size_params();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    l.params.push_back({.kind = launch_param_kind::size, .index = i, .name = sizes[i]});
  }
  d.variants.push_back({{}, {std::move(l)}});
  return d;
}

ROCMTPL_INLINE void elementwise_policy::check_problem(const buffer* x, const buffer* bias, const buffer& y) {
  if (x == nullptr) throw invalid_argument_error("rocmtpl: elementwise: needs an input X");
  if (x->get_layout().rank() != 2 || y.get_layout().rank() != 2) {
    throw invalid_argument_error("rocmtpl: elementwise: X and Y must have rank 2, got X " +
                                 x->get_layout().to_string() + " and Y " + y.get_layout().to_string());
  }
  if (!(x->sizes() == y.sizes())) {
    throw invalid_argument_error("rocmtpl: elementwise: Y " + y.get_layout().to_string() +
                                 " does not have the sizes of X " + x->get_layout().to_string());
  }
  if (bias != nullptr) {
    const auto& b = bias->get_layout();
    const bool ok = (b.rank() == 1 && b.sizes()[0] == x->sizes()[1]) || (b.rank() == 2 && b.sizes() == x->sizes());
    if (!ok) {
      throw invalid_argument_error("rocmtpl: elementwise: Bias " + b.to_string() + " is neither [" +
                                   x->sizes()[1].to_string() + "] nor the sizes of X");
    }
  }
  for (const buffer* b : {x, bias, &y}) {
    if (b == nullptr) continue;
    const auto t = b->type();
    if (t != dtype::f32 && t != dtype::f16 && t != dtype::bf16) {
      throw invalid_argument_error("rocmtpl: elementwise: " + b->name() + " has dtype " +
                                   std::string(rocmtpl::name(t)) + "; supported: float32, float16, bfloat16");
    }
  }
}

ROCMTPL_INLINE void elementwise_policy::write_kernel(indented_buffer& src, rocm_template_kernel& kernel,
                                                     const buffer* x, const buffer* bias, const buffer& y,
                                                     const std::string& params) const {
  const bool has_bias = bias != nullptr;
  src.writeline("__device__ __forceinline__ void elementwise_body(" + params + ") {");
  {
    auto body = src.indent();
    auto line = [&](const std::string& n, const std::string& e) {
      src.writeline("const int64_t " + n + " = " + e + ";");
    };
    line("m_size", kernel.size(x, 0));
    line("n_size", kernel.size(x, 1));
    line("x_stride_m", kernel.stride(x, 0));
    line("x_stride_n", kernel.stride(x, 1));
    line("x_offset", kernel.offset(x));
    if (has_bias) {
      const bool rank1 = bias->get_layout().rank() == 1;
      line("bias_stride_m", rank1 ? "0" : kernel.stride(bias, 0));
      line("bias_stride_n", rank1 ? kernel.stride(bias, 0) : kernel.stride(bias, 1));
      line("bias_offset", kernel.offset(bias));
    }
    line("y_stride_m", kernel.stride(&y, 0));
    line("y_stride_n", kernel.stride(&y, 1));
    line("y_offset", kernel.offset(&y));
    src.writeline("const int64_t total = m_size * n_size;");
    src.writeline(detail::grid_stride_step_line);
    src.writeline(detail::grid_stride_loop_line);
    {
      auto loop = src.indent();
      src.writeline("const int64_t gm = i / n_size, gn = i % n_size;");
      src.writeline("float v = " + load(x->type(), "X[x_offset + gm * x_stride_m + gn * x_stride_n]") + ";");
      if (has_bias) {
        src.writeline("v += " + load(bias->type(), "Bias[bias_offset + gm * bias_stride_m + gn * bias_stride_n]") +
                      ";");
      }
      src.writeline("Y[y_offset + gm * y_stride_m + gn * y_stride_n] = " + store(y.type(), "apply_activation(v)") +
                    ";");
    }
    src.writeline("}");
  }
  src.writeline("}");
  src.writeline("");
}

ROCMTPL_INLINE void elementwise_policy::write_entry(indented_buffer& src, rocm_template_kernel& kernel, const buffer* x,
                                                    const buffer* bias, const buffer& y, const launch_description& d) {
  const auto symbols = kernel.args().size_params();
  {
    auto body = src.indent();
    for (const auto& s : symbols) src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    // The element count is a product of sizes: refused when it does not fit (issue 8).
    src.writeline("int64_t rocmtpl_elements = 0;");
    src.writeline("if (!rocmtpl_checked_mul(" + kernel.size(x, 0) + ", " + kernel.size(x, 1) +
                  ", rocmtpl_elements)) {");
    src.writeline("    return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    src.writeline("}");
    write_workspace_query(src, d);
    for (const auto* node : {x, bias, &y}) src.write_lines(kernel.check_not_null(node));
    src.writeline("if (rocmtpl_elements == 0) return ROCMTPL_STATUS_OK;");
    write_launches(src, d, abi_tensor_names(kernel.args()));
  }
}

}  // namespace rocmtpl::templates

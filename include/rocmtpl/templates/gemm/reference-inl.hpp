// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/reference.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE std::string reference_index(const gemm_operand& op, const std::string& row, const std::string& col,
                                           const std::string& name) {
  return name + "[(" + op.offset.to_cpp() + ") + b * (" + op.stride_b.to_cpp() + ") + " + row + " * (" +
         op.stride_r.to_cpp() + ") + " + col + " * (" + op.stride_c.to_cpp() + ")]";
}

ROCMTPL_INLINE std::string reference_load(const gemm_operand& op, const std::string& name, const std::string& row,
                                          const std::string& col) {
  return load_as_float(op.node->type(), reference_index(op, row, col, name));
}

ROCMTPL_INLINE void write_reference_kernel_body(indented_buffer& src, const gemm_view& v, const gemm_options& options,
                                                const std::vector<std::string>& symbols) {
  auto line = [&](const std::string& n, const sym_expr& e) {
    src.writeline("const int64_t " + n + " = " + e.to_cpp() + ";");
  };
  line("m_size", v.m);
  line("n_size", v.n);
  line("k_size", v.k);
  line("batch", v.batch);
  src.writeline("const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;");
  src.writeline("if (idx >= batch * m_size * n_size) return;");
  src.writeline("const int64_t b = idx / (m_size * n_size);");
  src.writeline("const int64_t gm = (idx / n_size) % m_size;");
  src.writeline("const int64_t gn = idx % n_size;");
  src.writeline("double acc = 0.0;");
  src.writeline("for (int64_t k = 0; k < k_size; ++k) {");
  src.writeline("    acc += static_cast<double>(" + reference_load(v.x, "X", "gm", "k") + ") * static_cast<double>(" +
                reference_load(v.w, "W", "k", "gn") + ");");
  src.writeline("}");
  src.writeline("double d = " + double_literal(options.alpha) + " * acc;");
  if (v.bias.node != nullptr) {
    src.writeline("d += " + double_literal(options.beta) + " * static_cast<double>(" +
                  reference_load(v.bias, "Bias", "gm", "gn") + ");");
  }
  src.writeline("float r = apply_activation(static_cast<float>(d));");
  if (v.residual.node != nullptr) src.writeline("r += " + reference_load(v.residual, "Residual", "gm", "gn") + ";");
  if (v.fused != nullptr) {
    src.writeline("r = rocmtpl_epilogue(" + epilogue_make_call(v.epi.size(), "E", symbols) + ", b, gm, gn, r);");
  }
  src.writeline(reference_index(v.y, "gm", "gn", "Y") + " = " + store_from_float(v.y.node->type(), "r") + ";");
}

ROCMTPL_INLINE launch_description gemm_reference_launch(const rocm_template_kernel& kernel, const gemm_view& v) {
  launch_description d = launch_description_for(kernel.kernel_name(), kernel.args());
  kernel_launch l;
  l.suffix = "reference";
  l.grid[0].sizes = floor_div(v.batch * v.m * v.n + sym_expr(255), sym_expr(256));
  l.block = {256, 1, 1};
  const auto tensor = [&](const std::string& name) {
    l.params.push_back(
        {.kind = launch_param_kind::tensor, .index = abi_tensor_index(kernel.args(), name), .name = name});
  };
  for (const auto& [name, op] :
       {std::pair{"X", &v.x}, std::pair{"W", &v.w}, std::pair{"Bias", &v.bias}, std::pair{"Residual", &v.residual}}) {
    if (op->node != nullptr) tensor(name);
  }
  for (std::size_t i = 0; i < v.epi.size(); ++i) tensor(rocmtpl::detail::indexed_name("E", i));
  tensor("Y");
  const auto symbols = kernel.args().size_params();
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    l.params.push_back({.kind = launch_param_kind::size, .index = i, .name = symbols[i]});
  }
  d.variants.push_back({{}, {std::move(l)}});
  return d;
}

ROCMTPL_INLINE void write_reference_entry_body(indented_buffer& src, rocm_template_kernel& kernel, const gemm_view& v,
                                               const std::vector<std::string>& symbols, const launch_description& d) {
  write_workspace_query(src, d);
  for (const auto& s : symbols) src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) src.write_lines(kernel.check_not_null(op->node));
  for (const auto& e : v.epi) src.write_lines(kernel.check_not_null(e.node));
  write_launches(src, d, abi_tensor_names(kernel.args()));
}

ROCMTPL_INLINE launch_description describe_gemm_reference_launch(rocm_template_kernel& kernel,
                                                                 const template_context& ctx,
                                                                 const gemm_options& options) {
  const auto v = make_gemm_view(ctx, options);
  (void)bind_gemm_tensors(kernel, ctx, v);
  return gemm_reference_launch(kernel, v);
}

ROCMTPL_INLINE rendered_source render_gemm_reference(rocm_template_kernel& kernel, const template_context& ctx,
                                                     const gemm_options& options, const fused_epilogue* fused) {
  const auto v = make_gemm_view(ctx, options, fused);
  (void)bind_gemm_tensors(kernel, ctx, v);
  const auto symbols = kernel.args().size_params();
  auto [params, args] = gemm_tensor_params(v, false);
  append_size_symbols(params, args, symbols);
  (void)args;
  rendered_source out = kernel.start_source(ctx);
  indented_buffer src;
  src.writeline("// gemm reference: one thread per output, double accumulation; " + gemm_formula(v, options));
  const auto d = gemm_reference_launch(kernel, v);
  src.writeline("namespace {");
  src.writeline(activation_device_function(options.act));
  if (v.fused != nullptr) src.write_verbatim(epilogue_device_code(v.fused->chain, v.epi, symbols));
  src.write_verbatim(launch_cpp_helpers);
  src.writeline("}  // namespace");
  // extern "C" with an unmangled name: a code object's kernel is looked up by name.
  src.writeline("extern \"C\" __global__ void __launch_bounds__(256) " +
                device_symbol_ref(d.variants.front().launches.front().suffix) + "(" + params + ") {");
  {
    auto body = src.indent();
    write_reference_kernel_body(src, v, options, symbols);
  }
  src.writeline("}");
  indented_buffer entry;
  {
    auto body = entry.indent();
    write_reference_entry_body(entry, kernel, v, symbols, d);
  }
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
  out.launch = d;
  return out;
}

}  // namespace rocmtpl::templates::detail

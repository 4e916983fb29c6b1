// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Rendering of the GEMM's reference kernel: one thread per output, double accumulation,
/// the same entry point (no runtime arguments) and epilogue as every candidate. Trusted because it
/// is simple; the autotuner verifies every candidate against it.

#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/rocm_kernel.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>

namespace rocmtpl::templates::detail {

// Reference-kernel element access of an operand at (b, row, col) with the operand's own strides.
[[nodiscard]] inline std::string reference_index(const gemm_operand& op, const std::string& row, const std::string& col,
                                                 const std::string& name) {
  return name + "[(" + op.offset.to_cpp() + ") + b * (" + op.stride_b.to_cpp() + ") + " + row + " * (" +
         op.stride_r.to_cpp() + ") + " + col + " * (" + op.stride_c.to_cpp() + ")]";
}

// The same element read as a float.
[[nodiscard]] inline std::string reference_load(const gemm_operand& op, const std::string& name, const std::string& row,
                                                const std::string& col) {
  return load_as_float(op.node->type(), reference_index(op, row, col, name));
}

// The body of gemm_reference_kernel: index, dot product in double, epilogue (then a fused chain),
// store.
inline void write_reference_kernel_body(indented_buffer& src, const gemm_view& v, const gemm_options& options,
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

// The entry point's body: workspace query, checks, one launch.
inline void write_reference_entry_body(indented_buffer& src, rocm_template_kernel& kernel, const gemm_view& v,
                                       const std::vector<std::string>& symbols, const std::string& args) {
  src.writeline("if (workspace_size) { *workspace_size = 0; return ROCMTPL_STATUS_OK; }");
  src.writeline("(void)workspace;");
  for (const auto& s : symbols) src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) src.write_lines(kernel.check_not_null(op->node));
  for (const auto& e : v.epi) src.write_lines(kernel.check_not_null(e.node));
  src.writeline("int64_t rocmtpl_elements = 0;");
  src.writeline("if (!rocmtpl_checked_mul(" + v.batch.to_cpp() + ", " + v.m.to_cpp() +
                ", rocmtpl_elements) || !rocmtpl_checked_mul(rocmtpl_elements, " + v.n.to_cpp() +
                ", rocmtpl_elements)) {");
  src.writeline("    return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  src.writeline("}");
  src.writeline("if (rocmtpl_elements == 0) return ROCMTPL_STATUS_OK;");
  src.writeline("const int64_t rocmtpl_blocks = rocmtpl_cdiv(rocmtpl_elements, 256);");
  src.writeline("if (rocmtpl_blocks > 2147483647) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  src.writeline("gemm_reference_kernel<<<dim3(static_cast<unsigned>(rocmtpl_blocks)), dim3(256), 0, stream>>>(" + args +
                ");");
  src.writeline("return hipGetLastError() == hipSuccess ? ROCMTPL_STATUS_OK : ROCMTPL_STATUS_LAUNCH_FAILED;");
}

// The complete translation unit of the reference kernel, as parts (see gemm_policy::render_reference());
// with `fused`, the same epilogue chain after its own (gemm_policy::render_epilogue_reference()).
[[nodiscard]] inline rendered_source render_gemm_reference(rocm_template_kernel& kernel, const template_context& ctx,
                                                           const gemm_options& options,
                                                           const fused_epilogue* fused = nullptr) {
  const auto v = make_gemm_view(ctx, options, fused);
  (void)bind_gemm_tensors(kernel, ctx, v);
  const auto symbols = kernel.args().size_params();
  auto [params, args] = gemm_tensor_params(v, false);
  append_size_symbols(params, args, symbols);
  rendered_source out = kernel.start_source(ctx);
  indented_buffer src;
  src.writeline("// gemm reference: one thread per output, double accumulation; " + gemm_formula(v, options));
  src.writeline("namespace {");
  src.writeline(activation_device_function(options.act));
  if (v.fused != nullptr) src.write_verbatim(epilogue_device_code(v.fused->chain, v.epi, symbols));
  src.writeline("__global__ void gemm_reference_kernel(" + params + ") {");
  {
    auto body = src.indent();
    write_reference_kernel_body(src, v, options, symbols);
  }
  src.writeline("}");
  src.write_verbatim(checked_size_helpers_text);
  src.writeline("}  // namespace");
  indented_buffer entry;
  {
    auto body = entry.indent();
    write_reference_entry_body(entry, kernel, v, symbols, args);
  }
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
  return out;
}

}  // namespace rocmtpl::templates::detail

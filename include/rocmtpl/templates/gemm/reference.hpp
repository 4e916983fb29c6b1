// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Rendering of the GEMM's reference kernel: one thread per output, double accumulation,
/// the same entry point (no runtime arguments) and epilogue as every candidate. Trusted because it
/// is simple; the autotuner verifies every candidate against it. Its launch is described
/// (gemm_reference_launch()), so the autotuner compiles it device-only like the candidates.

#include <string>
#include <vector>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>

namespace rocmtpl::templates::detail {

// Reference-kernel element access of an operand at (b, row, col) with the operand's own strides.
[[nodiscard]] std::string reference_index(const gemm_operand& op, const std::string& row, const std::string& col,
                                          const std::string& name);

// The same element read as a float.
[[nodiscard]] std::string reference_load(const gemm_operand& op, const std::string& name, const std::string& row,
                                         const std::string& col);

// The body of gemm_reference_kernel: index, dot product in double, epilogue (then a fused chain),
// store.
void write_reference_kernel_body(indented_buffer& src, const gemm_view& v, const gemm_options& options,
                                 const std::vector<std::string>& symbols);

// The reference kernel's launch (one thread per output, 256 per block; codegen/launch.hpp): the
// entry's launch lines are rendered from it, and the autotuner launches the device-only code object
// with it. Its parameters: X, W, Bias, Residual (those present), a fused epilogue's operands E0,
// E1, ..., Y, then every size symbol (the order of gemm_tensor_params()).
[[nodiscard]] launch_description gemm_reference_launch(const rocm_template_kernel& kernel, const gemm_view& v);

// The entry point's body: workspace query (none), checks, then the launch of the description.
void write_reference_entry_body(indented_buffer& src, rocm_template_kernel& kernel, const gemm_view& v,
                                const std::vector<std::string>& symbols, const launch_description& d);

/// @brief The launch description of the reference's entry (gemm_policy::describe_reference_launch()).
[[nodiscard]] launch_description describe_gemm_reference_launch(rocm_template_kernel& kernel,
                                                                const template_context& ctx,
                                                                const gemm_options& options);

// The complete translation unit of the reference kernel, as parts (see gemm_policy::render_reference());
// with `fused`, the same epilogue chain after its own (gemm_policy::render_epilogue_reference()).
[[nodiscard]] rendered_source render_gemm_reference(rocm_template_kernel& kernel, const template_context& ctx,
                                                    const gemm_options& options, const fused_epilogue* fused = nullptr);

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/reference-inl.hpp>
#endif

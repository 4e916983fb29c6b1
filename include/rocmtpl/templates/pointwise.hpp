// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief pointwise_policy: `Y = chain(X)` per element, an epilogue_chain (codegen/epilogue.hpp) on
/// a matrix or a batch of matrices, fp32 math. Its node carries the chain
/// (kernel_capabilities::pointwise), so the template before it may fuse it (the GEMM does); unfused
/// it is a kernel of its own that calls the same `rocmtpl_epilogue()` device function.
///
/// Inputs in template order: X [M, N] or [B, M, N] (the value), then the chain's operands 0, 1, ...
/// (each [N], [M] or [(B,) M, N] as its op's broadcast says). Any strides and offsets, static or
/// symbolic sizes; f32, f16 and bf16.
/// @code{.cpp}
/// rocmtpl::epilogue_chain c{{rocmtpl::epilogue_op::add(0, rocmtpl::epilogue_broadcast::row_vector),
///                            rocmtpl::epilogue_op::activation(rocmtpl::activation::gelu)}};
/// rocmtpl::rocm_template<rocmtpl::templates::pointwise_policy> t({c}, {h, bias}, h.get_layout());
/// @endcode

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/signature_rule.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/elementwise.hpp>

namespace rocmtpl::templates {

/// @brief The pointwise template: one epilogue chain applied per element (see the file comment).
class pointwise_policy {
 public:
  using policy_concept = kernel_template_tag;  ///< opts in to kernel_template
  using config_type = elementwise_config;      ///< the tunable launch shape (threads per block)
  /// @brief No workspace; describes its launch; its node carries its chain; the typed route's
  /// signature rule (typed_signature()).
  static constexpr kernel_capabilities capabilities{
      .workspace = true, .launch = true, .pointwise = true, .typed_signature = true};

  /// @param chain the ops, applied to input 0; operand i of the chain is input i + 1
  /// @throws config_error when a scale of the chain is NaN or an infinity (epilogue_chain::validate()).
  explicit pointwise_policy(epilogue_chain chain = {}) : chain_(std::move(chain)) { chain_.validate(name()); }

  /// @brief "pointwise".
  [[nodiscard]] static constexpr std::string_view name() noexcept { return "pointwise"; }
  /// @brief The chain it applies.
  [[nodiscard]] const epilogue_chain& chain() const noexcept { return chain_; }

  /// @brief The typed route's parameters (kernel_capabilities::typed_signature): X (rank 2 or 3),
  /// the chain's operands E0, E1, ... (rank 1 to 3; up to 15 of them), output Y (rank 2 or 3);
  /// float32, float16 or bfloat16. The chain's operand count is checked when rendering.
  [[nodiscard]] static constexpr signature_rule typed_signature(std::size_t inputs) noexcept {
    constexpr std::array<std::string_view, signature_rule::max_inputs - 1> operands{
        "E0", "E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10", "E11", "E12", "E13", "E14"};
    signature_rule r;
    if (inputs < 1 || inputs > signature_rule::max_inputs) {
      return r.refuse("pointwise takes X and up to 15 chain operands E0, E1, ...");
    }
    r.inputs[0] = {.name = "X", .dtypes = float_dtypes, .min_rank = 2, .max_rank = 3};
    for (std::size_t i = 1; i < inputs; ++i) {
      r.inputs[i] = {.name = operands[i - 1], .dtypes = float_dtypes, .min_rank = 1, .max_rank = 3};
    }
    r.output = {.name = "Y", .dtypes = float_dtypes, .min_rank = 2, .max_rank = 3};
    return r;
  }

  /// @brief 128, 256 and 512 threads per block.
  [[nodiscard]] std::vector<elementwise_config> configs() const { return {{128}, {256}, {512}}; }

  /// @brief The chain its node carries (what the template before it fuses).
  [[nodiscard]] epilogue_chain pointwise_chain(const template_context& /*ctx*/) const { return chain_; }

  /// @brief No workspace.
  [[nodiscard]] sym_expr workspace_bytes(const template_context& /*ctx*/, const elementwise_config& /*c*/) const {
    return sym_expr(0);
  }

  /// @brief One grid-stride kernel `<kernel>_main`, at most 65535 blocks.
  [[nodiscard]] launch_description describe_launch(rocm_template_kernel& kernel, const template_context& ctx,
                                                   const elementwise_config& config) const;

  /// @brief Renders the complete translation unit, as parts.
  /// @throws config_error for an invalid configuration; invalid_argument_error for inputs that do
  /// not fit the chain (epilogue_operands()), or Y of other sizes than X.
  [[nodiscard]] rendered_source render(rocm_template_kernel& kernel, const template_context& ctx,
                                       const elementwise_config& config) const;

 private:
  struct problem {
    sym_expr batch{1}, m{0}, n{0};
    epilogue_operand x, y;
    std::vector<epilogue_operand> operands;
    fused_epilogue e;  // the operands' buffers (operands point into it)
  };

  // Checks the configuration and the problem and binds the tensors: X, E0.., Y.
  problem bind(rocm_template_kernel& kernel, const template_context& ctx, const elementwise_config& config) const;

  // The launch of a bound kernel.
  static launch_description launch_of(const rocm_template_kernel& kernel, const template_context& ctx,
                                      const elementwise_config& config);

  // The kernel's body: one grid-stride loop over the elements, the chain on each.
  static void write_body(indented_buffer& src, const problem& pr, const buffer& x, const buffer& y,
                         const std::string& params, const std::vector<std::string>& symbols);

  // The C entry point's body: checks, the workspace query (none), the launch of the description.
  static void write_entry(indented_buffer& src, rocm_template_kernel& kernel, const template_context& ctx,
                          const problem& pr, const launch_description& d);

  epilogue_chain chain_;
};

static_assert(kernel_template<pointwise_policy>);

}  // namespace rocmtpl::templates

#ifdef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/kernel/rocm_template.hpp>

namespace rocmtpl {
// The stock policy's rocm_template, instantiated once by src/templates.cpp.
extern template class rocm_template<templates::pointwise_policy>;
}  // namespace rocmtpl
#endif

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/pointwise-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief elementwise_policy: `Y = act(X + Bias)` on matrices, fp32 math; the kernel an epilogue
/// becomes when the template before it does not fuse it (see rocm_cpp_scheduling).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/signature_rule.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>

namespace rocmtpl::templates {

/// @brief Tunable launch shape of elementwise_policy.
struct elementwise_config {
  int block_threads = 256;  ///< threads per block (a multiple of 64, at most 1024)

  /// @brief `{.block_threads = 256}`.
  [[nodiscard]] std::string to_string() const;
  /// @brief to_string() as a constant.
  [[nodiscard]] constexpr static_string<40> to_text() const {
    static_string<40> s("{.block_threads = ");
    s.append_decimal(block_threads);
    s += "}";
    return s;
  }
  /// @brief Member-wise equality.
  friend constexpr bool operator==(const elementwise_config&, const elementwise_config&) = default;
  /// @brief Member-wise order (configurations sort and key maps).
  friend constexpr auto operator<=>(const elementwise_config&, const elementwise_config&) = default;
};

/// @brief (field, value) pairs of an elementwise configuration.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> describe(const elementwise_config& c);

/// @brief Options of an elementwise epilogue: Y = act(X + Bias), computed in fp32.
struct elementwise_options {
  activation act = activation::none;  ///< applied after the bias
};

/// @brief The elementwise epilogue as a kernel of its own: `Y = act(X + Bias)` on matrices, for
/// an epilogue that the template before it does not fuse (bias + gelu after a GEMM).
///
/// Inputs in template order: X [M, N], optional Bias (rank 1 [N] broadcast along rows, or rank 2
/// [M, N]); any strides and offsets, static or symbolic sizes; f32, f16 and bf16.
class elementwise_policy {
 public:
  using policy_concept = kernel_template_tag;  ///< opts in to kernel_template
  using config_type = elementwise_config;      ///< the tunable launch shape
  /// @brief The workspace is known at code generation (none); describes its launch (device-only
  /// tuning); the typed route's signature rule (typed_signature()).
  static constexpr kernel_capabilities capabilities{.workspace = true, .launch = true, .typed_signature = true};

  /// @param options the activation
  explicit elementwise_policy(elementwise_options options = {}) : options_(options) {}

  /// @brief "elementwise".
  [[nodiscard]] static constexpr std::string_view name() noexcept { return "elementwise"; }
  /// @brief The options it was made with.
  [[nodiscard]] const elementwise_options& options() const noexcept { return options_; }

  /// @brief The typed route's parameters (kernel_capabilities::typed_signature): X (rank 2), an
  /// optional Bias (rank 1 or 2), output Y (rank 2); float32, float16 or bfloat16.
  [[nodiscard]] static constexpr signature_rule typed_signature(std::size_t inputs) noexcept {
    signature_rule r;
    if (inputs < 1 || inputs > 2) return r.refuse("elementwise takes X and an optional Bias");
    r.inputs[0] = {.name = "X", .dtypes = float_dtypes, .min_rank = 2, .max_rank = 2};
    if (inputs == 2) r.inputs[1] = {.name = "Bias", .dtypes = float_dtypes, .min_rank = 1, .max_rank = 2};
    r.output = {.name = "Y", .dtypes = float_dtypes, .min_rank = 2, .max_rank = 2};
    return r;
  }

  /// @brief 128, 256 and 512 threads per block.
  [[nodiscard]] std::vector<elementwise_config> configs() const { return {{128}, {256}, {512}}; }

  /// @brief No workspace: the entry point's query answers 0 for every size.
  [[nodiscard]] sym_expr workspace_bytes(const template_context& /*ctx*/, const elementwise_config& /*config*/) const {
    return sym_expr(0);
  }

  /// @brief The launch of render()'s entry: one grid-stride kernel `<kernel>_main` of
  /// block_threads threads, at most 65535 blocks (see codegen/launch.hpp).
  [[nodiscard]] launch_description describe_launch(rocm_template_kernel& kernel, const template_context& ctx,
                                                   const elementwise_config& config) const;

  /// @brief Renders the complete translation unit, as parts.
  /// @throws config_error for an invalid configuration; invalid_argument_error for inputs of the
  /// wrong rank or shape, or an unsupported dtype.
  [[nodiscard]] rendered_source render(rocm_template_kernel& kernel, const template_context& ctx,
                                       const elementwise_config& config) const;

 private:
  // Checks the configuration and the problem and binds the tensors.
  void bind_tensors(rocm_template_kernel& kernel, const template_context& ctx, const elementwise_config& config) const;

  // The launch of a bound kernel.
  static launch_description launch_of(const rocm_template_kernel& kernel, const template_context& ctx,
                                      const elementwise_config& config);

  static void check_problem(const buffer* x, const buffer* bias, const buffer& y);

  // The kernel's body (the extern "C" kernel calls it): one grid-stride loop over the elements.
  void write_kernel(indented_buffer& src, rocm_template_kernel& kernel, const buffer* x, const buffer* bias,
                    const buffer& y, const std::string& params) const;

  // The C entry point's body (its declaration, and the device-only guard, come from the parts):
  // checks, the workspace query (none), the launch of the description.
  static void write_entry(indented_buffer& src, rocm_template_kernel& kernel, const buffer* x, const buffer* bias,
                          const buffer& y, const launch_description& d);

  [[nodiscard]] std::string activation_function() const { return activation_device_function(options_.act); }

  static std::string storage(const buffer& b) { return detail::storage_text(b); }
  static std::string load(dtype t, const std::string& expr) { return detail::load_as_float(t, expr); }
  static std::string store(dtype t, const std::string& expr) { return detail::store_from_float(t, expr); }

  elementwise_options options_;
};

static_assert(kernel_template<elementwise_policy>);

}  // namespace rocmtpl::templates

#ifdef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/kernel/rocm_template.hpp>

namespace rocmtpl {
// The stock policy's rocm_template, instantiated once by src/templates.cpp.
extern template class rocm_template<templates::elementwise_policy>;
}  // namespace rocmtpl
#endif

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/elementwise-inl.hpp>
#endif

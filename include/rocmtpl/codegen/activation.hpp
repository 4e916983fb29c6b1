// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief activation: the elementwise functions generated code applies to one fp32 value, their
/// names and their device text, in one table. Every renderer spells an activation from here: the
/// built-in epilogue of the GEMM and elementwise templates (`apply_activation()`,
/// activation_device_function()), the GEMM's reference kernel, epilogue chains (fused epilogues and
/// the pointwise template, codegen/epilogue.hpp) and the constant-evaluation renderer
/// (templates/static_source.hpp).
///
/// @code{.cpp}
/// rocmtpl::to_string(rocmtpl::activation::gelu_tanh);              // "gelu_tanh"
/// rocmtpl::activation_expression(rocmtpl::activation::gelu_tanh);  // "rocmtpl_dev::gelu_tanh(v)"
/// rocmtpl::parse_activation("silu");                               // activation::silu
/// @endcode

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

/// @brief An elementwise function on one fp32 value `v`.
enum class activation : std::uint8_t {
  none,       ///< `v`
  relu,       ///< `max(v, 0)`
  gelu,       ///< `v Phi(v)`, the erf form (PyTorch's default): `rocmtpl_dev::gelu()`
  gelu_tanh,  ///< `0.5 v (1 + tanh(sqrt(2 / pi) (v + 0.044715 v^3)))` (PyTorch's `approximate='tanh'`):
              ///< `rocmtpl_dev::gelu_tanh()`, on the hardware tanh where there is one
  silu,       ///< `v / (1 + exp(-v))`: `rocmtpl_dev::silu()`, on the hardware exponential
  sigmoid,    ///< `1 / (1 + exp(-v))`: `rocmtpl_dev::sigmoid()`, likewise
  tanh,       ///< `tanh(v)`
};

namespace detail {
struct activation_info {
  activation value;
  std::string_view name;        // what to_string() gives and parse_activation() reads
  std::string_view expression;  // the value on `float v`, as device code (both forms of a chain use it)
};

// The one table: each activation's name and device text. The statement forms around the text
// (`return <text>;` in apply_activation(), `v = <text>;` in a chain) are the renderers'.
inline constexpr std::array<activation_info, 7> activation_table{{
    {activation::none, "none", "v"},
    {activation::relu, "relu", "v > 0.0f ? v : 0.0f"},
    {activation::gelu, "gelu", "rocmtpl_dev::gelu(v)"},
    {activation::gelu_tanh, "gelu_tanh", "rocmtpl_dev::gelu_tanh(v)"},
    {activation::silu, "silu", "rocmtpl_dev::silu(v)"},
    {activation::sigmoid, "sigmoid", "rocmtpl_dev::sigmoid(v)"},
    {activation::tanh, "tanh", "tanhf(v)"},
}};

[[nodiscard]] constexpr bool activation_table_in_order() noexcept {
  for (std::size_t i = 0; i < activation_table.size(); ++i) {
    if (static_cast<std::size_t>(activation_table[i].value) != i) return false;
  }
  return true;
}
static_assert(activation_table_in_order(), "rocmtpl: activation_table: rows must follow the enum's order");

[[nodiscard]] constexpr const activation_info& activation_row(activation a) noexcept {
  const auto i = static_cast<std::size_t>(a);
  return activation_table[i < activation_table.size() ? i : 0];
}
}  // namespace detail

/// @brief Every activation, in declaration order.
inline constexpr std::array<activation, detail::activation_table.size()> all_activations = [] {
  std::array<activation, detail::activation_table.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = detail::activation_table[i].value;
  return out;
}();

/// @brief Name of an activation ("none", "relu", "gelu_tanh", ...).
[[nodiscard]] constexpr std::string_view to_string(activation a) noexcept { return detail::activation_row(a).name; }

/// @brief The device code of `a` applied to `float v`, an expression (`v > 0.0f ? v : 0.0f`,
/// `rocmtpl_dev::gelu(v)`; `v` for none). The `rocmtpl_dev::` functions are those of the portable
/// header every generated source includes (device/hip_portable.hpp).
[[nodiscard]] constexpr std::string_view activation_expression(activation a) noexcept {
  return detail::activation_row(a).expression;
}

/// @brief The text before `return <activation_expression()>;` in activation_device_function().
inline constexpr std::string_view activation_function_open =
    "__device__ __forceinline__ float apply_activation(float v) { ";
/// @brief The end of activation_device_function().
inline constexpr std::string_view activation_function_close = " }";

/// @brief Parses an activation name.
/// @throws invalid_argument_error naming the text and the accepted names.
[[nodiscard]] activation parse_activation(std::string_view text);

/// @brief The device function `float apply_activation(float)` that the GEMM and elementwise
/// kernels call for `a`: `__device__ __forceinline__ float apply_activation(float v) { return <text>; }`.
[[nodiscard]] std::string activation_device_function(activation a);

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/activation-inl.hpp>
#endif

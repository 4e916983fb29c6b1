// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief activation: the elementwise functions a template's epilogue applies (GEMM, elementwise),
/// their names and the device function generated kernels call.

#include <array>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::templates {

/// @brief Elementwise function applied after the bias.
enum class activation { none, relu, gelu, silu, sigmoid };

/// @brief Every activation, in declaration order.
inline constexpr std::array<activation, 5> all_activations{activation::none, activation::relu, activation::gelu,
                                                           activation::silu, activation::sigmoid};

/// @brief Name of an activation ("none", "relu", ...).
[[nodiscard]] constexpr std::string_view to_string(activation a) noexcept {
  switch (a) {
    case activation::relu: return "relu";
    case activation::gelu: return "gelu";
    case activation::silu: return "silu";
    case activation::sigmoid: return "sigmoid";
    case activation::none: break;
  }
  return "none";
}

/// @brief The statement apply_activation() runs for `a` (`return v > 0.0f ? v : 0.0f;`).
[[nodiscard]] constexpr std::string_view activation_body(activation a) noexcept {
  switch (a) {
    case activation::relu: return "return v > 0.0f ? v : 0.0f;";
    case activation::gelu: return "return rocmtpl_dev::gelu(v);";
    case activation::silu: return "return v / (1.0f + expf(-v));";
    case activation::sigmoid: return "return 1.0f / (1.0f + expf(-v));";
    case activation::none: break;
  }
  return "return v;";
}

/// @brief The text around activation_body() in activation_device_function().
inline constexpr std::string_view activation_function_open =
    "__device__ __forceinline__ float apply_activation(float v) { ";
/// @brief The end of activation_device_function().
inline constexpr std::string_view activation_function_close = " }";

/// @brief Parses an activation name.
/// @throws invalid_argument_error naming the text and the accepted names.
[[nodiscard]] activation parse_activation(std::string_view text);

/// @brief The device function `float apply_activation(float)` generated kernels call for `a`.
[[nodiscard]] std::string activation_device_function(activation a);

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/activation-inl.hpp>
#endif

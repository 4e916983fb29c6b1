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

/// @brief Parses an activation name.
/// @throws invalid_argument_error naming the text and the accepted names.
[[nodiscard]] activation parse_activation(std::string_view text);

/// @brief The device function `float apply_activation(float)` generated kernels call for `a`.
[[nodiscard]] std::string activation_device_function(activation a);

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/activation-inl.hpp>
#endif

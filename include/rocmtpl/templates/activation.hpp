// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief activation: the elementwise functions a template's epilogue applies (GEMM, elementwise),
/// their names and the device function generated kernels call.

#include <array>
#include <string>
#include <string_view>

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
[[nodiscard]] inline activation parse_activation(std::string_view text) {
  for (auto a : all_activations) {
    if (to_string(a) == text) return a;
  }
  throw invalid_argument_error("rocmtpl: activation: unknown activation '" + std::string(text) +
                               "'; expected none, relu, gelu, silu or sigmoid");
}

/// @brief The device function `float apply_activation(float)` generated kernels call for `a`.
[[nodiscard]] inline std::string activation_device_function(activation a) {
  std::string body;
  switch (a) {
    case activation::none: body = "return v;"; break;
    case activation::relu: body = "return v > 0.0f ? v : 0.0f;"; break;
    case activation::gelu: body = "return rocmtpl_dev::gelu(v);"; break;
    case activation::silu: body = "return v / (1.0f + expf(-v));"; break;
    case activation::sigmoid: body = "return 1.0f / (1.0f + expf(-v));"; break;
  }
  return "__device__ __forceinline__ float apply_activation(float v) { " + body + " }";
}

}  // namespace rocmtpl::templates

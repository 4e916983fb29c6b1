// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/activation.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE activation parse_activation(std::string_view text) {
  for (auto a : all_activations) {
    if (to_string(a) == text) return a;
  }
  throw invalid_argument_error("rocmtpl: activation: unknown activation '" + std::string(text) +
                               "'; expected none, relu, gelu, silu or sigmoid");
}

ROCMTPL_INLINE std::string activation_device_function(activation a) {
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

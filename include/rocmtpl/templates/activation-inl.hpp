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
  std::string out(activation_function_open);
  out += activation_body(a);
  out += activation_function_close;
  return out;
}

}  // namespace rocmtpl::templates

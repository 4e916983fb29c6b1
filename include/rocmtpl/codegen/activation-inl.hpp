// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/activation.hpp: included at its end (header-only) or compiled once by
// src/codegen.cpp, after it (so it does not include it back).

#include <cstddef>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

ROCMTPL_INLINE activation parse_activation(std::string_view text) {
  for (const auto& row : detail::activation_table) {
    if (row.name == text) return row.value;
  }
  // "expected none, relu, ... or tanh", from the table.
  std::string names;
  for (std::size_t i = 0; i < detail::activation_table.size(); ++i) {
    if (i != 0) names += i + 1 == detail::activation_table.size() ? " or " : ", ";
    names += detail::activation_table[i].name;
  }
  throw invalid_argument_error("rocmtpl: activation: unknown activation '" + std::string(text) + "'; expected " +
                               names);
}

ROCMTPL_INLINE std::string activation_device_function(activation a) {
  std::string out(activation_function_open);
  out += "return ";
  out += activation_expression(a);
  out += ';';
  out += activation_function_close;
  return out;
}

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of ir/dtype.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

namespace detail {
ROCMTPL_INLINE const dtype_info& info(dtype d) {
  const auto index = static_cast<std::size_t>(d);
  if (index >= dtype_table.size()) {
    throw invalid_argument_error("rocmtpl: dtype: unknown dtype value " + std::to_string(index) +
                                 " has no HIP spelling (valid values are 0.." + std::to_string(dtype_table.size() - 1) +
                                 ")");
  }
  return dtype_table[index];
}
}  // namespace detail

ROCMTPL_INLINE dtype parse_dtype(std::string_view text) {
  for (const auto& entry : detail::dtype_table) {
    if (entry.name == text) return entry.value;
  }
  struct alias {
    std::string_view text;
    dtype value;
  };
  static constexpr std::array<alias, 12> aliases{{{"f16", dtype::f16},
                                                  {"fp16", dtype::f16},
                                                  {"half", dtype::f16},
                                                  {"bf16", dtype::bf16},
                                                  {"f32", dtype::f32},
                                                  {"fp32", dtype::f32},
                                                  {"float", dtype::f32},
                                                  {"f64", dtype::f64},
                                                  {"fp64", dtype::f64},
                                                  {"double", dtype::f64},
                                                  {"fp8e4m3", dtype::f8e4m3},
                                                  {"fp8e5m2", dtype::f8e5m2}}};
  for (const auto& a : aliases) {
    if (a.text == text) return a.value;
  }
  std::string known;
  for (const auto& entry : detail::dtype_table) {
    if (!known.empty()) known += ", ";
    known += entry.name;
  }
  throw invalid_argument_error("rocmtpl: dtype: unknown dtype '" + std::string(text) + "'; expected one of " + known);
}

ROCMTPL_INLINE std::string dtype_code_macro(dtype d) {
  std::string macro = "ROCMTPL_DTYPE_";
  for (char c : name(d)) macro += c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  return macro;
}

ROCMTPL_INLINE std::string dtype_code_defines() {
  std::string text;
  for (const auto& entry : detail::dtype_table) {
    text += "#define " + dtype_code_macro(entry.value) + " " + std::to_string(dtype_code(entry.value)) + "\n";
  }
  return text;
}

ROCMTPL_INLINE dtype dtype_from_code(std::int64_t code) {
  if (code < 0 || code >= static_cast<std::int64_t>(detail::dtype_table.size())) {
    throw invalid_argument_error("rocmtpl: dtype: " + std::to_string(code) + " is not a dtype code; expected 0.." +
                                 std::to_string(detail::dtype_table.size() - 1));
  }
  return detail::dtype_table[static_cast<std::size_t>(code)].value;
}

}  // namespace rocmtpl

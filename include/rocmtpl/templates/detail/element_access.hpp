// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Text of element loads and stores in generated code, shared by the templates: a tensor
/// element read as fp32 and an fp32 value written back in the tensor's storage type, and the
/// literals of float options.

#include <cstdio>
#include <string>

#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>

namespace rocmtpl::templates::detail {

// `expr` (an element of storage type of `t`) as a float expression.
[[nodiscard]] inline std::string load_as_float(dtype t, const std::string& expr) {
  switch (t) {
    case dtype::f16: return "rocmtpl_dev::half_bits_to_float(" + expr + ")";
    case dtype::bf16: return "rocmtpl_dev::bf16_bits_to_float(" + expr + ")";
    default: return "static_cast<float>(" + expr + ")";
  }
}

// The float expression `expr` converted to the storage type of `t`.
[[nodiscard]] inline std::string store_from_float(dtype t, const std::string& expr) {
  switch (t) {
    case dtype::f16: return "rocmtpl_dev::float_to_half_bits(" + expr + ")";
    case dtype::bf16: return "rocmtpl_dev::float_to_bf16_bits(" + expr + ")";
    default: return expr;
  }
}

// The storage type a buffer's pointer has in generated code.
[[nodiscard]] inline std::string storage_text(const buffer& b) { return std::string(storage_type(b.type())); }

// Shortest text that reads back as the same float ("%.9g" round-trips every float), without suffix.
[[nodiscard]] inline std::string round_trip_literal(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// `v` as a float literal (`0.5f`) and as a double literal (`0.5`).
[[nodiscard]] inline std::string float_literal(float v) { return round_trip_literal(v) + "f"; }
[[nodiscard]] inline std::string double_literal(float v) { return round_trip_literal(v); }

}  // namespace rocmtpl::templates::detail

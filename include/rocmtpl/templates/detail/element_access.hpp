// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Text of element loads and stores in generated code, shared by the templates: a tensor
/// element read as fp32 and an fp32 value written back in the tensor's storage type, and the
/// literals of float options.

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>

namespace rocmtpl::templates::detail {

// The function a load of dtype `t` calls, with its opening parenthesis: load_as_float() is
// `<load_open(t)><expr>)` for f16 and bf16, `static_cast<float>(<expr>)` otherwise. Constant, so
// that the constant-evaluation renderer (templates/static_source.hpp) spells it from here too.
[[nodiscard]] constexpr std::string_view load_open(dtype t) noexcept {
  switch (t) {
    case dtype::f16: return "rocmtpl_dev::half_bits_to_float(";
    case dtype::bf16: return "rocmtpl_dev::bf16_bits_to_float(";
    default: return "static_cast<float>(";
  }
}

// The conversion a store of dtype `t` calls, with its opening parenthesis; empty for f32 (the
// value is stored as it is, without parentheses).
[[nodiscard]] constexpr std::string_view store_open(dtype t) noexcept {
  switch (t) {
    case dtype::f16: return "rocmtpl_dev::float_to_half_bits(";
    case dtype::bf16: return "rocmtpl_dev::float_to_bf16_bits(";
    default: return "";
  }
}

// `expr` (an element of storage type of `t`) as a float expression.
[[nodiscard]] std::string load_as_float(dtype t, const std::string& expr);

// The float expression `expr` converted to the storage type of `t`.
[[nodiscard]] std::string store_from_float(dtype t, const std::string& expr);

// The storage type a buffer's pointer has in generated code.
[[nodiscard]] inline std::string storage_text(const buffer& b) { return std::string(storage_type(b.type())); }

// Shortest text that reads back as the same float ("%.9g" round-trips every float), without suffix.
// Throws invalid_argument_error for NaN and infinities (no literal spells them).
[[nodiscard]] std::string round_trip_literal(float v);

// `v` as a float literal (`0.5f`) and as a double literal (`0.5`).
[[nodiscard]] inline std::string float_literal(float v) { return round_trip_literal(v) + "f"; }
[[nodiscard]] inline std::string double_literal(float v) { return round_trip_literal(v); }

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/detail/element_access-inl.hpp>
#endif

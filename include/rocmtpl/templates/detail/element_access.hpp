// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Text of element loads and stores in generated code, shared by the templates: a tensor
/// element read as fp32 and an fp32 value written back in the tensor's storage type, and the
/// literals of float options.

#include <string>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>

namespace rocmtpl::templates::detail {

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

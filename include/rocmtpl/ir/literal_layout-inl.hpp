// SPDX-License-Identifier: MIT
#pragma once

// The implementation of ir/literal_layout.hpp: included at its end (header-only) or compiled once by src/ir.cpp,
// after it (so it does not include it back). The failures of literal layouts: at run time, the errors (and
// messages) that layout, sym_expr and buffer throw for the same input.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl::detail {

ROCMTPL_INLINE void literal_layout_int64_overflow(std::int64_t a, char op, std::int64_t b) {
  throw evaluation_error("rocmtpl: sym_expr: int64_t overflow in " + std::to_string(a) + " " + op + " " +
                         std::to_string(b) + "; the value does not fit in int64_t");
}

ROCMTPL_INLINE void literal_layout_too_many_factors(std::size_t degree) {
  throw evaluation_error("rocmtpl: literal_dim: a product of " + std::to_string(degree) +
                         " symbols; a literal_dim holds at most " + std::to_string(literal_dim::max_factors) +
                         " (use the runtime layout for this shape)");
}

ROCMTPL_INLINE void literal_layout_bad_symbol(std::string_view name) {
  check_name("sym_expr: symbol name", name);
  throw invalid_argument_error("rocmtpl: literal_dim: symbol name '" + std::string(name) + "' is longer than " +
                               std::to_string(literal_dim::max_name) + " characters; shorten it");
}

ROCMTPL_INLINE void literal_layout_negative_value(const char* what, std::int64_t value, std::size_t dimension) {
  if (std::string_view(what) == "offset") {
    throw invalid_argument_error("rocmtpl: layout: negative offset " + std::to_string(value));
  }
  throw invalid_argument_error("rocmtpl: layout: negative " + std::string(what) + " " + std::to_string(value) +
                               " at dimension " + std::to_string(dimension));
}

ROCMTPL_INLINE void literal_layout_col_major_rank(std::size_t rank) {
  throw invalid_argument_error("rocmtpl: layout: col_major needs rank >= 2, got rank " + std::to_string(rank));
}

ROCMTPL_INLINE void literal_layout_index_out_of_range(const char* what, std::int64_t index, std::size_t rank) {
  throw out_of_range_error("rocmtpl: layout: " + std::string(what) + " index " + std::to_string(index) +
                           " out of range for rank " + std::to_string(rank));
}

ROCMTPL_INLINE void literal_layout_not_constant(std::string_view text) {
  throw evaluation_error("rocmtpl: literal_layout: " + std::string(text) +
                         " has symbols, so it has no value yet; ask constant() first or give the symbols values");
}

ROCMTPL_INLINE void literal_buffer_bad_name(std::string_view name) {
  check_name("buffer: name", name);
  throw invalid_argument_error("rocmtpl: literal_buffer: name '" + std::string(name) + "' is longer than " +
                               std::to_string(literal_buffer<0>::max_name) + " characters; shorten it");
}

ROCMTPL_INLINE void literal_buffer_sizes_overflow_int64(std::string_view name, std::string_view layout_text,
                                                        std::string_view why) {
  throw evaluation_error("rocmtpl: buffer: '" + std::string(name) + "' " + std::string(layout_text) +
                         ": sizes overflow int64_t (" + std::string(why) + "); use smaller sizes");
}

}  // namespace rocmtpl::detail

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief arg_info: a template runtime argument (the reference's ArgInfo) and its value.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

/// @brief Name and C type of a runtime argument that follows the size arguments (e.g. `split_k`, `int32_t`).
///
/// Runtime arguments are integers: the host passes every non-pointer argument of the C ABI in an
/// integer register or stack slot, so the allowed types are the fixed-width integer types.
struct arg_info {
  std::string name;  ///< the parameter's name in the entry point
  std::string ty;    ///< its C type, one of allowed_types

  /// @brief Integer C types a runtime argument may have.
  static constexpr std::array<std::string_view, 6> allowed_types{"int32_t",  "int64_t", "uint32_t",
                                                                 "uint64_t", "int",     "bool"};

  /// @throws invalid_argument_error if the name is not a valid name (is_valid_name()) or the type is
  /// not allowed.
  void validate() const;

  /// @brief Member-wise equality.
  friend bool operator==(const arg_info&, const arg_info&) = default;
};

/// @brief Value of a runtime argument (always an integer; see arg_info).
using runtime_arg_value = std::int64_t;

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/arg_info-inl.hpp>
#endif

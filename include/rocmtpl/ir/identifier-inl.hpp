// SPDX-License-Identifier: MIT
#pragma once

// The implementation of ir/identifier.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

ROCMTPL_INLINE void check_name(std::string_view entity, std::string_view name) {
  if (const auto problem = identifier_problem(name); !problem.empty()) {
    throw invalid_argument_error("rocmtpl: " + std::string(entity) + " '" + std::string(name) + "' " +
                                 std::string(problem));
  }
}

ROCMTPL_INLINE std::string user_identifier(std::string_view name) {
  std::string out(user_identifier_prefix);
  out += name;
  return out;
}

}  // namespace rocmtpl

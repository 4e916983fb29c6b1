// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/arg_info.hpp: included at its end (header-only) or compiled once by src/codegen.cpp,
// after it (so it does not include it back).

#include <algorithm>
#include <string>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

ROCMTPL_INLINE void arg_info::validate() const {
  check_name("arg_info: runtime argument name", name);
  if (std::find(allowed_types.begin(), allowed_types.end(), ty) == allowed_types.end()) {
    throw invalid_argument_error("rocmtpl: arg_info: runtime argument '" + name + "' has type '" + ty +
                                 "'; use an integer type (int32_t, int64_t, uint32_t, uint64_t, int, bool)");
  }
}

}  // namespace rocmtpl

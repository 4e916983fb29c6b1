// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/descriptor.hpp: included at its end (header-only) or compiled
// once by src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE bool gemm_problem::is_symbolic(std::string_view role) const {
  return std::find(symbolic.begin(), symbolic.end(), role) != symbolic.end();
}

ROCMTPL_INLINE size_hints gemm_problem::hints() const {
  size_hints h;
  for (const auto& [role, value] :
       std::vector<std::pair<std::string, std::int64_t>>{{"M", m}, {"N", n}, {"K", k}, {"B", batch}}) {
    if (is_symbolic(role)) h[role] = value;
  }
  return h;
}

}  // namespace rocmtpl::templates

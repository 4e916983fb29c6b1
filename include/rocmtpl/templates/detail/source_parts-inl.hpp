// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/detail/source_parts.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE void append_size_symbols(std::string& params, std::string& args,
                                        const std::vector<std::string>& symbols) {
  for (const auto& s : symbols) {
    params += ", int64_t " + s;
    args += ", " + s;
  }
}

}  // namespace rocmtpl::templates::detail

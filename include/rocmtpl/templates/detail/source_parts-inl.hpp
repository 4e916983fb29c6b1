// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/detail/source_parts.hpp: included by it (header-only) or compiled once by
// src/templates.cpp.

#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE void append_size_symbols(std::string& params, std::string& args,
                                        const std::vector<std::string>& symbols) {
  for (const auto& s : symbols) {
    params += ", int64_t " + s;
    args += ", " + s;
  }
}

}  // namespace rocmtpl::templates::detail

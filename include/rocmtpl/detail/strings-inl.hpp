// SPDX-License-Identifier: MIT
#pragma once

// The implementation of detail/strings.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::detail {

ROCMTPL_INLINE std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::size_t size = 0;
  for (const auto& p : parts) size += p.size() + sep.size();
  std::string out;
  out.reserve(size);
  for (const auto& p : parts) {
    if (!out.empty() || &p != &parts.front()) out += sep;
    out += p;
  }
  return out;
}

}  // namespace rocmtpl::detail

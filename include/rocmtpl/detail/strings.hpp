// SPDX-License-Identifier: MIT
#pragma once

// String helpers shared by the whole library (one implementation each).

#include <string>
#include <string_view>
#include <vector>

namespace rocmtpl::detail {

/// Joins `parts` with `sep` between them ("a, b, c").
[[nodiscard]] inline std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ") {
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

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of detail/hash.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::detail {

ROCMTPL_INLINE std::uint64_t hash64(std::string_view text) noexcept { return XXH3_64bits(text.data(), text.size()); }

ROCMTPL_INLINE std::string hex16(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

}  // namespace rocmtpl::detail

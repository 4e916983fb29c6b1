// SPDX-License-Identifier: MIT
#pragma once

// Stable content hashes (xxHash XXH3-64) as fixed-width lowercase hex.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <xxhash.h>

namespace rocmtpl::detail {

[[nodiscard]] inline std::uint64_t hash64(std::string_view text) noexcept {
  return XXH3_64bits(text.data(), text.size());
}

[[nodiscard]] inline std::string hex16(std::uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value));
  return buf;
}

[[nodiscard]] inline std::string hash_hex(std::string_view text) { return hex16(hash64(text)); }

}  // namespace rocmtpl::detail

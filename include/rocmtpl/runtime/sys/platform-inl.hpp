// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/sys/platform.hpp: included at its end (header-only) or compiled once by
// src/runtime/sys.cpp, after it (so it does not include it back).

#include <optional>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE std::optional<platform> parse_platform_choice(std::string_view text) {
  if (text.empty() || text == "auto") return std::nullopt;
  if (text == "amd") return platform::amd;
  if (text == "nvidia") return platform::nvidia;
  throw invalid_argument_error("rocmtpl: ROCMTPL_PLATFORM='" + std::string(text) +
                               "' is not a platform; use amd, nvidia or auto");
}

}  // namespace rocmtpl::runtime

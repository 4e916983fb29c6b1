// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Library version; CMake reads these three lines (one source of truth).

#define ROCMTPL_VERSION_MAJOR 0
#define ROCMTPL_VERSION_MINOR 1
#define ROCMTPL_VERSION_PATCH 0

namespace rocmtpl {
/// @brief The library version as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";
}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Library version; CMake reads these three lines (one source of truth).

#define ROCMTPL_VERSION_MAJOR 0  ///< major version
#define ROCMTPL_VERSION_MINOR 1  ///< minor version
#define ROCMTPL_VERSION_PATCH 0  ///< patch version

namespace rocmtpl {
/// @brief The library version as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";
}  // namespace rocmtpl

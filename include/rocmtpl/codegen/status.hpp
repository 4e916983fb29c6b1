// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Return codes of generated entry points; nothing is ever thrown across the C ABI.

#include <string_view>

namespace rocmtpl {

/// @brief What a generated `extern "C"` entry point returns.
enum class kernel_status : int {
  ok = 0,
  launch_failed = 1,         ///< the GPU runtime reported an error after the launch
  null_argument = 2,         ///< a tensor pointer is null while its size is not zero
  unsupported_argument = 3,  ///< sizes or runtime args the configuration cannot handle
  workspace_too_small = 4,   ///< the workspace pointer is null while workspace is needed
};

/// @brief Human-readable text of a status code (unknown codes included).
[[nodiscard]] constexpr std::string_view describe(int code) noexcept {
  switch (code) {
    case 0: return "ok";
    case 1: return "kernel launch failed";
    case 2: return "null tensor argument with a non-zero size";
    case 3: return "arguments not supported by this kernel configuration";
    case 4: return "workspace missing or too small";
    default: return "unknown status";
  }
}

/// @brief The `#define`s generated sources use for these codes (part of globals()).
inline constexpr std::string_view kernel_status_defines =
    "#define ROCMTPL_STATUS_OK 0\n"
    "#define ROCMTPL_STATUS_LAUNCH_FAILED 1\n"
    "#define ROCMTPL_STATUS_NULL_ARGUMENT 2\n"
    "#define ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT 3\n"
    "#define ROCMTPL_STATUS_WORKSPACE_TOO_SMALL 4\n";

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Return codes of generated entry points; nothing is ever thrown across the C ABI.

#include <ostream>
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

/// @brief The status an entry point's `int` return value stands for. The one place the host turns
/// the C ABI's integer into a kernel_status; codes this library does not know stay representable
/// (describe() calls them "unknown status").
[[nodiscard]] constexpr kernel_status to_kernel_status(int code) noexcept { return static_cast<kernel_status>(code); }

/// @brief The integer a status is returned as through the C ABI.
[[nodiscard]] constexpr int status_code(kernel_status s) noexcept { return static_cast<int>(s); }

/// @brief Human-readable text of a status (unknown codes included).
[[nodiscard]] constexpr std::string_view describe(kernel_status status) noexcept {
  switch (status) {
    case kernel_status::ok: return "ok";
    case kernel_status::launch_failed: return "kernel launch failed";
    case kernel_status::null_argument: return "null tensor argument with a non-zero size";
    case kernel_status::unsupported_argument: return "arguments not supported by this kernel configuration";
    case kernel_status::workspace_too_small: return "workspace missing or too small";
  }
  return "unknown status";
}

/// @brief Prints "<code> (<description>)", e.g. "2 (null tensor argument with a non-zero size)".
inline std::ostream& operator<<(std::ostream& os, kernel_status status) {
  return os << status_code(status) << " (" << describe(status) << ")";
}

/// @brief The `#define`s generated sources use for these codes (part of globals()).
inline constexpr std::string_view kernel_status_defines =
    "#define ROCMTPL_STATUS_OK 0\n"
    "#define ROCMTPL_STATUS_LAUNCH_FAILED 1\n"
    "#define ROCMTPL_STATUS_NULL_ARGUMENT 2\n"
    "#define ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT 3\n"
    "#define ROCMTPL_STATUS_WORKSPACE_TOO_SMALL 4\n";

namespace detail {
// kernel_status_defines must spell every enumerator with its value: "#define <macro> <digit>\n".
constexpr bool defines_status(std::string_view macro, kernel_status status) {
  const std::string_view defines = kernel_status_defines;
  const auto at = defines.find(macro);
  const auto value = at + macro.size() + 1;
  return at != std::string_view::npos && at >= 8 && defines.substr(at - 8, 8) == "#define " &&
         value + 1 < defines.size() && defines[value - 1] == ' ' && defines[value] == '0' + status_code(status) &&
         defines[value + 1] == '\n';
}
static_assert(defines_status("ROCMTPL_STATUS_OK", kernel_status::ok) &&
                  defines_status("ROCMTPL_STATUS_LAUNCH_FAILED", kernel_status::launch_failed) &&
                  defines_status("ROCMTPL_STATUS_NULL_ARGUMENT", kernel_status::null_argument) &&
                  defines_status("ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT", kernel_status::unsupported_argument) &&
                  defines_status("ROCMTPL_STATUS_WORKSPACE_TOO_SMALL", kernel_status::workspace_too_small),
              "rocmtpl: kernel_status_defines: a macro's value differs from kernel_status; keep them in step");
}  // namespace detail

}  // namespace rocmtpl

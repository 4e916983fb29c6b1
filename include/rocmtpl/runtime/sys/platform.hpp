// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GPU vendor platform: the one enum that the GPU runtime loader, the compiler driver
/// and the tuner share, and the parser of `ROCMTPL_PLATFORM`.

#include <optional>
#include <string>
#include <string_view>

#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

/// @brief GPU vendor platform: which runtime is loaded and which compiler builds for it.
enum class platform {
  amd,    ///< AMD GPUs: libamdhip64, hipcc (clang)
  nvidia  ///< NVIDIA GPUs: libcudart, nvcc with the library's HIP-on-CUDA header
};

/// @brief "amd" or "nvidia".
[[nodiscard]] constexpr std::string_view to_string(platform p) noexcept {
  return p == platform::amd ? "amd" : "nvidia";
}

/// @brief Parses a platform choice as `ROCMTPL_PLATFORM` spells it.
/// @return the platform, or std::nullopt for "auto" and the empty string (detect what is present).
/// @throws invalid_argument_error naming the text and the accepted values for anything else.
[[nodiscard]] inline std::optional<platform> parse_platform_choice(std::string_view text) {
  if (text.empty() || text == "auto") return std::nullopt;
  if (text == "amd") return platform::amd;
  if (text == "nvidia") return platform::nvidia;
  throw invalid_argument_error("rocmtpl: ROCMTPL_PLATFORM='" + std::string(text) +
                               "' is not a platform; use amd, nvidia or auto");
}

}  // namespace rocmtpl::runtime

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GPU vendor platform: the one enum that the GPU runtime loader, the compiler driver
/// and the tuner share, and the parser of `ROCMTPL_PLATFORM`.

#include <optional>
#include <string_view>

#include <rocmtpl/core/config.hpp>
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
[[nodiscard]] std::optional<platform> parse_platform_choice(std::string_view text);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/sys/platform-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief How the GPU runtime is loaded: which platform, which library files, an AMD arch
/// override; `gpu_runtime_options::from_environment()` reads them from the environment and refuses
/// an invalid `ROCMTPL_PLATFORM`.

#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

/// @brief Settings for loading a runtime; gpu_runtime::instance() takes them from the environment.
struct gpu_runtime_options {
  /// The platform whose runtime is loaded; nullopt ("auto"): CUDA, then HIP, the first with a device wins.
  std::optional<platform> platform_choice{};
  /// CUDA runtime files tried in order (names for the loader's search, or paths).
  std::vector<std::string> nvidia_libraries;
  /// HIP runtime files tried in order (names for the loader's search, or paths).
  std::vector<std::string> amd_libraries;
  /// Arch reported for AMD devices instead of the runtime's (env ROCMTPL_AMD_ARCH).
  std::string amd_arch_override;

  /// @brief Defaults plus the environment: ROCMTPL_PLATFORM, ROCMTPL_AMD_ARCH, CUDA_PATH, CUDA_HOME, ROCM_PATH.
  /// @return the options.
  /// @throws invalid_argument_error when ROCMTPL_PLATFORM is set to anything but `amd`, `nvidia`,
  ///         `auto` or the empty string; the message names the variable and its value. A typo never
  ///         falls back silently to "no GPU".
  [[nodiscard]] static gpu_runtime_options from_environment();

  /// @brief The AMD emulator as the process's HIP runtime (issue 23): platform amd, the emulator's
  /// runtime library (runtime/build/amd_emulator.hpp: amd_emulator_runtime_library()) as the only
  /// HIP library, no CUDA. One device, "AMD emulator (wave64, CPU)"; its events measure nothing.
  /// @param runtime_library the emulator's runtime library
  [[nodiscard]] static gpu_runtime_options amd_emulator(const std::string& runtime_library);
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/gpu/options-inl.hpp>
#endif

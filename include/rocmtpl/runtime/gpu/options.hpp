// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief How the GPU runtime is loaded: which platform, which library files, an AMD arch
/// override; `gpu_runtime_options::from_environment()` reads them from the environment and refuses
/// an invalid `ROCMTPL_PLATFORM`.

#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

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
};

inline gpu_runtime_options gpu_runtime_options::from_environment() {
  gpu_runtime_options options;
  if (const char* choice = std::getenv("ROCMTPL_PLATFORM")) options.platform_choice = parse_platform_choice(choice);
  if (const char* arch = std::getenv("ROCMTPL_AMD_ARCH")) options.amd_arch_override = arch;
  // Loader search first (LD_LIBRARY_PATH, ld.so.cache), then the toolkits' usual folders.
  constexpr std::array<const char*, 3> cudart{"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
  options.nvidia_libraries.assign(cudart.begin(), cudart.end());
  for (const char* root :
       std::array<const char*, 3>{std::getenv("CUDA_PATH"), std::getenv("CUDA_HOME"), "/usr/local/cuda"}) {
    if (root == nullptr || *root == '\0') continue;
    for (const char* file : cudart) options.nvidia_libraries.push_back(std::string(root) + "/lib64/" + file);
  }
  options.amd_libraries = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
  for (const char* root : std::array<const char*, 2>{std::getenv("ROCM_PATH"), "/opt/rocm"}) {
    if (root == nullptr || *root == '\0') continue;
    options.amd_libraries.push_back(std::string(root) + "/lib/libamdhip64.so");
  }
  return options;
}

}  // namespace rocmtpl::runtime

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/gpu/options.hpp: included at its end (header-only) or compiled once by
// src/runtime/gpu.cpp, after it (so it does not include it back).

#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE gpu_runtime_options gpu_runtime_options::from_environment() {
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

ROCMTPL_INLINE gpu_runtime_options gpu_runtime_options::amd_emulator(const std::string& runtime_library) {
  gpu_runtime_options options;
  options.platform_choice = platform::amd;
  options.amd_libraries = {runtime_library};
  if (const char* arch = std::getenv("ROCMTPL_AMD_ARCH")) options.amd_arch_override = arch;
  return options;
}

}  // namespace rocmtpl::runtime

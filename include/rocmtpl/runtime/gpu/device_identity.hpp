// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Which GPU this process would use, known without starting a GPU runtime.
///
/// Starting the CUDA or HIP runtime costs about 10 ms (driver initialisation); a warm tune that is
/// answered from the tuning database must not pay it. The driver describes its GPUs in files
/// (/proc/driver/nvidia, /sys/class/kfd) that read in microseconds: their contents, plus the
/// variables that choose the visible devices, form a fingerprint. The first process that starts a
/// runtime records fingerprint -> {platform, name, arch}; later ones read it back.

#include <filesystem>
#include <optional>
#include <string>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>

namespace rocmtpl::runtime {

/// @brief The device a tune runs on: enough for the tuning key and the compile target.
struct device_identity {
  platform kind = platform::nvidia;  ///< the vendor platform
  std::string name;                  ///< the model as the GPU runtime names it (tuning_key::device)
  std::string arch;                  ///< its architecture, e.g. "sm_90", "gfx90a" (tuning_key::arch)
  /// @brief Member-wise equality.
  friend bool operator==(const device_identity&, const device_identity&) = default;
};

namespace detail {
std::string read_small_file(const std::filesystem::path& p);

std::string read_entries(const std::filesystem::path& dir, const char* leaf);
}  // namespace detail

/// @brief A fingerprint of the visible GPUs and driver, or nullopt where the driver exposes none.
[[nodiscard]] std::optional<std::string> gpu_fingerprint();

namespace detail {
std::optional<std::filesystem::path> identity_file();
}  // namespace detail

/// @brief The identity recorded for this fingerprint, without starting a runtime; nullopt when
/// none was recorded (or the driver exposes no fingerprint).
[[nodiscard]] std::optional<device_identity> cached_device_identity();

/// @brief The identity of the current device from the runtime (starting it), recorded for
/// cached_device_identity(); nullopt without a GPU.
[[nodiscard]] std::optional<device_identity> query_device_identity();

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/gpu/device_identity-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The root folder of everything rocmtpl caches on disk (device headers, compiled kernels,
/// the tuning database).

#include <filesystem>
#include <string>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

/// @brief A cache folder could not be found, created or written.
class cache_directory_error : public rocmtpl::error {
 public:
  /// @brief Makes the error.
  /// @param path the folder or file concerned.
  /// @param what_failed what the library tried, in words ("cannot create", ...).
  /// @param reason the system's reason.
  cache_directory_error(std::filesystem::path path, const std::string& what_failed, const std::string& reason);

  /// @brief The folder or file concerned.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

namespace detail {
[[nodiscard]] const char* non_empty_env(const char* name) noexcept;
}  // namespace detail

/// @brief The cache root, created if missing.
///
/// In order: `$ROCMTPL_CACHE_DIR`; `$XDG_CACHE_HOME/rocmtpl` (when XDG_CACHE_HOME is an absolute
/// path, as the XDG base directory specification requires); `$HOME/.cache/rocmtpl`. The
/// environment is read on every call, so a program (or a test) may change it.
/// @return the absolute path of the folder, which exists when the call returns.
/// @throws cache_directory_error when none of the variables is usable or the folder cannot be created.
[[nodiscard]] std::filesystem::path cache_root();

/// @brief Where cache_root() is, without creating it (readers that must leave no trace: a tool
/// asked to list a database that does not exist creates neither it nor its folder).
/// @return the absolute, normalised path of the folder, which may not exist.
/// @throws cache_directory_error when none of the variables is usable.
[[nodiscard]] std::filesystem::path cache_root_location();

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/sys/cache_root-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The root folder of everything rocmtpl caches on disk (device headers, compiled kernels,
/// the tuning database).

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

/// @brief A cache folder could not be found, created or written.
class cache_directory_error : public rocmtpl::error {
 public:
  /// @brief Makes the error.
  /// @param path the folder or file concerned.
  /// @param what_failed what the library tried, in words ("cannot create", ...).
  /// @param reason the system's reason.
  cache_directory_error(std::filesystem::path path, const std::string& what_failed, const std::string& reason)
      : rocmtpl::error("rocmtpl: cache: " + what_failed + " '" + path.string() + "': " + reason),
        path_(std::move(path)) {}

  /// @brief The folder or file concerned.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

namespace detail {
[[nodiscard]] inline const char* non_empty_env(const char* name) noexcept {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}
}  // namespace detail

/// @brief The cache root, created if missing.
///
/// In order: `$ROCMTPL_CACHE_DIR`; `$XDG_CACHE_HOME/rocmtpl` (when XDG_CACHE_HOME is an absolute
/// path, as the XDG base directory specification requires); `$HOME/.cache/rocmtpl`. The
/// environment is read on every call, so a program (or a test) may change it.
/// @return the absolute path of the folder, which exists when the call returns.
/// @throws cache_directory_error when none of the variables is usable or the folder cannot be created.
[[nodiscard]] inline std::filesystem::path cache_root() {
  namespace fs = std::filesystem;
  fs::path root;
  if (const char* dir = detail::non_empty_env("ROCMTPL_CACHE_DIR")) {
    root = dir;
  } else if (const char* xdg = detail::non_empty_env("XDG_CACHE_HOME"); xdg != nullptr && fs::path(xdg).is_absolute()) {
    root = fs::path(xdg) / "rocmtpl";
  } else if (const char* home = detail::non_empty_env("HOME")) {
    root = fs::path(home) / ".cache" / "rocmtpl";
  } else {
    throw cache_directory_error(fs::path(), "cannot locate the cache folder",
                                "none of ROCMTPL_CACHE_DIR, XDG_CACHE_HOME, HOME is set; set ROCMTPL_CACHE_DIR");
  }
  std::error_code ec;
  fs::path absolute = fs::absolute(root, ec);
  if (ec) throw cache_directory_error(root, "cannot resolve", ec.message());
  fs::create_directories(absolute, ec);
  if (ec || !fs::is_directory(absolute)) {
    throw cache_directory_error(absolute, "cannot create", ec ? ec.message() : "exists and is not a folder");
  }
  absolute = absolute.lexically_normal();
  if (!absolute.has_filename() && absolute.has_parent_path()) absolute = absolute.parent_path();  // "/x/" -> "/x"
  return absolute;
}

}  // namespace rocmtpl::runtime

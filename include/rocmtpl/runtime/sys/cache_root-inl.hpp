// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/sys/cache_root.hpp: included at its end (header-only) or compiled once by
// src/runtime/sys.cpp, after it (so it does not include it back).

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE cache_directory_error::cache_directory_error(std::filesystem::path path, const std::string& what_failed,
                                                            const std::string& reason)
    : rocmtpl::error("rocmtpl: cache: " + what_failed + " '" + path.string() + "': " + reason),
      path_(std::move(path)) {}

namespace detail {
ROCMTPL_INLINE const char* non_empty_env(const char* name) noexcept {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}
}  // namespace detail

ROCMTPL_INLINE std::filesystem::path cache_root_location() {
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
  absolute = absolute.lexically_normal();
  if (!absolute.has_filename() && absolute.has_parent_path()) absolute = absolute.parent_path();  // "/x/" -> "/x"
  return absolute;
}

ROCMTPL_INLINE std::filesystem::path cache_root() {
  namespace fs = std::filesystem;
  const fs::path absolute = cache_root_location();
  std::error_code ec;
  fs::create_directories(absolute, ec);
  if (ec || !fs::is_directory(absolute)) {
    throw cache_directory_error(absolute, "cannot create", ec ? ec.message() : "exists and is not a folder");
  }
  return absolute;
}

}  // namespace rocmtpl::runtime

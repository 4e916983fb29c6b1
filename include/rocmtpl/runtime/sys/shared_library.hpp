// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief RAII dlopen handle for compiled kernel libraries, and a bounded, thread-safe cache of
/// open libraries.
///
/// Inductor dlopens and dlcloses a kernel's library per benchmark (reference/inductor-behaviour.md
/// §2); library_lru keeps recently used libraries open and hands out shared ownership, so a
/// library stays loaded while anyone still calls into it, however small the cache.

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <bit>
#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <dlfcn.h>

namespace rocmtpl::runtime {

/// @brief dlopen failed (missing file, not a shared library, unresolved dependency). what() has dlerror's text.
class library_load_error : public error {
 public:
  /// @param path the library
  /// @param reason dlerror()'s text
  library_load_error(std::filesystem::path path, const std::string& reason);
  /// @brief The library that failed to load.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// @brief dlerror()'s text.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::filesystem::path path_;
  std::string reason_;
};

/// @brief A symbol is not exported by a loaded library.
class symbol_not_found_error : public error {
 public:
  /// @param symbol the name looked up
  /// @param library the library searched
  /// @param reason dlerror()'s text
  symbol_not_found_error(std::string symbol, std::filesystem::path library, const std::string& reason);
  /// @brief The name looked up.
  [[nodiscard]] const std::string& symbol() const noexcept { return symbol_; }
  /// @brief The library searched.
  [[nodiscard]] const std::filesystem::path& library() const noexcept { return library_; }

 private:
  std::string symbol_;
  std::filesystem::path library_;
};

/// @brief An open shared library (dlopen with RTLD_NOW | RTLD_LOCAL); closed on destruction. Move-only.
///
/// @code{.cpp}
/// rocmtpl::runtime::shared_library lib(result.library);
/// using entry_fn = int(const float*, float*, int64_t, size_t*, uint8_t*, void*);
/// auto* entry = lib.symbol<entry_fn>("rocmtpl_gemm_9f3c2a17d0b4e615");
/// @endcode
class shared_library {
 public:
  /// @brief Loads the library; all its undefined symbols are resolved now (RTLD_NOW), so a
  /// missing runtime dependency fails here and not at the first call.
  /// @param path the library file
  /// @param flags dlopen flags
  /// @throws library_load_error with dlerror's text
  explicit shared_library(std::filesystem::path path, int flags = RTLD_NOW | RTLD_LOCAL);
  shared_library(const shared_library&) = delete;
  shared_library& operator=(const shared_library&) = delete;
  /// @brief Takes over the handle; `other` becomes empty.
  shared_library(shared_library&& other) noexcept
      : path_(std::move(other.path_)), handle_(std::exchange(other.handle_, nullptr)) {}
  /// @brief Closes the current library, then takes over `other`'s handle.
  shared_library& operator=(shared_library&& other) noexcept;
  ~shared_library() { close(); }

  /// @brief Looks up a function (or object) by its exported name.
  /// @tparam F the function type, e.g. `int(const float*, float*, int64_t, size_t*, uint8_t*, void*)`
  /// @param name the symbol (an `extern "C"` name)
  /// @return a pointer to it
  /// @throws symbol_not_found_error naming the symbol and the library, with dlerror's text
  template <class F>
  [[nodiscard]] F* symbol(std::string_view name) const {
    void* p = raw_symbol(name);
    if constexpr (std::is_function_v<F>) {
      return std::bit_cast<F*>(p);
    } else {
      return static_cast<F*>(p);
    }
  }

  /// @brief Looks a symbol up without a type.
  /// @throws symbol_not_found_error when it is absent
  [[nodiscard]] void* raw_symbol(std::string_view name) const;

  /// @brief True when the library exports `name`.
  [[nodiscard]] bool has_symbol(std::string_view name) const;

  /// @brief The path it was opened from.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// @brief The dlopen handle (null after a move).
  [[nodiscard]] void* native_handle() const noexcept { return handle_; }
  /// @brief True while it holds an open library.
  [[nodiscard]] explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  void close() noexcept;

  std::filesystem::path path_;
  void* handle_ = nullptr;
};

/// @brief A bounded cache of open libraries, least recently used evicted first. Thread-safe.
///
/// open() returns shared ownership: an evicted library stays loaded until its last user lets go.
/// Entries are keyed by the path and the file's identity (device, inode, mtime): when the file at a
/// path was replaced (code_cache rebuilds a corrupt or stale entry by rename), the old entry is
/// dropped and the new file is opened. The dynamic loader still hands back the old copy while
/// someone else holds a handle to it, because it matches already-loaded libraries by path.
class library_lru {
 public:
  /// @param capacity the most libraries the cache keeps open (at least 1)
  explicit library_lru(std::size_t capacity = 64) : capacity_(capacity == 0 ? 1 : capacity) {}

  /// @brief Returns the open library at `path`, loading it on a miss.
  /// @throws library_load_error when it cannot be loaded
  [[nodiscard]] std::shared_ptr<shared_library> open(const std::filesystem::path& path);

  /// @brief Number of libraries the cache holds open now.
  [[nodiscard]] std::size_t size() const;
  /// @brief The most libraries it keeps.
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  /// @brief open() calls answered from the cache.
  [[nodiscard]] std::size_t hits() const;
  /// @brief open() calls that loaded a library.
  [[nodiscard]] std::size_t misses() const;
  /// @brief Drops every cached entry (libraries still held by users stay loaded).
  void clear();

 private:
  static std::string identity(const std::filesystem::path& p);

  struct entry {
    std::string key;
    std::filesystem::path path;
    std::shared_ptr<shared_library> lib;
  };
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::list<entry> order_;
  std::unordered_map<std::string, std::list<entry>::iterator> index_;
  std::size_t hits_ = 0;
  std::size_t misses_ = 0;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/sys/shared_library-inl.hpp>
#endif

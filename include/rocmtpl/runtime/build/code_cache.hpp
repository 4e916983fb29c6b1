// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Content-addressed on-disk cache of compiled kernel libraries, shared by threads and
/// processes.
///
/// Layout under the root (default `cache_root()/kernels`, so `ROCMTPL_CACHE_DIR` moves it):
/// @code{.unparsed}
/// so/<key[0:2]>/<key>/source.hip   the source (the compile reads it from here)
///                     lib.so       the library (or code.co, a device-only code object: compile_output)
///                     meta.json    command, log, resources, size + xxh64 of lib.so, headers read
///                     deps.d       the compiler's -MD output (for people; meta.json holds the data)
///                     error.json   instead of meta.json when the compile failed: command, log, headers read
/// locks/<key>.lock                 flock()ed while one process compiles the key
/// @endcode
///
/// What it does beyond Inductor's ROCmCodeCache (reference/inductor-behaviour.md §1.6, §2):
/// - the key covers the compiler's identity (path and `--version`), the environment variables the
///   driver reads, and the concrete archs, not only the source and a command string;
/// - every header the compile read is recorded (`-MD`), and an entry whose headers changed is
///   rebuilt, so editing a template header never loads a stale library;
/// - lib.so's size and xxh64 are checked on every lookup: a truncated or corrupt library is rebuilt,
///   never loaded;
/// - failures are cached (error.json): a candidate that does not compile costs one compile per
///   compiler version, not one per process (Inductor recompiles failing instances in every process).
///   A recorded failure is dropped when a header it read changed; a failure that stopped before the
///   compiler listed its headers (a missing header), a timeout, and a failure of the environment
///   (compiler killed, files it could not read or write, no diagnostic; see compile_failure) are
///   not recorded.
///   code_cache_options::negative_cache turns it off and clear_errors() forgets them;
/// - two processes that want one key compile it once: the second waits on the lock and then reads
///   the entry.

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/resource_usage.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace rocmtpl::runtime {

/// @brief The cache folder cannot be used (cannot create, lock or write).
class code_cache_error : public error {
 public:
  using error::error;
};

/// @brief A kernel is not in a cache that cannot be written (a read-only file system, a folder this
/// user may not write, or code_cache_options::read_only): it cannot be compiled into it. Hits of
/// such a cache are served all the same.
class code_cache_read_only_error : public code_cache_error {
 public:
  /// @param root the cache folder
  /// @param why why it cannot be written ("on a read-only file system", ...)
  /// @param message the whole message
  code_cache_read_only_error(std::filesystem::path root, std::string why, const std::string& message)
      : code_cache_error(message), root_(std::move(root)), why_(std::move(why)) {}
  /// @brief The cache folder.
  [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }
  /// @brief Why it cannot be written.
  [[nodiscard]] const std::string& why() const noexcept { return why_; }

 private:
  std::filesystem::path root_;
  std::string why_;
};

/// @brief Behaviour switches of a code_cache.
struct code_cache_options {
  /// @brief Remember failed compiles (error.json) and replay them as compile_error without running
  /// the compiler. Off: failures are neither replayed nor recorded.
  bool negative_cache = true;
  /// @brief Record the headers each compile read and rebuild an entry when one of them changed.
  bool track_dependencies = true;
  /// @brief Never write: hits are served, a miss is a code_cache_read_only_error (nothing is compiled,
  /// no lock file is made). A cache on a read-only file system, or in a folder this user may not
  /// write, behaves so without it.
  bool read_only = false;
};

namespace detail::code_cache_impl {

namespace fs = std::filesystem;
using json = nlohmann::json;

inline constexpr int format_version = 1;

std::string hex64(std::uint64_t v);

const char* artifact_name(const compile_options& o);

std::optional<std::uint64_t> file_xxh64(const fs::path& p);

struct file_stat {
  std::uintmax_t size = 0;
  std::int64_t mtime_ns = 0;
};

std::optional<file_stat> stat_file(const fs::path& p);

std::optional<json> read_json(const fs::path& p);

std::string dump(const json& j);

json resources_to_json(const std::vector<kernel_resource_usage>& rs);

std::vector<kernel_resource_usage> resources_from_json(const json& a);

std::vector<fs::path> parse_depfile(std::string_view text);

// Why nothing can be written under `root` (a read-only file system: statvfs's ST_RDONLY; a folder this
// user may not write: access(W_OK)); nullopt when it can. Checks the root, its `so` and `locks`
// folders where they exist, else the nearest existing folder above the root.
std::optional<std::string> unwritable_reason(const fs::path& root);

// The message of a code_cache_read_only_error.
std::string read_only_message(const fs::path& root, std::string_view why, std::string_view key);

// RAII flock() on a lock file; released on destruction or when the process dies.
class file_lock {
 public:
  // `root`: the cache folder, for the message when the lock cannot be made because it is read-only.
  explicit file_lock(const fs::path& path, const fs::path& root = {});
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock();

 private:
  int fd_ = -1;
};

std::vector<std::string> replace_args(std::vector<std::string> argv,
                                      const std::vector<std::pair<std::string, std::string>>& subst);

}  // namespace detail::code_cache_impl

/// @brief Content-addressed cache of compiled kernel libraries. Thread-safe; several processes
/// may share one root.
///
/// @code{.cpp}
/// using namespace rocmtpl::runtime;
/// code_cache cache;                                   // cache_root()/kernels
/// const auto cc = compiler::find(platform::amd);
/// compile_options opts{.platform = platform::amd, .archs = {"gfx90a"}};
/// compile_result r = cache.get_or_compile(cc, source, opts);   // compiles once per key
/// shared_library lib(r.library);
/// @endcode
class code_cache {
 public:
  /// @brief `cache_root() / "kernels"` (honours ROCMTPL_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache).
  /// @throws cache_directory_error when no cache folder can be created
  [[nodiscard]] static std::filesystem::path default_root() { return cache_root() / "kernels"; }

  /// @param root the cache folder (created on first write)
  /// @param options negative cache and dependency tracking switches
  explicit code_cache(std::filesystem::path root = default_root(), code_cache_options options = {});

  /// @brief The key of (compiler, source, options): 32 hex digits of XXH3-128 over the source, the
  /// full command with the source/output paths replaced by placeholders, the compiler's path and
  /// `--version`, the environment variables the driver reads, and the sorted concrete archs.
  /// @throws invalid_argument_error for invalid options
  /// @throws compiler_not_found_error when the compiler's `--version` cannot be run
  [[nodiscard]] std::string key(const compiler& cc, std::string_view source, const compile_options& options) const;

  /// @brief Returns the library for (compiler, source, options), compiling it only when no valid
  /// entry exists. Concurrent calls for one key (threads or processes) compile it once. A valid
  /// entry is served without writing anything (no lock), so a complete cache may be read-only.
  /// @return the library and its record; `cached` tells whether the compiler ran
  /// @throws code_cache_read_only_error when no valid entry exists and the cache cannot be written
  /// @throws compile_error when the compile fails, or failed before (then `cached()` is true and
  ///         nothing is spawned)
  /// @throws compile_timeout_error when the compile runs past options.timeout (not cached)
  /// @throws unsupported_path_error when the cache folder is a path the compiler cannot be given
  /// @throws invalid_argument_error, compiler_not_found_error, code_cache_error, file_write_error
  [[nodiscard]] compile_result get_or_compile(const compiler& cc, std::string_view source,
                                              const compile_options& options);

  /// @brief The valid entry for (compiler, source, options), if any; never compiles. An entry whose
  /// library is truncated or altered, or whose headers changed, is reported absent.
  [[nodiscard]] std::optional<compile_result> lookup(const compiler& cc, std::string_view source,
                                                     const compile_options& options) const;

  /// @brief The folder of one entry: `<root>/so/<key[0:2]>/<key>`.
  [[nodiscard]] std::filesystem::path entry_dir(const std::string& key) const {
    return root_ / "so" / key.substr(0, 2) / key;
  }
  /// @brief The cache folder.
  [[nodiscard]] std::filesystem::path root() const { return root_; }
  /// @brief The switches it was made with.
  [[nodiscard]] const code_cache_options& options() const noexcept { return options_; }

  /// @brief Compiler runs started by this object (failed ones included; `--version` queries not).
  [[nodiscard]] std::size_t compiles() const noexcept { return compiles_.load(); }
  /// @brief get_or_compile calls answered from a valid entry.
  [[nodiscard]] std::size_t hits() const noexcept { return hits_.load(); }
  /// @brief get_or_compile calls that had to compile.
  [[nodiscard]] std::size_t misses() const noexcept { return misses_.load(); }
  /// @brief get_or_compile calls answered by replaying a recorded failure.
  [[nodiscard]] std::size_t negative_hits() const noexcept { return negative_hits_.load(); }

  /// @brief Removes every entry (lock files stay). Do not call while other users compile into this root.
  void clear();

  /// @brief Forgets every recorded failure, so the next get_or_compile of those keys compiles again.
  /// @return how many were removed
  std::size_t clear_errors();

  /// @brief Removes one entry (library, record or failure).
  /// @return true when something was removed
  bool erase(const std::string& key);

 private:
  std::optional<compile_result> load_entry(const std::filesystem::path& dir, const std::string& k,
                                           const char* artifact) const;

  static bool dependencies_unchanged(const nlohmann::json& deps);

  void replay_failure(const std::filesystem::path& dir, const std::string& k, std::string_view source);

  compile_result build(const compiler& cc, std::string_view source, const compile_options& options,
                       const std::string& k, const std::filesystem::path& dir);

  static std::optional<nlohmann::json> read_dependencies(const std::filesystem::path& depfile,
                                                         const std::filesystem::path& source_file,
                                                         const std::filesystem::path& staging);

  static void remove_stale_staging(const std::filesystem::path& dir);

  std::filesystem::path root_{};
  code_cache_options options_;
  std::atomic<std::size_t> compiles_{0};
  std::atomic<std::size_t> hits_{0};
  std::atomic<std::size_t> misses_{0};
  std::atomic<std::size_t> negative_hits_{0};
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/build/code_cache-inl.hpp>
#endif

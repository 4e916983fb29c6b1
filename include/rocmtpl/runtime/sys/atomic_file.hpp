// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The library's one atomic file write: bytes go to a private temporary name in the
/// target's folder and are renamed over the target, so a reader (thread or process) sees the old
/// file or the new one, never a part. Used by the code cache, the device headers, module
/// artifacts, the compiler version record and the device identity record.

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace rocmtpl::runtime {

/// @brief A file could not be written (or renamed into place). Carries the path.
class file_write_error : public error {
 public:
  /// @param path the file the library tried to write
  /// @param what_failed the step that failed, in words ("cannot write", "cannot rename onto")
  /// @param reason the system's reason
  file_write_error(std::filesystem::path path, const std::string& what_failed, const std::string& reason);
  /// @brief The file the library tried to write.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

namespace detail {

/// @brief Whether write_file_atomic() flushes to stable storage before it returns.
enum class file_sync : std::uint8_t {
  none,     ///< a crash may lose the new file (caches: entries are checked and rebuilt anyway)
  durable,  ///< fsync the file before the rename and the folder after it (artifacts users keep)
};

[[nodiscard]] std::string unique_file_suffix();

[[nodiscard]] long long owner_pid(std::string_view name, std::string_view marker);

[[nodiscard]] bool owner_gone(long long pid);

[[nodiscard]] std::string errno_text(int err);

[[nodiscard]] int write_all(int fd, std::string_view bytes);

void sync_folder(const std::filesystem::path& folder);

/// @brief Writes `bytes` to `path` atomically (private temporary name in the same folder, then
/// rename()). The folder must exist. File mode 0644 (less the umask).
/// @throws file_write_error naming the path when the temporary cannot be written or renamed
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes, file_sync sync = file_sync::none);

}  // namespace detail
}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/sys/atomic_file-inl.hpp>
#endif

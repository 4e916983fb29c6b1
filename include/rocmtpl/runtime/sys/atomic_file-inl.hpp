// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/sys/atomic_file.hpp: included at its end (header-only) or compiled once by
// src/runtime/sys.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rocmtpl::runtime {

ROCMTPL_INLINE file_write_error::file_write_error(std::filesystem::path path, const std::string& what_failed,
                                                  const std::string& reason)
    : error("rocmtpl: file: " + what_failed + " '" + path.string() + "': " + reason +
            "; check the folder's "
            "permissions and free space"),
      path_(std::move(path)) {}

namespace detail {

// A name no other thread or process picks: pid, a per-process random value and a counter.
ROCMTPL_INLINE std::string unique_file_suffix() {
  static const std::uint64_t process_random = [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  static std::atomic<std::uint64_t> counter{0};
  const std::uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  return std::to_string(static_cast<long long>(::getpid())) + "-" +
         std::to_string(process_random ^ (n * 0x9e3779b97f4a7c15ULL));
}

// The owner pid a private name carries right after `marker` ("<marker><pid>-..."): the temporaries
// of write_file_atomic (".tmp-") and the code cache's staging folders (".build-"). 0 when the
// name does not have that form.
ROCMTPL_INLINE long long owner_pid(std::string_view name, std::string_view marker) {
  const auto at = name.find(marker);
  if (at == std::string_view::npos) return 0;
  name.remove_prefix(at + marker.size());
  long long pid = 0;
  std::size_t digits = 0;
  for (; digits < name.size() && digits < 10 && name[digits] >= '0' && name[digits] <= '9'; ++digits) {
    pid = pid * 10 + (name[digits] - '0');
  }
  if (digits == 0 || digits == name.size() || name[digits] != '-' || pid > 0x7fffffff) return 0;
  return pid;
}

// True when `pid` names no process (kill(pid, 0) fails with ESRCH); never true for this process.
// (A process of another PID namespace sharing the folder looks gone: callers use this only where
// the work it guards is also covered by a lock or can be redone.)
ROCMTPL_INLINE bool owner_gone(long long pid) {
  if (pid <= 0 || pid == static_cast<long long>(::getpid())) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

ROCMTPL_INLINE std::string errno_text(int err) { return std::generic_category().message(err); }

// Writes all of `bytes` to `fd`; returns 0 or the errno of the failure.
ROCMTPL_INLINE int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ::ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

ROCMTPL_INLINE void sync_folder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename is done; a folder that cannot be opened cannot be synced
  (void)::fsync(fd);
  ::close(fd);
}

ROCMTPL_INLINE void write_file_atomic(const std::filesystem::path& path, std::string_view bytes, file_sync sync) {
  namespace fs = std::filesystem;
  const fs::path temporary = path.parent_path() / ("." + path.filename().string() + ".tmp-" + unique_file_suffix());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw file_write_error(path, "cannot create a temporary file for", errno_text(errno));
  int err = write_all(fd, bytes);
  if (err == 0 && sync == file_sync::durable && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(temporary.c_str());
    throw file_write_error(path, "cannot write", errno_text(err));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(temporary.c_str());
    throw file_write_error(path, "cannot rename a temporary file onto", errno_text(err));
  }
  if (sync == file_sync::durable) sync_folder(path.parent_path());
}

}  // namespace detail
}  // namespace rocmtpl::runtime

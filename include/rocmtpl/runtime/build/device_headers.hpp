// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Where the compiler finds the headers generated kernels include (rocmtpl_hip_portable.h).
///
/// The header text is embedded in the library (rocmtpl/device/hip_portable.hpp), so the library
/// works wherever it is copied: the first call writes the text into the cache, in a folder named
/// by the hash of the text, and every compile adds that folder with `-I`.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <rocmtpl/detail/hash.hpp>  // xxHash, inlined

#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

namespace rocmtpl::runtime {

/// @brief XXH3-64 of the embedded rocmtpl_hip_portable.h. Part of every compile's cache key,
/// since a kernel built against another header text is another kernel.
[[nodiscard]] inline std::uint64_t device_header_hash() noexcept {
  static const std::uint64_t hash =
      XXH3_64bits(rocmtpl::device::portable_header_source.data(), rocmtpl::device::portable_header_source.size());
  return hash;
}

/// @brief device_header_hash() as 16 lowercase hex digits (the folder name under the cache).
[[nodiscard]] inline std::string device_header_hash_hex() { return fmt::format("{:016x}", device_header_hash()); }

namespace detail {

[[nodiscard]] inline bool file_has_content(const std::filesystem::path& file, std::string_view expected) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec) || std::filesystem::file_size(file, ec) != expected.size() || ec) {
    return false;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  const std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return content == expected;
}

}  // namespace detail

/// @brief The folder to pass with `-I` so that `#include "rocmtpl_hip_portable.h"` resolves.
///
/// With `ROCMTPL_DEVICE_INCLUDE_DIR` set, that folder, which must contain the header (useful to
/// try an edited header). Otherwise `<cache_root()>/device-include/<device_header_hash_hex()>`,
/// where the embedded text is written if the file is missing or differs. Safe to call from
/// several threads and processes at once: the file is written under a private name and renamed.
/// @return an absolute folder that contains rocmtpl::device::portable_header_name.
/// @throws cache_directory_error when the override folder lacks the header, or the cache folder
///         cannot be created; file_write_error when the header cannot be written.
[[nodiscard]] inline std::filesystem::path device_include_dir() {
  namespace fs = std::filesystem;
  const std::string_view name = rocmtpl::device::portable_header_name;
  if (const char* override_dir = detail::non_empty_env("ROCMTPL_DEVICE_INCLUDE_DIR")) {
    std::error_code ec;
    const fs::path dir = fs::absolute(override_dir, ec);
    if (ec || !fs::is_regular_file(dir / name)) {
      throw cache_directory_error(dir, "ROCMTPL_DEVICE_INCLUDE_DIR names a folder without " + std::string(name) + ":",
                                  "write the header there or unset the variable");
    }
    return dir;
  }
  const fs::path dir = cache_root() / "device-include" / device_header_hash_hex();
  const fs::path file = dir / name;
  const std::string_view text = rocmtpl::device::portable_header_source;
  if (detail::file_has_content(file, text)) return dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw cache_directory_error(dir, "cannot create", ec.message());
  detail::write_file_atomic(file, text);
  return dir;
}

}  // namespace rocmtpl::runtime

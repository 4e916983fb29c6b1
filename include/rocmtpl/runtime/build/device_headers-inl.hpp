// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/build/device_headers.hpp: included at its end (header-only) or compiled once by
// src/runtime/build.cpp, after it (so it does not include it back).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <rocmtpl/detail/hash.hpp>  // xxHash, inlined

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/device/amd_emulator.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE std::uint64_t device_header_hash() noexcept {
  static const std::uint64_t hash = [] {
    // Both texts, each framed by its length (the folder holds both files).
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    for (const std::string_view text :
         {rocmtpl::device::portable_header_source, rocmtpl::device::amd_emulator_header_source}) {
      const std::uint64_t size = text.size();
      XXH3_64bits_update(state, &size, sizeof size);
      XXH3_64bits_update(state, text.data(), text.size());
    }
    const std::uint64_t h = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return h;
  }();
  return hash;
}

ROCMTPL_INLINE std::string device_header_hash_hex() { return fmt::format("{:016x}", device_header_hash()); }

namespace detail {

ROCMTPL_INLINE bool file_has_content(const std::filesystem::path& file, std::string_view expected) {
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

ROCMTPL_INLINE std::filesystem::path device_include_dir() {
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
  const std::pair<std::string_view, std::string_view> files[] = {
      {name, rocmtpl::device::portable_header_source},
      {rocmtpl::device::amd_emulator_header_name, rocmtpl::device::amd_emulator_header_source}};
  for (const auto& [file, text] : files) {
    if (detail::file_has_content(dir / file, text)) continue;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw cache_directory_error(dir, "cannot create", ec.message());
    detail::write_file_atomic(dir / file, text);
  }
  return dir;
}

}  // namespace rocmtpl::runtime

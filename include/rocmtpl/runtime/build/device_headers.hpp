// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Where the compiler finds the headers generated kernels include (rocmtpl_hip_portable.h,
/// and rocmtpl_amd_emu.h, which it includes for the AMD emulator).
///
/// The header texts are embedded in the library (rocmtpl/device/hip_portable.hpp,
/// rocmtpl/device/amd_emulator.hpp), so the library works wherever it is copied: the first call
/// writes the texts into the cache, in a folder named by the hash of both, and every compile adds
/// that folder with `-I`.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

namespace rocmtpl::runtime {

/// @brief XXH3-64 of the embedded rocmtpl_hip_portable.h and rocmtpl_amd_emu.h (each framed by its
/// length). Part of every compile's cache key, since a kernel built against another header text is
/// another kernel.
[[nodiscard]] std::uint64_t device_header_hash() noexcept;

/// @brief device_header_hash() as 16 lowercase hex digits (the folder name under the cache).
[[nodiscard]] std::string device_header_hash_hex();

namespace detail {

[[nodiscard]] bool file_has_content(const std::filesystem::path& file, std::string_view expected);

}  // namespace detail

/// @brief The folder to pass with `-I` so that `#include "rocmtpl_hip_portable.h"` (and, for the AMD
/// emulator, `"rocmtpl_amd_emu.h"`) resolves.
///
/// With `ROCMTPL_DEVICE_INCLUDE_DIR` set, that folder, which must contain the portability header
/// (and rocmtpl_amd_emu.h for emulated builds; useful to try an edited header). Otherwise
/// `<cache_root()>/device-include/<device_header_hash_hex()>`, where the embedded texts are written
/// if a file is missing or differs. Safe to call from several threads and processes at once: each
/// file is written under a private name and renamed.
/// @return an absolute folder that contains rocmtpl::device::portable_header_name.
/// @throws cache_directory_error when the override folder lacks the header, or the cache folder
///         cannot be created; file_write_error when the header cannot be written.
[[nodiscard]] std::filesystem::path device_include_dir();

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/build/device_headers-inl.hpp>
#endif

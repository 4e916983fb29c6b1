// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief NVRTC in this process: device-only NVIDIA code objects (cubins) without spawning nvcc,
/// the tuner's fastest compile path (issue 9 part 4). libnvrtc is dlopen'ed like the GPU runtime;
/// no GPU is needed to compile.
///
/// NVRTC compiles device code only and ships no C or C++ library headers, so a device-only
/// compile gets a small folder of stand-ins (`nvrtc_include_dir()`): `<stdint.h>`, `<cstdint>`,
/// `<stddef.h>`, `<cstddef>` with the LP64 types and limits the host uses, empty `<atomic>`,
/// `<stdlib.h>` and `<cuda_runtime.h>` (host-only includes of generated sources and of `<cuda.h>`),
/// and a prelude that maps `__builtin_memcpy` onto NVRTC's `memcpy`. The source is compiled with
/// ROCMTPL_DEVICE_ONLY, so generated entries and host helpers drop out; `-default-device` makes
/// the remaining unannotated functions device functions.

#include <dlfcn.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

namespace rocmtpl::runtime {

namespace detail::nvrtc_impl {

// nvrtcResult and nvrtcProgram as int and void*.
struct nvrtc_api {
  std::string library;
  std::string error;  // why NVRTC cannot be used; empty when it can
  int major = 0, minor = 0;
  int (*version)(int*, int*) = nullptr;
  int (*create)(void**, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*destroy)(void**) = nullptr;
  int (*compile)(void*, int, const char* const*) = nullptr;
  int (*log_size)(void*, std::size_t*) = nullptr;
  int (*log)(void*, char*) = nullptr;
  int (*cubin_size)(void*, std::size_t*) = nullptr;
  int (*cubin)(void*, char*) = nullptr;
  const char* (*error_string)(int) = nullptr;
};

template <class Fn>
bool bind(void* handle, Fn& fn, const char* name) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) return false;
  fn = reinterpret_cast<Fn>(symbol);
  return true;
}

nvrtc_api load();

const std::vector<std::pair<std::string_view, std::string_view>>& stand_ins();

}  // namespace detail::nvrtc_impl

/// @brief The process's NVRTC (loaded once), or nullptr with the reason in `why`.
[[nodiscard]] const detail::nvrtc_impl::nvrtc_api* nvrtc(std::string* why = nullptr);

/// @brief The folder of NVRTC's stand-in headers, written once into the cache
/// (`<cache_root()>/nvrtc-include/<hash of their text>`).
/// @throws cache_directory_error, file_write_error
[[nodiscard]] std::filesystem::path nvrtc_include_dir();

/// @brief What one NVRTC compile produced.
struct nvrtc_output {
  bool ok = false;     ///< the compile succeeded
  std::string log;     ///< NVRTC's program log
  std::string cubin;   ///< the cubin's bytes (empty on failure)
  double seconds = 0;  ///< wall time of the compile
};

/// @brief Compiles `source` with NVRTC and the `options` (NVRTC's own spelling) into a cubin.
/// @throws gpu_error-free: failures come back with ok false and the log.
[[nodiscard]] nvrtc_output nvrtc_compile(const detail::nvrtc_impl::nvrtc_api& api, const std::string& source,
                                         const std::string& name, const std::vector<std::string>& options);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/build/nvrtc-inl.hpp>
#endif

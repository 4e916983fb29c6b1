// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/build/nvrtc.hpp: included at its end (header-only) or compiled once by
// src/runtime/build.cpp, after it (so it does not include it back).

#include <dlfcn.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

namespace rocmtpl::runtime {

namespace detail::nvrtc_impl {

ROCMTPL_INLINE nvrtc_api load() {
  nvrtc_api api;
  std::vector<std::string> names{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  for (const char* root :
       std::array<const char*, 3>{std::getenv("CUDA_PATH"), std::getenv("CUDA_HOME"), "/usr/local/cuda"}) {
    if (root == nullptr || *root == '\0') continue;
    for (const char* f : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
      names.push_back(std::string(root) + "/lib64/" + f);
    }
  }
  void* h = nullptr;
  for (const auto& n : names) {
    if ((h = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) {  // never closed
      api.library = n;
      break;
    }
  }
  if (h == nullptr) {
    api.error = "libnvrtc not found";
    return api;
  }
  std::string missing;
  const auto need = [&](auto& fn, const char* name) {
    if (!bind(h, fn, name)) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(api.version, "nvrtcVersion");
  need(api.create, "nvrtcCreateProgram");
  need(api.destroy, "nvrtcDestroyProgram");
  need(api.compile, "nvrtcCompileProgram");
  need(api.log_size, "nvrtcGetProgramLogSize");
  need(api.log, "nvrtcGetProgramLog");
  need(api.cubin_size, "nvrtcGetCUBINSize");
  need(api.cubin, "nvrtcGetCUBIN");
  need(api.error_string, "nvrtcGetErrorString");
  if (!missing.empty()) {
    api.error = api.library + " lacks " + missing;
    return api;
  }
  api.version(&api.major, &api.minor);
  return api;
}

// The stand-in headers (see the file comment), by file name.
ROCMTPL_INLINE const std::vector<std::pair<std::string_view, std::string_view>>& stand_ins() {
  static constexpr std::string_view stdint = R"nvrtc(// rocmtpl: <stdint.h> for NVRTC (LP64, as the host).
#ifndef ROCMTPL_NVRTC_STDINT
#define ROCMTPL_NVRTC_STDINT
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
#define INT8_MIN (-128)
#define INT8_MAX 127
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define INT64_MIN (-9223372036854775807L - 1)
#define INT64_MAX 9223372036854775807L
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615UL
#define SIZE_MAX UINT64_MAX
#endif
)nvrtc";
  static constexpr std::string_view cstdint = R"nvrtc(// rocmtpl: <cstdint> for NVRTC.
#include <stdint.h>
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::intptr_t; using ::uintptr_t;
}
)nvrtc";
  static constexpr std::string_view stddef = R"nvrtc(// rocmtpl: <stddef.h> for NVRTC.
#ifndef ROCMTPL_NVRTC_STDDEF
#define ROCMTPL_NVRTC_STDDEF
typedef unsigned long size_t;
typedef long ptrdiff_t;
#ifndef NULL
#define NULL 0
#endif
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
)nvrtc";
  static constexpr std::string_view cstddef = R"nvrtc(// rocmtpl: <cstddef> for NVRTC.
#include <stddef.h>
namespace std {
using ::size_t; using ::ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
}
)nvrtc";
  static constexpr std::string_view empty = "// rocmtpl: host-only header, empty under NVRTC.\n";
  static constexpr std::string_view prelude = R"nvrtc(// rocmtpl: included first in NVRTC compiles.
#define __builtin_memcpy(dst, src, bytes) memcpy(dst, src, bytes)
)nvrtc";
  static const std::vector<std::pair<std::string_view, std::string_view>> files{
      {"stdint.h", stdint}, {"cstdint", cstdint}, {"stddef.h", stddef},      {"cstddef", cstddef},
      {"atomic", empty},    {"stdlib.h", empty},  {"cuda_runtime.h", empty}, {"rocmtpl_nvrtc_prelude.h", prelude}};
  return files;
}

}  // namespace detail::nvrtc_impl

ROCMTPL_INLINE const detail::nvrtc_impl::nvrtc_api* nvrtc(std::string* why) {
  static const detail::nvrtc_impl::nvrtc_api api = detail::nvrtc_impl::load();
  if (!api.error.empty()) {
    if (why != nullptr) *why = api.error;
    return nullptr;
  }
  return &api;
}

ROCMTPL_INLINE std::filesystem::path nvrtc_include_dir() {
  namespace fs = std::filesystem;
  static std::mutex mutex;
  static std::optional<fs::path> done;
  std::lock_guard lock(mutex);
  if (done) return *done;
  std::string all;
  for (const auto& [name, text] : detail::nvrtc_impl::stand_ins()) all += std::string(name) + "\n" + std::string(text);
  const fs::path dir = cache_root() / "nvrtc-include" / fmt::format("{:016x}", XXH64(all.data(), all.size(), 0));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw cache_directory_error(dir, "cannot create", ec.message());
  for (const auto& [name, text] : detail::nvrtc_impl::stand_ins()) {
    const auto file = dir / name;
    std::ifstream in(file, std::ios::binary);
    const std::string have{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (have != text) detail::write_file_atomic(file, text);
  }
  done = dir;
  return dir;
}

ROCMTPL_INLINE nvrtc_output nvrtc_compile(const detail::nvrtc_impl::nvrtc_api& api, const std::string& source,
                                          const std::string& name, const std::vector<std::string>& options) {
  nvrtc_output out;
  const auto t0 = std::chrono::steady_clock::now();
  void* program = nullptr;
  if (const int rc = api.create(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr); rc != 0) {
    out.log = std::string("nvrtcCreateProgram: ") + api.error_string(rc);
    return out;
  }
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const int rc = api.compile(program, static_cast<int>(argv.size()), argv.data());
  std::size_t n = 0;
  if (api.log_size(program, &n) == 0 && n > 1) {
    out.log.resize(n);
    api.log(program, out.log.data());
    out.log.resize(n - 1);
  }
  if (rc == 0 && api.cubin_size(program, &n) == 0) {
    out.cubin.resize(n);
    out.ok = api.cubin(program, out.cubin.data()) == 0;
  } else if (rc != 0) {
    out.log += std::string("\nnvrtc: error: ") + api.error_string(rc) + "\n";
  }
  api.destroy(&program);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace rocmtpl::runtime

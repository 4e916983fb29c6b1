// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The vendor tables of the GPU runtime loader (rocmtpl::runtime::detail): the CUDA and HIP
/// attribute enumerators and memcpy kinds, the HIP device-properties layout facts, and the table of
/// runtime functions both vendors export as `cuda*`/`hip*` + the same suffix, bound with dlsym.
///
/// Every number here is checked against the vendors' own headers by
/// test/runtime/gpu/vendor_api_test.cpp.

#include <dlfcn.h>

#include <array>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

namespace detail {

// The device attributes the loader queries, by their enumerator value in one vendor's runtime.
struct attribute_ids {
  int max_threads_per_block;
  int max_shared_memory_per_block;
  int max_shared_memory_per_block_optin;
  int warp_size;
  int clock_rate;
  int multiprocessor_count;
  int l2_cache_size;
  int compute_capability_major;
  int compute_capability_minor;
};

// cudaDeviceAttr enumerators (CUDA runtime API, stable since CUDA 9; checked against CUDA 13's
// headers by test/runtime/gpu/vendor_api_test.cpp).
inline constexpr attribute_ids cuda_attributes{.max_threads_per_block = 1,
                                               .max_shared_memory_per_block = 8,
                                               .max_shared_memory_per_block_optin = 97,
                                               .warp_size = 10,
                                               .clock_rate = 13,
                                               .multiprocessor_count = 16,
                                               .l2_cache_size = 38,
                                               .compute_capability_major = 75,
                                               .compute_capability_minor = 76};

// hipDeviceAttribute_t enumerators of HIP 5.2 (checked against Debian's headers by the test; later
// ROCm releases keep the numbering, replacing removed entries with "Unused" placeholders).
inline constexpr attribute_ids hip_attributes{.max_threads_per_block = 56,
                                              .max_shared_memory_per_block = 74,
                                              .max_shared_memory_per_block_optin = 75,  // SharedMemPerBlockOptin
                                              .warp_size = 87,
                                              .clock_rate = 5,
                                              .multiprocessor_count = 63,
                                              .l2_cache_size = 19,
                                              .compute_capability_major = 23,
                                              .compute_capability_minor = 61};

[[nodiscard]] constexpr const attribute_ids& attributes_of(platform kind) noexcept {
  return kind == platform::nvidia ? cuda_attributes : hip_attributes;
}

// cudaMemcpyKind and hipMemcpyKind share their values.
inline constexpr int memcpy_host_to_device = 1;
inline constexpr int memcpy_device_to_host = 2;
inline constexpr int memcpy_device_to_device = 3;

// Offset of `char gcnArchName[256]` in HIP 5.x's hipDeviceProp_t (x86-64). ROCm 6 moved it
// (hipDeviceProp_tR0600); there, and whenever this offset holds no "gfx" name, the buffer is
// searched for the first NUL-terminated "gfx..." string after the device name.
inline constexpr std::size_t hip52_gcn_arch_name_offset = 396;
// Larger than any cudaDeviceProp (1008 bytes in CUDA 13) or hipDeviceProp_t (R0600: about 1.5 KiB).
inline constexpr std::size_t device_prop_buffer_bytes = 16384;

// "gfx90a:sramecc+:xnack-" -> "gfx90a".
[[nodiscard]] inline std::string strip_arch_features(std::string_view arch) {
  const auto colon = arch.find(':');
  std::string_view base = arch.substr(0, colon);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.back())) != 0) base.remove_suffix(1);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.front())) != 0) base.remove_prefix(1);
  return std::string(base);
}

[[nodiscard]] inline bool is_gfx_name(const char* text, std::size_t room) {
  if (room < 4 || std::strncmp(text, "gfx", 3) != 0) return false;
  std::size_t n = 3;
  while (n < room && text[n] != '\0') {
    const auto c = static_cast<unsigned char>(text[n]);
    if (std::isalnum(c) == 0 && c != ':' && c != '+' && c != '-' && c != '_') return false;
    ++n;
  }
  return n > 3 && n < room;
}

// The gcnArchName from a hipDeviceProp_t of unknown layout (see hip52_gcn_arch_name_offset).
[[nodiscard]] inline std::string find_gcn_arch_name(const char* props, std::size_t size, std::size_t preferred_offset) {
  if (preferred_offset < size && is_gfx_name(props + preferred_offset, size - preferred_offset)) {
    return std::string(props + preferred_offset);
  }
  for (std::size_t offset = 256; offset + 4 < size; ++offset) {
    if ((offset == 0 || props[offset - 1] == '\0') && is_gfx_name(props + offset, size - offset)) {
      return std::string(props + offset);
    }
  }
  return {};
}

// The functions both runtimes export as <prefix><suffix> with the same C signature (pointers to
// opaque handles, enums as int).
struct runtime_api {
  int (*get_device_count)(int*) = nullptr;
  int (*set_device)(int) = nullptr;
  int (*get_device)(int*) = nullptr;
  int (*device_get_attribute)(int*, int, int) = nullptr;
  int (*get_device_properties)(void*, int) = nullptr;
  int (*mem_get_info)(std::size_t*, std::size_t*) = nullptr;
  int (*malloc)(void**, std::size_t) = nullptr;
  int (*free)(void*) = nullptr;
  int (*memcpy)(void*, const void*, std::size_t, int) = nullptr;
  int (*memcpy_async)(void*, const void*, std::size_t, int, void*) = nullptr;
  int (*memset_async)(void*, int, std::size_t, void*) = nullptr;
  int (*stream_create)(void**) = nullptr;
  int (*stream_destroy)(void*) = nullptr;
  int (*stream_synchronize)(void*) = nullptr;
  int (*device_synchronize)() = nullptr;
  int (*event_create)(void**) = nullptr;
  int (*event_destroy)(void*) = nullptr;
  int (*event_record)(void*, void*) = nullptr;
  int (*event_synchronize)(void*) = nullptr;
  int (*event_elapsed_time)(float*, void*, void*) = nullptr;
  const char* (*get_error_string)(int) = nullptr;
  int (*get_last_error)() = nullptr;
  int (*runtime_get_version)(int*) = nullptr;
  int (*device_get_name)(char*, int, int) = nullptr;     // HIP only (optional)
  int (*device_total_mem)(std::size_t*, int) = nullptr;  // HIP only (optional)
};

template <class Function>
bool bind_symbol(void* handle, Function& target, const std::string& name) {
  void* symbol = ::dlsym(handle, name.c_str());
  if (symbol == nullptr) return false;
  // POSIX guarantees that a dlsym result converts to a function pointer.
  target = reinterpret_cast<Function>(symbol);
  return true;
}

// Resolves every required function; returns the names that are missing (empty on success).
[[nodiscard]] inline std::string bind_runtime_api(void* handle, platform kind, runtime_api& api) {
  const std::string prefix = kind == platform::nvidia ? "cuda" : "hip";
  std::string missing;
  auto need = [&](auto& fn, const char* suffix) {
    if (!bind_symbol(handle, fn, prefix + suffix)) missing += (missing.empty() ? "" : ", ") + prefix + suffix;
  };
  need(api.get_device_count, "GetDeviceCount");
  need(api.set_device, "SetDevice");
  need(api.get_device, "GetDevice");
  need(api.device_get_attribute, "DeviceGetAttribute");
  need(api.mem_get_info, "MemGetInfo");
  need(api.malloc, "Malloc");
  need(api.free, "Free");
  need(api.memcpy, "Memcpy");
  need(api.memcpy_async, "MemcpyAsync");
  need(api.memset_async, "MemsetAsync");
  need(api.stream_create, "StreamCreate");
  need(api.stream_destroy, "StreamDestroy");
  need(api.stream_synchronize, "StreamSynchronize");
  need(api.device_synchronize, "DeviceSynchronize");
  need(api.event_create, "EventCreate");
  need(api.event_destroy, "EventDestroy");
  need(api.event_record, "EventRecord");
  need(api.event_synchronize, "EventSynchronize");
  need(api.event_elapsed_time, "EventElapsedTime");
  need(api.get_error_string, "GetErrorString");
  need(api.get_last_error, "GetLastError");
  need(api.runtime_get_version, "RuntimeGetVersion");
  // Newest layout first: CUDA 12 exports cudaGetDeviceProperties_v2, CUDA 13 only the plain name;
  // ROCm 6 exports hipGetDevicePropertiesR0600. Only the name (offset 0) and, on HIP, gcnArchName
  // (searched for) are read, so any of them will do.
  const std::array<const char*, 2> properties =
      kind == platform::nvidia ? std::array<const char*, 2>{"cudaGetDeviceProperties_v2", "cudaGetDeviceProperties"}
                               : std::array<const char*, 2>{"hipGetDevicePropertiesR0600", "hipGetDeviceProperties"};
  if (!bind_symbol(handle, api.get_device_properties, properties[0]) &&
      !bind_symbol(handle, api.get_device_properties, properties[1])) {
    missing += (missing.empty() ? "" : ", ") + std::string(properties[1]);
  }
  if (kind == platform::amd) bind_symbol(handle, api.device_get_name, "hipDeviceGetName");
  if (kind == platform::amd) bind_symbol(handle, api.device_total_mem, "hipDeviceTotalMem");
  return missing;
}

}  // namespace detail

}  // namespace rocmtpl::runtime

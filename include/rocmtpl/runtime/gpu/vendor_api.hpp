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

#include <cstddef>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
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

[[nodiscard]] std::string strip_arch_features(std::string_view arch);

[[nodiscard]] bool is_gfx_name(const char* text, std::size_t room);

[[nodiscard]] std::string find_gcn_arch_name(const char* props, std::size_t size, std::size_t preferred_offset);

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

[[nodiscard]] std::string bind_runtime_api(void* handle, platform kind, runtime_api& api);

}  // namespace detail

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/gpu/vendor_api-inl.hpp>
#endif

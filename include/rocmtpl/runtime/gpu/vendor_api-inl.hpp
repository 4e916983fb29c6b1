// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/gpu/vendor_api.hpp: included at its end (header-only) or compiled once by
// src/runtime/gpu.cpp, after it (so it does not include it back).

#include <dlfcn.h>

#include <array>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

namespace detail {

// "gfx90a:sramecc+:xnack-" -> "gfx90a".
ROCMTPL_INLINE std::string strip_arch_features(std::string_view arch) {
  const auto colon = arch.find(':');
  std::string_view base = arch.substr(0, colon);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.back())) != 0) base.remove_suffix(1);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.front())) != 0) base.remove_prefix(1);
  return std::string(base);
}

ROCMTPL_INLINE bool is_gfx_name(const char* text, std::size_t room) {
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
ROCMTPL_INLINE std::string find_gcn_arch_name(const char* props, std::size_t size, std::size_t preferred_offset) {
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

// Resolves every required function; returns the names that are missing (empty on success).
ROCMTPL_INLINE std::string bind_runtime_api(void* handle, platform kind, runtime_api& api) {
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

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/gpu/loader.hpp: included at its end (header-only) or compiled once by
// src/runtime/gpu.cpp, after it (so it does not include it back).

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/options.hpp>
#include <rocmtpl/runtime/gpu/vendor_api.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

namespace detail {
// The options preset() chose for instance(), and whether instance() was created (and with what).
struct runtime_preset {
  std::mutex mutex;
  std::optional<gpu_runtime_options> options;
  bool created = false;
};
ROCMTPL_INLINE runtime_preset& preset_state() {
  static runtime_preset p;
  return p;
}
}  // namespace detail

ROCMTPL_INLINE gpu_runtime& gpu_runtime::instance() {
  static gpu_runtime runtime([] {
    auto& p = detail::preset_state();
    const std::lock_guard lock(p.mutex);
    if (!p.options) p.options = gpu_runtime_options::from_environment();
    p.created = true;
    return *p.options;
  }());
  return runtime;
}

ROCMTPL_INLINE bool gpu_runtime::preset(const gpu_runtime_options& options) {
  auto& p = detail::preset_state();
  const std::lock_guard lock(p.mutex);
  if (!p.created) {
    p.options = options;
    return true;
  }
  return p.options && p.options->platform_choice == options.platform_choice &&
         p.options->amd_libraries == options.amd_libraries && p.options->nvidia_libraries == options.nvidia_libraries;
}

ROCMTPL_INLINE gpu_runtime::gpu_runtime(const gpu_runtime_options& options) noexcept {
  const auto t0 = std::chrono::steady_clock::now();
  load(options);
  start_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

ROCMTPL_INLINE device_properties gpu_runtime::properties(int device) const {
  require("query device properties");
  device_properties p;
  p.ordinal = device;
  p.kind = *kind_;
  const bool nvidia = p.kind == platform::nvidia;
  auto attribute = [&](int id, const char* what) {
    int value = 0;
    check(api_.device_get_attribute(&value, id, device), "DeviceGetAttribute", what);
    return value;
  };
  const detail::attribute_ids& ids = detail::attributes_of(p.kind);
  p.compute_units = attribute(ids.multiprocessor_count, "multiprocessor count");
  p.warp_size = attribute(ids.warp_size, "warp size");
  p.max_threads_per_block = attribute(ids.max_threads_per_block, "max threads per block");
  p.l2_cache_bytes = to_size(attribute(ids.l2_cache_size, "L2 cache size"));
  p.shared_memory_per_block = to_size(attribute(ids.max_shared_memory_per_block, "shared memory per block"));
  // Optional queries: HIP documents the opt-in limit as CUDA-only, CUDA 13 deprecates the clock.
  int value = 0;
  const int optin_id = ids.max_shared_memory_per_block_optin;
  p.shared_memory_per_block_optin = api_.device_get_attribute(&value, optin_id, device) == 0 && value > 0
                                        ? to_size(value)
                                        : p.shared_memory_per_block;
  p.shared_memory_per_block_optin = std::max(p.shared_memory_per_block_optin, p.shared_memory_per_block);
  value = 0;
  p.clock_khz = api_.device_get_attribute(&value, ids.clock_rate, device) == 0 ? value : 0;
  clear_last_error();

  std::vector<char> props(detail::device_prop_buffer_bytes, '\0');
  check(api_.get_device_properties(props.data(), device), "GetDeviceProperties", "device name");
  p.name.assign(props.data(), ::strnlen(props.data(), 256));
  if (!nvidia && api_.device_get_name != nullptr) {
    std::array<char, 256> name{};
    if (api_.device_get_name(name.data(), static_cast<int>(name.size()), device) == 0 && name[0] != '\0') {
      p.name.assign(name.data(), ::strnlen(name.data(), name.size()));
    }
  }
  if (nvidia) {
    const int major = attribute(ids.compute_capability_major, "compute capability major");
    const int minor = attribute(ids.compute_capability_minor, "compute capability minor");
    p.arch = "sm_" + std::to_string(major) + std::to_string(minor);
  } else if (!amd_arch_override_.empty()) {
    p.arch = detail::strip_arch_features(amd_arch_override_);
  } else {
    p.arch = detail::strip_arch_features(
        detail::find_gcn_arch_name(props.data(), props.size(), detail::hip52_gcn_arch_name_offset));
    if (p.arch.empty()) {
      throw gpu_error(prefix() + "GetDeviceProperties", 0,
                      "no gcnArchName found for device " + std::to_string(device) + "; set ROCMTPL_AMD_ARCH");
    }
  }

  p.total_memory = total_memory(device);
  return p;
}

ROCMTPL_INLINE std::size_t gpu_runtime::total_memory(int device) const {
  require("query device memory");
  std::size_t total = 0;
  if (kind_ == platform::nvidia) {
    if (void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
      using get_fn = int (*)(int*, int);
      using total_fn = int (*)(std::size_t*, int);
      auto get = reinterpret_cast<get_fn>(::dlsym(cuda, "cuDeviceGet"));
      auto total_mem = reinterpret_cast<total_fn>(::dlsym(cuda, "cuDeviceTotalMem_v2"));
      int handle = 0;
      const bool ok = get && total_mem && get(&handle, device) == 0 && total_mem(&total, handle) == 0;
      ::dlclose(cuda);
      if (ok) return total;
    }
  } else if (api_.device_total_mem != nullptr && api_.device_total_mem(&total, device) == 0) {
    return total;
  }
  int previous = 0;
  check(api_.get_device(&previous), "GetDevice", "current device");
  check(api_.set_device(device), "SetDevice", "device " + std::to_string(device));
  std::size_t free_bytes = 0;
  const int rc = api_.mem_get_info(&free_bytes, &total);
  api_.set_device(previous);
  check(rc, "MemGetInfo", "device memory");
  return total;
}

ROCMTPL_INLINE void gpu_runtime::set_device(int device) const {
  require("set the device");
  check(api_.set_device(device), "SetDevice", "device " + std::to_string(device));
}

ROCMTPL_INLINE int gpu_runtime::current_device() const {
  require("get the current device");
  int device = 0;
  check(api_.get_device(&device), "GetDevice", "current device");
  return device;
}

ROCMTPL_INLINE void* gpu_runtime::malloc(std::size_t bytes) const {
  require("allocate device memory");
  void* ptr = nullptr;
  check(api_.malloc(&ptr, bytes), "Malloc", std::to_string(bytes) + " bytes");
  return ptr;
}

ROCMTPL_INLINE void gpu_runtime::free(void* ptr) const noexcept {
  if (available_ && ptr != nullptr) api_.free(ptr);
}

ROCMTPL_INLINE void gpu_runtime::memcpy_to_device(void* dst, const void* src, std::size_t bytes) const {
  require("copy to the device");
  check(api_.memcpy(dst, src, bytes, detail::memcpy_host_to_device), "Memcpy", "host to device");
}

ROCMTPL_INLINE void gpu_runtime::memcpy_to_host(void* dst, const void* src, std::size_t bytes) const {
  require("copy to the host");
  check(api_.memcpy(dst, src, bytes, detail::memcpy_device_to_host), "Memcpy", "device to host");
}

ROCMTPL_INLINE void gpu_runtime::memcpy_device(void* dst, const void* src, std::size_t bytes, void* stream) const {
  require("copy on the device");
  check(api_.memcpy_async(dst, src, bytes, detail::memcpy_device_to_device, stream), "MemcpyAsync", "device to device");
}

ROCMTPL_INLINE void gpu_runtime::memset(void* dst, int value, std::size_t bytes, void* stream) const {
  require("set device memory");
  check(api_.memset_async(dst, value, bytes, stream), "MemsetAsync", std::to_string(bytes) + " bytes");
}

ROCMTPL_INLINE void* gpu_runtime::create_stream() const {
  require("create a stream");
  void* stream = nullptr;
  check(api_.stream_create(&stream), "StreamCreate", "");
  return stream;
}

ROCMTPL_INLINE void gpu_runtime::destroy_stream(void* stream) const noexcept {
  if (available_ && stream != nullptr) api_.stream_destroy(stream);
}

ROCMTPL_INLINE void gpu_runtime::synchronize(void* stream) const {
  require("synchronize a stream");
  check(api_.stream_synchronize(stream), "StreamSynchronize", "");
}

ROCMTPL_INLINE void gpu_runtime::device_synchronize() const {
  require("synchronize the device");
  check(api_.device_synchronize(), "DeviceSynchronize", "");
}

ROCMTPL_INLINE void* gpu_runtime::create_event() const {
  require("create an event");
  void* event = nullptr;
  check(api_.event_create(&event), "EventCreate", "");
  return event;
}

ROCMTPL_INLINE void gpu_runtime::destroy_event(void* event) const noexcept {
  if (available_ && event != nullptr) api_.event_destroy(event);
}

ROCMTPL_INLINE void gpu_runtime::record_event(void* event, void* stream) const {
  require("record an event");
  check(api_.event_record(event, stream), "EventRecord", "");
}

ROCMTPL_INLINE float gpu_runtime::elapsed_ms(void* start, void* stop) const {
  require("time events");
  check(api_.event_synchronize(stop), "EventSynchronize", "");
  float ms = 0.0F;
  check(api_.event_elapsed_time(&ms, start, stop), "EventElapsedTime", "");
  return ms;
}

ROCMTPL_INLINE std::string gpu_runtime::last_error_text(int code) const {
  if (api_.get_error_string != nullptr) {
    if (const char* text = api_.get_error_string(code); text != nullptr) return text;
  }
  return "error " + std::to_string(code);
}

ROCMTPL_INLINE void gpu_runtime::require(const char* operation) const {
  if (!available_) throw no_gpu_error(operation, probe_error_, status_);
}

ROCMTPL_INLINE void gpu_runtime::check(int rc, const char* api_suffix, const std::string& context) const {
  if (rc == 0) return;
  clear_last_error();  // CUDA keeps non-sticky errors until read; do not leak them to the next call
  std::string message = last_error_text(rc);
  if (!context.empty()) message += " [" + context + "]";
  throw gpu_error(prefix() + api_suffix, rc, std::move(message));
}

ROCMTPL_INLINE void gpu_runtime::clear_last_error() const noexcept {
  if (api_.get_last_error != nullptr) api_.get_last_error();
}

ROCMTPL_INLINE gpu_runtime::probe gpu_runtime::try_platform(platform kind, const std::vector<std::string>& libraries) {
  probe result;
  result.kind = kind;
  std::string tried;
  for (const auto& file : libraries) {
    ::dlerror();
    result.handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (result.handle != nullptr) {
      result.library = file;
      break;
    }
    const char* why = ::dlerror();
    tried += (tried.empty() ? "" : "; ") + file + (why != nullptr ? std::string(": ") + why : std::string());
  }
  const std::string label = std::string(to_string(kind)) + " runtime";
  if (result.handle == nullptr) {
    result.reason = label + " not found (tried " + tried + ")";
    return result;
  }
  if (const std::string missing = detail::bind_runtime_api(result.handle, kind, result.api); !missing.empty()) {
    result.reason = label + " " + result.library + " lacks " + missing;
    return result;
  }
  const std::string count_api = kind == platform::nvidia ? "cudaGetDeviceCount" : "hipGetDeviceCount";
  int count = 0;
  const int rc = result.api.get_device_count(&count);
  if (rc != 0) {
    result.api.get_last_error();
    const char* text = result.api.get_error_string(rc);
    result.error = rc;
    result.reason = label + " " + result.library + ": " + count_api + ": " + (text != nullptr ? text : "failed") +
                    " (error " + std::to_string(rc) + ")";
    return result;
  }
  if (count <= 0) {
    result.error = 0;
    result.reason = label + " " + result.library + ": no " + (kind == platform::nvidia ? "CUDA" : "HIP") + " device";
    return result;
  }
  result.device_count = count;
  result.error = 0;
  return result;
}

// The platforms to try, in order: the chosen one, or CUDA then HIP (stopping at the first with a device).
ROCMTPL_INLINE std::vector<gpu_runtime::probe> gpu_runtime::probe_platforms(const gpu_runtime_options& options) {
  std::vector<platform> order;
  if (options.platform_choice) {
    order.push_back(*options.platform_choice);
  } else {
    order = {platform::nvidia, platform::amd};
  }
  std::vector<probe> probes;
  for (platform kind : order) {
    probes.push_back(try_platform(kind, kind == platform::nvidia ? options.nvidia_libraries : options.amd_libraries));
    if (probes.back().device_count > 0) break;
  }
  return probes;
}

// The probe with devices; else the first library that loaded completely (so kind() says what is there).
ROCMTPL_INLINE const gpu_runtime::probe* gpu_runtime::select(const std::vector<probe>& probes) noexcept {
  for (const auto& p : probes) {
    if (p.device_count > 0) return &p;
  }
  for (const auto& p : probes) {
    if (p.handle != nullptr && p.reason.find(" lacks ") == std::string::npos) return &p;
  }
  return nullptr;
}

ROCMTPL_INLINE void gpu_runtime::adopt(const probe& selected) {
  kind_ = selected.kind;
  library_ = selected.library;
  api_ = selected.api;
  probe_error_ = selected.error;
  api_.runtime_get_version(&runtime_version_);
  api_.get_last_error();
  if (selected.device_count <= 0) return;
  available_ = true;
  device_count_ = selected.device_count;
  status_ = std::string(to_string(selected.kind)) + " runtime " + selected.library + " (version " +
            std::to_string(runtime_version_) + "), " + std::to_string(device_count_) +
            (device_count_ == 1 ? " device" : " devices");
}

ROCMTPL_INLINE void gpu_runtime::load(const gpu_runtime_options& options) noexcept {
  try {
    amd_arch_override_ = options.amd_arch_override;
    const std::vector<probe> probes = probe_platforms(options);
    if (const probe* selected = select(probes)) adopt(*selected);
    if (available_) return;
    status_ = "no GPU:";
    for (std::size_t i = 0; i < probes.size(); ++i) status_ += (i == 0 ? " " : "; ") + probes[i].reason;
  } catch (const std::exception& e) {  // only std::bad_alloc can get here
    available_ = false;
    status_ = std::string("no GPU: loading the runtime failed: ") + e.what();
  }
}

}  // namespace rocmtpl::runtime

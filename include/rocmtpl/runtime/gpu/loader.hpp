// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GPU runtime loader: `gpu_runtime`, the process's CUDA (libcudart) or HIP
/// (libamdhip64) runtime loaded with dlopen, and the `device_properties` it reports.
///
/// Programs that use rocmtpl build with a plain host compiler and no GPU header, and run on
/// machines without a GPU: there the runtime reports why (no library, no device, a driver error)
/// through available() and status(), and every GPU operation throws no_gpu_error. A missing
/// library or device is never thrown while loading; an invalid `ROCMTPL_PLATFORM` is (see
/// gpu_runtime::instance()).
///
/// Only the C functions that CUDA and HIP share by name (`cuda*`/`hip*` + the same suffix) are
/// used, with their documented attribute enumerators; no struct layout is relied on except the
/// device name at the start of the device-properties struct and, on HIP, the `gcnArchName` field
/// (see gpu/vendor_api.hpp).

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/options.hpp>
#include <rocmtpl/runtime/gpu/vendor_api.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

/// @brief What the library needs to know about a device to pick and build kernels.
struct device_properties {
  int ordinal = 0;                                ///< device index
  std::string name;                               ///< "NVIDIA H100 80GB HBM3", "AMD Instinct MI210"
  std::string arch;                               ///< compiler target: "sm_90", "gfx90a" (no feature suffix)
  platform kind = platform::nvidia;               ///< vendor
  int compute_units = 0;                          ///< SMs (NVIDIA) or CUs (AMD)
  std::size_t l2_cache_bytes = 0;                 ///< L2 size
  std::size_t shared_memory_per_block = 0;        ///< default shared memory (LDS) limit per block
  std::size_t shared_memory_per_block_optin = 0;  ///< limit after opting in (>= the default)
  std::size_t total_memory = 0;                   ///< device memory
  int warp_size = 0;                              ///< 32 or 64
  int clock_khz = 0;                              ///< peak clock, 0 where the runtime does not say
  int max_threads_per_block = 0;                  ///< threads per block limit
};

/// @brief The process's GPU runtime: CUDA or HIP, loaded with dlopen on first use.
///
/// instance() loads once (thread-safe); a missing library or device is reported by available()
/// and status(), never thrown. All members are const and safe to call from several threads (they
/// forward to the runtime, which is thread-safe). The runtime library is never unloaded: CUDA and
/// HIP register exit handlers that must find their code in place.
class gpu_runtime {
 public:
  /// @brief The runtime chosen by gpu_runtime_options::from_environment(), loaded on first call.
  /// @return the process-wide instance; check available() before GPU work.
  /// @throws invalid_argument_error when `ROCMTPL_PLATFORM` names no platform (the message names
  ///         the variable and its value): a typo is an error, never a silent "no GPU". Nothing is
  ///         loaded then, and the next call reads the environment again.
  [[nodiscard]] static gpu_runtime& instance() {
    static gpu_runtime runtime(gpu_runtime_options::from_environment());
    return runtime;
  }

  /// @brief Loads a runtime with explicit settings (tests, tools). Never throws on a missing
  /// library or device: see available() and status().
  explicit gpu_runtime(const gpu_runtime_options& options) noexcept {
    const auto t0 = std::chrono::steady_clock::now();
    load(options);
    start_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  /// @brief Seconds spent loading the runtime library and counting devices (driver start included).
  [[nodiscard]] double start_seconds() const noexcept { return start_seconds_; }

  gpu_runtime(const gpu_runtime&) = delete;
  gpu_runtime& operator=(const gpu_runtime&) = delete;
  ~gpu_runtime() = default;

  /// @brief True when a runtime library loaded and reports at least one device.
  [[nodiscard]] bool available() const noexcept { return available_; }

  /// @brief In words: "nvidia runtime libcudart.so.13 (version 13000), 1 device", or why no GPU
  /// can be used ("no GPU: nvidia runtime libcudart.so.13: cudaGetDeviceCount: CUDA driver
  /// version is insufficient for CUDA runtime version (error 35); ...").
  [[nodiscard]] const std::string& status() const noexcept { return status_; }

  /// @brief The platform of the loaded runtime library (also when it found no device); none when
  /// no library loaded.
  [[nodiscard]] std::optional<platform> kind() const noexcept { return kind_; }

  /// @brief The file that was loaded ("libcudart.so.13"); empty when none.
  [[nodiscard]] const std::string& library() const noexcept { return library_; }

  /// @brief cudaRuntimeGetVersion / hipRuntimeGetVersion; 0 when no library loaded.
  [[nodiscard]] int runtime_version() const noexcept { return runtime_version_; }

  /// @brief Number of devices; 0 when !available().
  [[nodiscard]] int device_count() const noexcept { return device_count_; }

  /// @brief Properties of one device, queried through device attributes (no struct layouts).
  /// AMD arch: ROCMTPL_AMD_ARCH if set, else gcnArchName without feature suffixes.
  /// @param device ordinal, 0 <= device < device_count().
  /// @throws no_gpu_error without a GPU; gpu_error for a bad ordinal or a failing query.
  [[nodiscard]] device_properties properties(int device = 0) const {
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

  /// @brief Device memory in bytes. Uses queries that need no GPU context (cuDeviceTotalMem,
  /// hipDeviceTotalMem): creating the primary context costs about 0.1 s, and a warm tune must not
  /// pay it. Falls back to MemGetInfo (which creates the context) when those are missing.
  /// @throws no_gpu_error without a GPU; gpu_error when the query fails.
  [[nodiscard]] std::size_t total_memory(int device = 0) const {
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

  /// @brief Makes `device` current for this thread.
  /// @throws no_gpu_error without a GPU; gpu_error for a bad ordinal.
  void set_device(int device) const {
    require("set the device");
    check(api_.set_device(device), "SetDevice", "device " + std::to_string(device));
  }

  /// @brief The current device of this thread.
  /// @throws no_gpu_error without a GPU.
  [[nodiscard]] int current_device() const {
    require("get the current device");
    int device = 0;
    check(api_.get_device(&device), "GetDevice", "current device");
    return device;
  }

  /// @brief Allocates device memory (nullptr for 0 bytes).
  /// @throws no_gpu_error without a GPU; gpu_error when out of memory.
  [[nodiscard]] void* malloc(std::size_t bytes) const {
    require("allocate device memory");
    void* ptr = nullptr;
    check(api_.malloc(&ptr, bytes), "Malloc", std::to_string(bytes) + " bytes");
    return ptr;
  }

  /// @brief Frees device memory from malloc(); nullptr and calls without a GPU do nothing.
  void free(void* ptr) const noexcept {
    if (available_ && ptr != nullptr) api_.free(ptr);
  }

  /// @brief Copies host -> device and waits for the copy.
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memcpy_to_device(void* dst, const void* src, std::size_t bytes) const {
    require("copy to the device");
    check(api_.memcpy(dst, src, bytes, detail::memcpy_host_to_device), "Memcpy", "host to device");
  }

  /// @brief Copies device -> host and waits for the copy (and for earlier work on the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memcpy_to_host(void* dst, const void* src, std::size_t bytes) const {
    require("copy to the host");
    check(api_.memcpy(dst, src, bytes, detail::memcpy_device_to_host), "Memcpy", "device to host");
  }

  /// @brief Enqueues a device -> device copy on `stream` (nullptr: the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memcpy_device(void* dst, const void* src, std::size_t bytes, void* stream = nullptr) const {
    require("copy on the device");
    check(api_.memcpy_async(dst, src, bytes, detail::memcpy_device_to_device, stream), "MemcpyAsync",
          "device to device");
  }

  /// @brief Enqueues filling `bytes` bytes with the byte `value` on `stream` (nullptr: default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memset(void* dst, int value, std::size_t bytes, void* stream = nullptr) const {
    require("set device memory");
    check(api_.memset_async(dst, value, bytes, stream), "MemsetAsync", std::to_string(bytes) + " bytes");
  }

  /// @brief Creates a stream (an opaque cudaStream_t / hipStream_t).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  [[nodiscard]] void* create_stream() const {
    require("create a stream");
    void* stream = nullptr;
    check(api_.stream_create(&stream), "StreamCreate", "");
    return stream;
  }

  /// @brief Destroys a stream from create_stream(); nullptr does nothing.
  void destroy_stream(void* stream) const noexcept {
    if (available_ && stream != nullptr) api_.stream_destroy(stream);
  }

  /// @brief Waits for the work on `stream` (nullptr: the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error when that work failed.
  void synchronize(void* stream = nullptr) const {
    require("synchronize a stream");
    check(api_.stream_synchronize(stream), "StreamSynchronize", "");
  }

  /// @brief Waits for all work on the current device.
  /// @throws no_gpu_error without a GPU; gpu_error when that work failed.
  void device_synchronize() const {
    require("synchronize the device");
    check(api_.device_synchronize(), "DeviceSynchronize", "");
  }

  /// @brief Creates a timing event (an opaque cudaEvent_t / hipEvent_t).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  [[nodiscard]] void* create_event() const {
    require("create an event");
    void* event = nullptr;
    check(api_.event_create(&event), "EventCreate", "");
    return event;
  }

  /// @brief Destroys an event from create_event(); nullptr does nothing.
  void destroy_event(void* event) const noexcept {
    if (available_ && event != nullptr) api_.event_destroy(event);
  }

  /// @brief Records `event` on `stream` (nullptr: the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void record_event(void* event, void* stream = nullptr) const {
    require("record an event");
    check(api_.event_record(event, stream), "EventRecord", "");
  }

  /// @brief Waits for `stop`, then returns the milliseconds between two recorded events.
  /// @throws no_gpu_error without a GPU; gpu_error when an event was not recorded.
  [[nodiscard]] float elapsed_ms(void* start, void* stop) const {
    require("time events");
    check(api_.event_synchronize(stop), "EventSynchronize", "");
    float ms = 0.0F;
    check(api_.event_elapsed_time(&ms, start, stop), "EventElapsedTime", "");
    return ms;
  }

  /// @brief The runtime's text for an error code ("out of memory"); "error <code>" without a runtime.
  [[nodiscard]] std::string last_error_text(int code) const {
    if (api_.get_error_string != nullptr) {
      if (const char* text = api_.get_error_string(code); text != nullptr) return text;
    }
    return "error " + std::to_string(code);
  }

 private:
  static std::size_t to_size(int value) noexcept { return value > 0 ? static_cast<std::size_t>(value) : 0; }

  [[nodiscard]] std::string prefix() const { return kind_ == platform::amd ? "hip" : "cuda"; }

  void require(const char* operation) const {
    if (!available_) throw no_gpu_error(operation, probe_error_, status_);
  }

  void check(int rc, const char* api_suffix, const std::string& context) const {
    if (rc == 0) return;
    clear_last_error();  // CUDA keeps non-sticky errors until read; do not leak them to the next call
    std::string message = last_error_text(rc);
    if (!context.empty()) message += " [" + context + "]";
    throw gpu_error(prefix() + api_suffix, rc, std::move(message));
  }

  void clear_last_error() const noexcept {
    if (api_.get_last_error != nullptr) api_.get_last_error();
  }

  struct probe {
    platform kind = platform::nvidia;
    void* handle = nullptr;
    std::string library;
    detail::runtime_api api;
    int device_count = 0;
    int error = -1;
    std::string reason;  // why it cannot be used; empty when it has devices
  };

  static probe try_platform(platform kind, const std::vector<std::string>& libraries) {
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
  static std::vector<probe> probe_platforms(const gpu_runtime_options& options) {
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
  static const probe* select(const std::vector<probe>& probes) noexcept {
    for (const auto& p : probes) {
      if (p.device_count > 0) return &p;
    }
    for (const auto& p : probes) {
      if (p.handle != nullptr && p.reason.find(" lacks ") == std::string::npos) return &p;
    }
    return nullptr;
  }

  void adopt(const probe& selected) {
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

  void load(const gpu_runtime_options& options) noexcept {
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

  bool available_ = false;
  std::optional<platform> kind_;
  std::string library_;
  std::string status_;
  std::string amd_arch_override_;
  int device_count_ = 0;
  int runtime_version_ = 0;
  int probe_error_ = -1;
  double start_seconds_ = 0;
  detail::runtime_api api_;
};

}  // namespace rocmtpl::runtime

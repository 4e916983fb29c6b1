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

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
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
  [[nodiscard]] static gpu_runtime& instance();

  /// @brief Sets the options the process's instance() loads with, before its first call (a tool
  /// choosing the AMD emulator, gpu_runtime_options::amd_emulator(), instead of the environment's
  /// runtime). Thread-safe.
  /// @return true when instance() will load with `options`, or already did with the same runtime
  ///         libraries; false when instance() was created before with other settings (it keeps them).
  [[nodiscard]] static bool preset(const gpu_runtime_options& options);

  /// @brief Loads a runtime with explicit settings (tests, tools). Never throws on a missing
  /// library or device: see available() and status().
  explicit gpu_runtime(const gpu_runtime_options& options) noexcept;

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
  [[nodiscard]] device_properties properties(int device = 0) const;

  /// @brief Device memory in bytes. Uses queries that need no GPU context (cuDeviceTotalMem,
  /// hipDeviceTotalMem): creating the primary context costs about 0.1 s, and a warm tune must not
  /// pay it. Falls back to MemGetInfo (which creates the context) when those are missing.
  /// @throws no_gpu_error without a GPU; gpu_error when the query fails.
  [[nodiscard]] std::size_t total_memory(int device = 0) const;

  /// @brief Makes `device` current for this thread.
  /// @throws no_gpu_error without a GPU; gpu_error for a bad ordinal.
  void set_device(int device) const;

  /// @brief The current device of this thread.
  /// @throws no_gpu_error without a GPU.
  [[nodiscard]] int current_device() const;

  /// @brief Allocates device memory (nullptr for 0 bytes).
  /// @throws no_gpu_error without a GPU; gpu_error when out of memory.
  [[nodiscard]] void* malloc(std::size_t bytes) const;

  /// @brief Frees device memory from malloc(); nullptr and calls without a GPU do nothing.
  void free(void* ptr) const noexcept;

  /// @brief Copies host -> device and waits for the copy.
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memcpy_to_device(void* dst, const void* src, std::size_t bytes) const;

  /// @brief Copies device -> host and waits for the copy (and for earlier work on the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memcpy_to_host(void* dst, const void* src, std::size_t bytes) const;

  /// @brief Enqueues a device -> device copy on `stream` (nullptr: the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memcpy_device(void* dst, const void* src, std::size_t bytes, void* stream = nullptr) const;

  /// @brief Enqueues filling `bytes` bytes with the byte `value` on `stream` (nullptr: default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void memset(void* dst, int value, std::size_t bytes, void* stream = nullptr) const;

  /// @brief Creates a stream (an opaque cudaStream_t / hipStream_t).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  [[nodiscard]] void* create_stream() const;

  /// @brief Destroys a stream from create_stream(); nullptr does nothing.
  void destroy_stream(void* stream) const noexcept;

  /// @brief Waits for the work on `stream` (nullptr: the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error when that work failed.
  void synchronize(void* stream = nullptr) const;

  /// @brief Waits for all work on the current device.
  /// @throws no_gpu_error without a GPU; gpu_error when that work failed.
  void device_synchronize() const;

  /// @brief Creates a timing event (an opaque cudaEvent_t / hipEvent_t).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  [[nodiscard]] void* create_event() const;

  /// @brief Destroys an event from create_event(); nullptr does nothing.
  void destroy_event(void* event) const noexcept;

  /// @brief Records `event` on `stream` (nullptr: the default stream).
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  void record_event(void* event, void* stream = nullptr) const;

  /// @brief Waits for `stop`, then returns the milliseconds between two recorded events.
  /// @throws no_gpu_error without a GPU; gpu_error when an event was not recorded.
  [[nodiscard]] float elapsed_ms(void* start, void* stop) const;

  /// @brief The runtime's text for an error code ("out of memory"); "error <code>" without a runtime.
  [[nodiscard]] std::string last_error_text(int code) const;

 private:
  static std::size_t to_size(int value) noexcept { return value > 0 ? static_cast<std::size_t>(value) : 0; }

  [[nodiscard]] std::string prefix() const { return kind_ == platform::amd ? "hip" : "cuda"; }

  void require(const char* operation) const;

  void check(int rc, const char* api_suffix, const std::string& context) const;

  void clear_last_error() const noexcept;

  struct probe {
    platform kind = platform::nvidia;
    void* handle = nullptr;
    std::string library;
    detail::runtime_api api;
    int device_count = 0;
    int error = -1;
    std::string reason;  // why it cannot be used; empty when it has devices
  };

  static probe try_platform(platform kind, const std::vector<std::string>& libraries);

  static std::vector<probe> probe_platforms(const gpu_runtime_options& options);

  static const probe* select(const std::vector<probe>& probes) noexcept;

  void adopt(const probe& selected);

  void load(const gpu_runtime_options& options) noexcept;

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

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/gpu/loader-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GPU runtime (CUDA's libcudart or HIP's libamdhip64), loaded with dlopen.
///
/// Programs that use rocmtpl build with a plain host compiler and no GPU header, and run on
/// machines without a GPU: there the runtime reports why (no library, no device, a driver error)
/// through available() and status(), and every GPU operation throws no_gpu_error. Nothing is
/// thrown while loading.
///
/// Only the C functions that CUDA and HIP share by name (`cuda*`/`hip*` + the same suffix) are
/// used, with their documented attribute enumerators; no struct layout is relied on except the
/// device name at the start of the device-properties struct and, on HIP, the `gcnArchName` field
/// (see detail::hip52_gcn_arch_name_offset, checked against Debian's HIP headers by a test).
///
/// @code{.cpp}
/// auto& gpu = rocmtpl::runtime::gpu_runtime::instance();
/// if (!gpu.available()) { std::cerr << gpu.status() << '\n'; return; }
/// rocmtpl::runtime::device_buffer x(1 << 20);
/// rocmtpl::runtime::stream s;
/// gpu.memset(x.get(), 0, x.size(), s.get());
/// s.synchronize();
/// @endcode

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/error.hpp>
#include <rocmtpl/runtime/platform.hpp>

namespace rocmtpl::runtime {

/// @brief A GPU runtime call failed.
class gpu_error : public rocmtpl::error {
 public:
  /// @brief Makes the error.
  /// @param api the runtime function that failed ("cudaMalloc", "hipMemcpy", ...).
  /// @param code its return code (cudaError_t / hipError_t value).
  /// @param message the runtime's text for the code, plus context.
  gpu_error(std::string api, int code, std::string message)
      : rocmtpl::error("rocmtpl: gpu: " + api + " failed: " + message + " (error " + std::to_string(code) + ")"),
        api_(std::move(api)),
        code_(code) {}

  /// @brief The runtime's error code.
  [[nodiscard]] int code() const noexcept { return code_; }
  /// @brief The runtime function that failed.
  [[nodiscard]] const std::string& api() const noexcept { return api_; }

 protected:
  struct preformatted_tag {};
  gpu_error(preformatted_tag, std::string what, std::string api, int code)
      : rocmtpl::error(std::move(what)), api_(std::move(api)), code_(code) {}

 private:
  std::string api_;
  int code_;
};

/// @brief A GPU operation was asked for where no GPU can be used. what() says why: no runtime
/// library, no device, or the driver's error.
class no_gpu_error : public gpu_error {
 public:
  /// @param operation the gpu_runtime operation that was called ("malloc", ...).
  /// @param code the error of the device query (-1 when no runtime library was loaded).
  /// @param why gpu_runtime::status().
  no_gpu_error(const std::string& operation, int code, const std::string& why)
      : gpu_error(preformatted_tag{}, "rocmtpl: gpu: cannot " + operation + ": " + why, operation, code) {}
};

/// @brief What the library needs to know about a device to pick and build kernels.
struct device_properties {
  int ordinal = 0;                                  ///< device index
  std::string name;                                 ///< "NVIDIA H100 80GB HBM3", "AMD Instinct MI210"
  std::string arch;                                 ///< compiler target: "sm_90", "gfx90a" (no feature suffix)
  platform kind = platform::nvidia;                 ///< vendor
  int compute_units = 0;                            ///< SMs (NVIDIA) or CUs (AMD)
  std::size_t l2_cache_bytes = 0;                   ///< L2 size
  std::size_t shared_memory_per_block = 0;          ///< default shared memory (LDS) limit per block
  std::size_t shared_memory_per_block_optin = 0;    ///< limit after opting in (>= the default)
  std::size_t total_memory = 0;                     ///< device memory
  int warp_size = 0;                                ///< 32 or 64
  int clock_khz = 0;                                ///< peak clock, 0 where the runtime does not say
  int max_threads_per_block = 0;                    ///< threads per block limit
};

/// @brief Settings for loading a runtime; gpu_runtime::instance() takes them from the environment.
struct gpu_runtime_options {
  /// "auto" (CUDA, then HIP; the first with a device wins), "nvidia"/"cuda" or "amd"/"hip"/"rocm".
  std::string platform_choice = "auto";
  /// CUDA runtime files tried in order (names for the loader's search, or paths).
  std::vector<std::string> nvidia_libraries;
  /// HIP runtime files tried in order (names for the loader's search, or paths).
  std::vector<std::string> amd_libraries;
  /// Arch reported for AMD devices instead of the runtime's (env ROCMTPL_AMD_ARCH).
  std::string amd_arch_override;

  /// @brief Defaults plus the environment: ROCMTPL_PLATFORM, ROCMTPL_AMD_ARCH, CUDA_PATH, ROCM_PATH.
  [[nodiscard]] static gpu_runtime_options from_environment();
};

namespace detail {

// cudaDeviceAttr enumerators (CUDA runtime API, stable since CUDA 9; checked against CUDA 13's
// headers by test/runtime/gpu_runtime_test.cpp).
namespace cuda_attribute {
inline constexpr int max_threads_per_block = 1;
inline constexpr int max_shared_memory_per_block = 8;
inline constexpr int warp_size = 10;
inline constexpr int clock_rate = 13;
inline constexpr int multiprocessor_count = 16;
inline constexpr int l2_cache_size = 38;
inline constexpr int compute_capability_major = 75;
inline constexpr int compute_capability_minor = 76;
inline constexpr int max_shared_memory_per_block_optin = 97;
}  // namespace cuda_attribute

// hipDeviceAttribute_t enumerators of HIP 5.2 (checked against Debian's headers by the test; later
// ROCm releases keep the numbering, replacing removed entries with "Unused" placeholders).
namespace hip_attribute {
inline constexpr int clock_rate = 5;
inline constexpr int l2_cache_size = 19;
inline constexpr int compute_capability_major = 23;
inline constexpr int max_threads_per_block = 56;
inline constexpr int compute_capability_minor = 61;
inline constexpr int multiprocessor_count = 63;
inline constexpr int max_shared_memory_per_block = 74;
inline constexpr int shared_mem_per_block_optin = 75;
inline constexpr int warp_size = 87;
}  // namespace hip_attribute

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

[[nodiscard]] inline std::optional<platform> parse_platform_choice(std::string_view text, bool& is_auto) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  is_auto = lower.empty() || lower == "auto";
  if (lower == "amd" || lower == "hip" || lower == "rocm") return platform::amd;
  if (lower == "nvidia" || lower == "cuda") return platform::nvidia;
  return std::nullopt;
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
  int (*device_get_name)(char*, int, int) = nullptr;  // HIP only (optional)
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
  const std::array<const char*, 2> properties = kind == platform::nvidia
                                                    ? std::array<const char*, 2>{"cudaGetDeviceProperties_v2",
                                                                                 "cudaGetDeviceProperties"}
                                                    : std::array<const char*, 2>{"hipGetDevicePropertiesR0600",
                                                                                 "hipGetDeviceProperties"};
  if (!bind_symbol(handle, api.get_device_properties, properties[0]) &&
      !bind_symbol(handle, api.get_device_properties, properties[1])) {
    missing += (missing.empty() ? "" : ", ") + std::string(properties[1]);
  }
  if (kind == platform::amd) bind_symbol(handle, api.device_get_name, "hipDeviceGetName");
  if (kind == platform::amd) bind_symbol(handle, api.device_total_mem, "hipDeviceTotalMem");
  return missing;
}

}  // namespace detail

/// @brief The process's GPU runtime: CUDA or HIP, loaded with dlopen on first use.
///
/// instance() loads once (thread-safe) and never throws. All members are const and safe to call
/// from several threads (they forward to the runtime, which is thread-safe). The runtime library
/// is never unloaded: CUDA and HIP register exit handlers that must find their code in place.
class gpu_runtime {
 public:
  /// @brief The runtime chosen by gpu_runtime_options::from_environment(), loaded on first call.
  /// @return the process-wide instance; check available() before GPU work.
  [[nodiscard]] static gpu_runtime& instance() noexcept {
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
    namespace ca = detail::cuda_attribute;
    namespace ha = detail::hip_attribute;
    p.compute_units = attribute(nvidia ? ca::multiprocessor_count : ha::multiprocessor_count, "multiprocessor count");
    p.warp_size = attribute(nvidia ? ca::warp_size : ha::warp_size, "warp size");
    p.max_threads_per_block =
        attribute(nvidia ? ca::max_threads_per_block : ha::max_threads_per_block, "max threads per block");
    p.l2_cache_bytes = to_size(attribute(nvidia ? ca::l2_cache_size : ha::l2_cache_size, "L2 cache size"));
    p.shared_memory_per_block = to_size(attribute(
        nvidia ? ca::max_shared_memory_per_block : ha::max_shared_memory_per_block, "shared memory per block"));
    // Optional queries: HIP documents the opt-in limit as CUDA-only, CUDA 13 deprecates the clock.
    int value = 0;
    const int optin_id = nvidia ? ca::max_shared_memory_per_block_optin : ha::shared_mem_per_block_optin;
    p.shared_memory_per_block_optin = api_.device_get_attribute(&value, optin_id, device) == 0 && value > 0
                                          ? to_size(value)
                                          : p.shared_memory_per_block;
    p.shared_memory_per_block_optin = std::max(p.shared_memory_per_block_optin, p.shared_memory_per_block);
    value = 0;
    p.clock_khz = api_.device_get_attribute(&value, nvidia ? ca::clock_rate : ha::clock_rate, device) == 0 ? value : 0;
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
      const int major = attribute(ca::compute_capability_major, "compute capability major");
      const int minor = attribute(ca::compute_capability_minor, "compute capability minor");
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

  void load(const gpu_runtime_options& options) noexcept {
    try {
      bool is_auto = false;
      const auto chosen = detail::parse_platform_choice(options.platform_choice, is_auto);
      if (!chosen && !is_auto) {
        status_ = "no GPU: invalid ROCMTPL_PLATFORM='" + options.platform_choice +
                  "'; expected amd, nvidia or auto";
        return;
      }
      amd_arch_override_ = options.amd_arch_override;
      std::vector<platform> order;
      if (chosen) {
        order.push_back(*chosen);
      } else {
        order = {platform::nvidia, platform::amd};
      }
      std::vector<probe> probes;
      for (platform kind : order) {
        probes.push_back(try_platform(kind, kind == platform::nvidia ? options.nvidia_libraries : options.amd_libraries));
        if (probes.back().device_count > 0) break;
      }
      // The one with devices; else the first library that loaded (so kind() says what is there).
      const probe* selected = nullptr;
      for (const auto& p : probes) {
        if (p.device_count > 0) selected = &p;
      }
      if (selected == nullptr) {
        for (const auto& p : probes) {
          if (p.handle != nullptr && p.reason.find(" lacks ") == std::string::npos && selected == nullptr) selected = &p;
        }
      }
      if (selected != nullptr) {
        kind_ = selected->kind;
        library_ = selected->library;
        api_ = selected->api;
        probe_error_ = selected->error;
        api_.runtime_get_version(&runtime_version_);
        api_.get_last_error();
      }
      if (selected != nullptr && selected->device_count > 0) {
        available_ = true;
        device_count_ = selected->device_count;
        status_ = std::string(to_string(selected->kind)) + " runtime " + selected->library + " (version " +
                  std::to_string(runtime_version_) + "), " + std::to_string(device_count_) +
                  (device_count_ == 1 ? " device" : " devices");
        return;
      }
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

inline gpu_runtime_options gpu_runtime_options::from_environment() {
  gpu_runtime_options options;
  if (const char* choice = std::getenv("ROCMTPL_PLATFORM")) options.platform_choice = choice;
  if (const char* arch = std::getenv("ROCMTPL_AMD_ARCH")) options.amd_arch_override = arch;
  // Loader search first (LD_LIBRARY_PATH, ld.so.cache), then the toolkits' usual folders.
  options.nvidia_libraries = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
  for (const char* root : std::array<const char*, 3>{std::getenv("CUDA_PATH"), std::getenv("CUDA_HOME"), "/usr/local/cuda"}) {
    if (root == nullptr || *root == '\0') continue;
    for (const char* file : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"}) {
      options.nvidia_libraries.push_back(std::string(root) + "/lib64/" + file);
    }
  }
  options.amd_libraries = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
  for (const char* root : std::array<const char*, 2>{std::getenv("ROCM_PATH"), "/opt/rocm"}) {
    if (root == nullptr || *root == '\0') continue;
    options.amd_libraries.push_back(std::string(root) + "/lib/libamdhip64.so");
  }
  return options;
}

/// @brief Device memory owned by one object (move-only). Freed on destruction.
class device_buffer {
 public:
  /// @brief No memory.
  device_buffer() noexcept = default;
  /// @brief Allocates `bytes` bytes on the current device.
  /// @throws no_gpu_error without a GPU; gpu_error when out of memory.
  explicit device_buffer(std::size_t bytes, const gpu_runtime& runtime = gpu_runtime::instance())
      : runtime_(&runtime), ptr_(runtime.malloc(bytes)), size_(bytes) {}
  device_buffer(device_buffer&& other) noexcept
      : runtime_(other.runtime_), ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      reset();
      runtime_ = other.runtime_;
      ptr_ = std::exchange(other.ptr_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { reset(); }

  /// @brief The device pointer (nullptr when empty).
  [[nodiscard]] void* get() const noexcept { return ptr_; }
  /// @brief The device pointer as `T*`.
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }
  /// @brief Size in bytes.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// @brief True when it holds memory.
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  /// @brief Frees the memory now.
  void reset() noexcept {
    if (ptr_ != nullptr && runtime_ != nullptr) runtime_->free(ptr_);
    ptr_ = nullptr;
    size_ = 0;
  }
  /// @brief Copies `bytes` (default: size()) from host memory into the buffer.
  /// @throws out_of_range_error when bytes > size(); no_gpu_error for an empty buffer; gpu_error on failure.
  void copy_from_host(const void* src, std::optional<std::size_t> bytes = std::nullopt) {
    const std::size_t n = checked(bytes);
    runtime_->memcpy_to_device(ptr_, src, n);
  }
  /// @brief Copies `bytes` (default: size()) from the buffer into host memory.
  /// @throws out_of_range_error when bytes > size(); no_gpu_error for an empty buffer; gpu_error on failure.
  void copy_to_host(void* dst, std::optional<std::size_t> bytes = std::nullopt) const {
    const std::size_t n = checked(bytes);
    runtime_->memcpy_to_host(dst, ptr_, n);
  }

 private:
  [[nodiscard]] std::size_t checked(std::optional<std::size_t> bytes) const {
    const std::size_t n = bytes.value_or(size_);
    if (n > size_) {
      throw out_of_range_error("rocmtpl: device_buffer: copy of " + std::to_string(n) + " bytes into a buffer of " +
                               std::to_string(size_));
    }
    if (runtime_ == nullptr) throw no_gpu_error("copy an empty device_buffer", -1, "the buffer holds no memory");
    return n;
  }

  const gpu_runtime* runtime_ = nullptr;
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};

/// @brief A GPU stream owned by one object (move-only).
class stream {
 public:
  /// @brief Creates a stream.
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  explicit stream(const gpu_runtime& runtime = gpu_runtime::instance())
      : runtime_(&runtime), handle_(runtime.create_stream()) {}
  stream(stream&& other) noexcept : runtime_(other.runtime_), handle_(std::exchange(other.handle_, nullptr)) {}
  stream& operator=(stream&& other) noexcept {
    if (this != &other) {
      runtime_->destroy_stream(handle_);
      runtime_ = other.runtime_;
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  ~stream() { runtime_->destroy_stream(handle_); }

  /// @brief The cudaStream_t / hipStream_t to pass to kernels (the C ABI's `hipStream_t stream`).
  [[nodiscard]] void* get() const noexcept { return handle_; }
  /// @brief Waits for the stream's work.
  /// @throws gpu_error when that work failed.
  void synchronize() const { runtime_->synchronize(handle_); }

 private:
  const gpu_runtime* runtime_;
  void* handle_;
};

/// @brief A GPU timing event owned by one object (move-only).
class event {
 public:
  /// @brief Creates an event.
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  explicit event(const gpu_runtime& runtime = gpu_runtime::instance())
      : runtime_(&runtime), handle_(runtime.create_event()) {}
  event(event&& other) noexcept : runtime_(other.runtime_), handle_(std::exchange(other.handle_, nullptr)) {}
  event& operator=(event&& other) noexcept {
    if (this != &other) {
      runtime_->destroy_event(handle_);
      runtime_ = other.runtime_;
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event() { runtime_->destroy_event(handle_); }

  /// @brief The cudaEvent_t / hipEvent_t.
  [[nodiscard]] void* get() const noexcept { return handle_; }
  /// @brief Records the event on `on` (nullptr: the default stream).
  /// @throws gpu_error on failure.
  void record(void* on = nullptr) const { runtime_->record_event(handle_, on); }
  /// @brief Milliseconds from `start` to this event (waits for this event).
  /// @throws gpu_error when an event was not recorded.
  [[nodiscard]] float elapsed_ms_since(const event& start) const { return runtime_->elapsed_ms(start.handle_, handle_); }

 private:
  const gpu_runtime* runtime_;
  void* handle_;
};

}  // namespace rocmtpl::runtime

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Device-only code objects loaded through the GPU driver's module API and launched from a
/// launch description (codegen/launch.hpp): the path the autotuner measures candidates on.
///
/// The driver is dlopen'ed like the runtime (runtime/gpu/loader.hpp): libcuda.so.1 (or
/// the file `ROCMTPL_CUDA_DRIVER` names)
/// (cuModuleLoadData, cuModuleGetFunction, cuFuncSetAttribute, cuLaunchKernel,
/// cuTensorMapEncodeTiled) on NVIDIA, the HIP runtime library itself (hipModuleLoadData,
/// hipModuleGetFunction, hipModuleLaunchKernel) on AMD. Streams and device memory come from
/// gpu_runtime (a cudaStream_t is a CUstream); the module is loaded into the current device's
/// primary context, which the runtime makes current.
///
/// A module_kernel answers the same two calls as kernel_entry (workspace_size() and launch()),
/// so benchmarks, verification and the tuner treat both alike; both launch the same kernels with
/// the same arguments, because the generated entry is rendered from the same description.

#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

namespace detail::module_impl {

// CUDA driver enumerators (cuda.h, CUDA 12/13; the HIP equivalents share the launch signature).
inline constexpr int cu_func_attribute_max_dynamic_shared_size_bytes = 8;
inline constexpr int cu_tensor_map_data_type_float16 = 6;
inline constexpr int cu_tensor_map_data_type_bfloat16 = 9;
inline constexpr int cu_tensor_map_interleave_none = 0;
inline constexpr int cu_tensor_map_swizzle_128b = 3;
inline constexpr int cu_tensor_map_l2_promotion_256b = 3;
inline constexpr int cu_tensor_map_float_oob_fill_none = 0;

// A CUtensorMap: 128 opaque bytes, 64-byte aligned.
struct alignas(64) tensor_map_bytes {
  std::array<std::uint64_t, 16> opaque{};
};
static_assert(sizeof(tensor_map_bytes) == 128);

// The module-API functions, bound with dlsym (C enums and handles as int and void*).
struct module_api {
  platform kind = platform::nvidia;
  std::string library;
  std::string error;  // why the API cannot be used; empty when it can
  int (*init)(unsigned) = nullptr;
  int (*load_data)(void**, const void*) = nullptr;
  int (*unload)(void*) = nullptr;
  int (*get_function)(void**, void*, const char*) = nullptr;
  int (*set_attribute)(void*, int, int) = nullptr;  // NVIDIA only
  int (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                void**) = nullptr;
  int (*encode_tiled)(void*, int, unsigned, void*, const std::uint64_t*, const std::uint64_t*, const std::uint32_t*,
                      const std::uint32_t*, int, int, int, int) = nullptr;  // NVIDIA only (Hopper)
  int (*cu_error_string)(int, const char**) = nullptr;
  const char* (*hip_error_string)(int) = nullptr;

  [[nodiscard]] std::string text(int code) const;
};

template <class Fn>
bool bind(void* handle, Fn& fn, const char* name) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) return false;
  fn = reinterpret_cast<Fn>(symbol);
  return true;
}

module_api load_module_api(platform kind, const std::string& runtime_library);

std::int64_t sm_count(int device);

std::vector<char> read_binary(const std::filesystem::path& p);

}  // namespace detail::module_impl

/// @brief The driver's module API for the process's GPU runtime (loaded once).
/// @throws no_gpu_error without a GPU; gpu_error when the driver library or a function is missing.
[[nodiscard]] const detail::module_impl::module_api& module_api();

/// @brief One code object loaded into the current device's context; unloaded on destruction.
/// Functions are looked up once each. Thread-safe.
class code_object {
 public:
  /// @brief Loads the code object (a cubin/fatbin or an AMD offload bundle) at `path`.
  /// @throws no_gpu_error without a GPU; gpu_error when the driver refuses it.
  explicit code_object(const std::filesystem::path& path);
  code_object(const code_object&) = delete;
  code_object& operator=(const code_object&) = delete;
  ~code_object();

  /// @brief The kernel `symbol` (an `extern "C" __global__` name).
  /// @throws gpu_error when the code object has no such kernel.
  [[nodiscard]] void* function(const std::string& symbol) const;

  /// @brief Raises a kernel's dynamic shared-memory limit once (NVIDIA, above 48 KiB).
  void allow_shared(void* fn, std::int64_t bytes) const;

  /// @brief The multiprocessor count of the device it was loaded on (for persistent grids).
  [[nodiscard]] std::int64_t sm_count() const noexcept { return sm_count_; }
  /// @brief The code object file it was loaded from.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  void* module_ = nullptr;
  std::int64_t sm_count_ = 0;
  mutable std::mutex mutex_;
  mutable std::map<std::string, void*, std::less<>> functions_;
  mutable std::map<void*, std::int64_t> opted_in_;
};

namespace detail::module_impl {

// The bytes of one kernel argument, kept where the argument pointer array can point at them.
struct argument_storage {
  std::vector<tensor_map_bytes> maps;
  std::vector<std::uint64_t> words;
  std::vector<void*> pointers;
};

void encode_map(const module_api& api, tensor_map_bytes& out, const bound_tensor_map& m, const void* tensor);

void build_arguments(const module_api& api, const bound_kernel_launch& l, const std::vector<const void*>& tensors,
                     void* workspace, argument_storage& s);

}  // namespace detail::module_impl

/// @brief A candidate as the module API runs it: a loaded code object and its launch description
/// bound to the benchmark's sizes and runtime arguments. Has kernel_entry's workspace_size() and
/// launch(), so bench and the autotuner use either.
class module_kernel {
 public:
  /// @param module the loaded code object
  /// @param launch the description bound to `extra` (sizes, then runtime arguments)
  /// @param extra the integer arguments it was bound to
  module_kernel(std::shared_ptr<const code_object> module, bound_launch launch, std::vector<std::int64_t> extra)
      : module_(std::move(module)), launch_(std::move(launch)), extra_(std::move(extra)) {}

  /// @brief Loads `path` and binds `d` to `sizes` and `runtime_args` (for this device's platform).
  /// @throws no_gpu_error, gpu_error, evaluation_error
  module_kernel(const std::filesystem::path& path, const launch_description& d, const std::vector<std::int64_t>& sizes,
                const std::vector<std::int64_t>& runtime_args);

  /// @brief The workspace the bound launch needs.
  /// @throws invalid_argument_error when `extra` is not what it was bound to.
  [[nodiscard]] std::size_t workspace_size(const std::vector<std::int64_t>& extra) const;

  /// @brief Launches every kernel of the variant the pointers select, on `stream`.
  /// @throws kernel_status_error (unsupported_argument) when no variant fits or a grid is too
  /// large; gpu_error when the driver refuses a launch.
  void launch(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra, void* workspace,
              void* stream) const;

  /// @brief The bound launch description it launches from.
  [[nodiscard]] const bound_launch& bound() const noexcept { return launch_; }

 private:
  static std::vector<std::int64_t> concat(std::vector<std::int64_t> a, const std::vector<std::int64_t>& b);
  void check_extra(const std::vector<std::int64_t>& extra) const;

  std::shared_ptr<const code_object> module_;
  bound_launch launch_;
  std::vector<std::int64_t> extra_;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/launch/module_launcher-inl.hpp>
#endif

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
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
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

  [[nodiscard]] std::string text(int code) const {
    const char* s = nullptr;
    if (cu_error_string != nullptr) cu_error_string(code, &s);
    if (hip_error_string != nullptr) s = hip_error_string(code);
    return s != nullptr ? s : "error " + std::to_string(code);
  }
};

template <class Fn>
bool bind(void* handle, Fn& fn, const char* name) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) return false;
  fn = reinterpret_cast<Fn>(symbol);
  return true;
}

inline module_api load_module_api(platform kind, const std::string& runtime_library) {
  module_api api;
  api.kind = kind;
  // ROCMTPL_CUDA_DRIVER names another libcuda (tests load a fake one).
  const char* driver = std::getenv("ROCMTPL_CUDA_DRIVER");
  api.library =
      kind == platform::nvidia ? (driver != nullptr && *driver != '\0' ? driver : "libcuda.so.1") : runtime_library;
  void* h = ::dlopen(api.library.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed, like the runtime
  if (h == nullptr) {
    const char* why = ::dlerror();
    api.error = "cannot load " + api.library + (why != nullptr ? std::string(": ") + why : std::string());
    return api;
  }
  std::string missing;
  const auto need = [&](auto& fn, const char* name) {
    if (!bind(h, fn, name)) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  if (kind == platform::nvidia) {
    need(api.init, "cuInit");
    need(api.load_data, "cuModuleLoadData");
    need(api.unload, "cuModuleUnload");
    need(api.get_function, "cuModuleGetFunction");
    need(api.set_attribute, "cuFuncSetAttribute");
    need(api.launch, "cuLaunchKernel");
    need(api.cu_error_string, "cuGetErrorString");
    bind(h, api.encode_tiled, "cuTensorMapEncodeTiled");  // CUDA 12 and later
  } else {
    need(api.load_data, "hipModuleLoadData");
    need(api.unload, "hipModuleUnload");
    need(api.get_function, "hipModuleGetFunction");
    need(api.launch, "hipModuleLaunchKernel");
    need(api.hip_error_string, "hipGetErrorString");
  }
  if (!missing.empty()) api.error = api.library + " lacks " + missing;
  if (api.error.empty() && api.init != nullptr && api.init(0) != 0) api.error = "cuInit failed";
  return api;
}

// Multiprocessors of a device, queried once per device and process.
inline std::int64_t sm_count(int device) {
  static std::mutex mutex;
  static std::map<int, std::int64_t> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(device); it != known.end()) return it->second;
  const auto n = static_cast<std::int64_t>(gpu_runtime::instance().properties(device).compute_units);
  known.emplace(device, n);
  return n;
}

inline std::vector<char> read_binary(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw invalid_argument_error("rocmtpl: code_object: cannot read " + p.string() + "; compile it first");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace detail::module_impl

/// @brief The driver's module API for the process's GPU runtime (loaded once).
/// @throws no_gpu_error without a GPU; gpu_error when the driver library or a function is missing.
[[nodiscard]] inline const detail::module_impl::module_api& module_api() {
  const auto& rt = gpu_runtime::instance();
  if (!rt.available()) throw no_gpu_error("load a code object", -1, rt.status());
  static const detail::module_impl::module_api api = detail::module_impl::load_module_api(*rt.kind(), rt.library());
  if (!api.error.empty()) throw gpu_error("module API", -1, api.error);
  return api;
}

/// @brief One code object loaded into the current device's context; unloaded on destruction.
/// Functions are looked up once each. Thread-safe.
class code_object {
 public:
  /// @brief Loads the code object (a cubin/fatbin or an AMD offload bundle) at `path`.
  /// @throws no_gpu_error without a GPU; gpu_error when the driver refuses it.
  explicit code_object(const std::filesystem::path& path) : path_(path) {
    const auto& api = module_api();
    auto& rt = gpu_runtime::instance();
    rt.set_device(rt.current_device());  // makes the primary context current on this thread
    const auto image = detail::module_impl::read_binary(path);
    if (const int rc = api.load_data(&module_, image.data()); rc != 0) {
      throw gpu_error(api.kind == platform::nvidia ? "cuModuleLoadData" : "hipModuleLoadData", rc,
                      api.text(rc) + " [" + path.string() + "]");
    }
    if (api.kind == platform::nvidia) sm_count_ = detail::module_impl::sm_count(rt.current_device());
  }
  code_object(const code_object&) = delete;
  code_object& operator=(const code_object&) = delete;
  ~code_object() {
    if (module_ != nullptr) module_api().unload(module_);
  }

  /// @brief The kernel `symbol` (an `extern "C" __global__` name).
  /// @throws gpu_error when the code object has no such kernel.
  [[nodiscard]] void* function(const std::string& symbol) const {
    std::lock_guard lock(mutex_);
    if (auto it = functions_.find(symbol); it != functions_.end()) return it->second;
    const auto& api = module_api();
    void* fn = nullptr;
    if (const int rc = api.get_function(&fn, module_, symbol.c_str()); rc != 0) {
      throw gpu_error(api.kind == platform::nvidia ? "cuModuleGetFunction" : "hipModuleGetFunction", rc,
                      api.text(rc) + " [kernel " + symbol + " in " + path_.string() + "]");
    }
    functions_.emplace(symbol, fn);
    return fn;
  }

  /// @brief Raises a kernel's dynamic shared-memory limit once (NVIDIA, above 48 KiB).
  void allow_shared(void* fn, std::int64_t bytes) const {
    const auto& api = module_api();
    if (api.kind != platform::nvidia || bytes <= 48 * 1024) return;
    std::lock_guard lock(mutex_);
    if (opted_in_[fn] >= bytes) return;
    if (const int rc = api.set_attribute(fn, detail::module_impl::cu_func_attribute_max_dynamic_shared_size_bytes,
                                         static_cast<int>(bytes));
        rc != 0) {
      throw gpu_error("cuFuncSetAttribute", rc, api.text(rc) + " [" + std::to_string(bytes) + " bytes]");
    }
    opted_in_[fn] = bytes;
  }

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

inline void encode_map(const module_api& api, tensor_map_bytes& out, const bound_tensor_map& m, const void* tensor) {
  if (m.rows == 0 || m.cols == 0) return;  // nothing is loaded through it (see tensor_map_spec)
  if (api.encode_tiled == nullptr) throw gpu_error("cuTensorMapEncodeTiled", -1, "the driver has no tensor maps");
  const auto elem = static_cast<std::int64_t>(element_size(m.element));
  const std::array<std::uint64_t, 2> dims{static_cast<std::uint64_t>(m.cols), static_cast<std::uint64_t>(m.rows)};
  const std::array<std::uint64_t, 1> strides{static_cast<std::uint64_t>(m.pitch * elem)};
  const std::array<std::uint32_t, 2> box{static_cast<std::uint32_t>(m.box_cols),
                                         static_cast<std::uint32_t>(m.box_rows)};
  const std::array<std::uint32_t, 2> unit{1, 1};
  auto* base = const_cast<char*>(static_cast<const char*>(tensor)) + m.offset * elem;
  const int type = m.element == dtype::bf16 ? cu_tensor_map_data_type_bfloat16 : cu_tensor_map_data_type_float16;
  if (const int rc = api.encode_tiled(&out, type, 2, base, dims.data(), strides.data(), box.data(), unit.data(),
                                      cu_tensor_map_interleave_none, cu_tensor_map_swizzle_128b,
                                      cu_tensor_map_l2_promotion_256b, cu_tensor_map_float_oob_fill_none);
      rc != 0) {
    throw kernel_status_error("cuTensorMapEncodeTiled", kernel_status::unsupported_argument);
  }
}

// The argument array of one launch: every value in storage, `pointers` pointing at them.
inline void build_arguments(const module_api& api, const bound_kernel_launch& l,
                            const std::vector<const void*>& tensors, void* workspace, argument_storage& s) {
  std::size_t maps = 0;
  for (const auto& p : l.params) maps += p.kind == launch_param_kind::tensor_map ? 1 : 0;
  s.maps.assign(maps, {});
  s.words.assign(l.params.size(), 0);
  s.pointers.assign(l.params.size(), nullptr);
  std::size_t m = 0;
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    const auto& p = l.params[i];
    auto& w = s.words[i];
    switch (p.kind) {
      case launch_param_kind::tensor: w = reinterpret_cast<std::uintptr_t>(tensors.at(p.index)); break;
      case launch_param_kind::workspace:
        // As the entry passes it: the workspace pointer plus the offset (null plus 0 stays null).
        w = reinterpret_cast<std::uintptr_t>(workspace) + static_cast<std::uintptr_t>(p.value);
        break;
      case launch_param_kind::size:
      case launch_param_kind::runtime_arg:
        if (p.scalar == launch_scalar::i32) {
          const auto v = static_cast<std::int32_t>(p.value);
          std::memcpy(&w, &v, sizeof v);
        } else {
          std::memcpy(&w, &p.value, sizeof p.value);
        }
        break;
      case launch_param_kind::tensor_map:
        if (p.map) encode_map(api, s.maps[m], *p.map, tensors.at(p.map->tensor));
        s.pointers[i] = &s.maps[m++];
        continue;
    }
    s.pointers[i] = &w;
  }
}

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
                const std::vector<std::int64_t>& runtime_args)
      : module_kernel(std::make_shared<code_object>(path),
                      bind(d, sizes, runtime_args, module_api().kind == platform::amd), concat(sizes, runtime_args)) {}

  /// @brief The workspace the bound launch needs.
  /// @throws invalid_argument_error when `extra` is not what it was bound to.
  [[nodiscard]] std::size_t workspace_size(const std::vector<std::int64_t>& extra) const {
    check_extra(extra);
    return static_cast<std::size_t>(launch_.workspace_bytes);
  }

  /// @brief Launches every kernel of the variant the pointers select, on `stream`.
  /// @throws kernel_status_error (unsupported_argument) when no variant fits or a grid is too
  /// large; gpu_error when the driver refuses a launch.
  void launch(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra, void* workspace,
              void* stream) const {
    namespace impl = detail::module_impl;
    check_extra(extra);
    if (launch_.workspace_bytes > 0 && workspace == nullptr) {
      throw kernel_status_error(module_->path().filename().string(), kernel_status::workspace_too_small);
    }
    std::vector<std::uintptr_t> addresses;
    for (const void* t : tensors) addresses.push_back(reinterpret_cast<std::uintptr_t>(t));
    const bound_variant* variant = nullptr;
    try {
      variant = &select_variant(launch_, addresses);
    } catch (const launch_unsupported_error&) {
      throw kernel_status_error(module_->path().filename().string(), kernel_status::unsupported_argument);
    }
    const auto& api = module_api();
    impl::argument_storage args;
    for (const auto& l : variant->launches) {
      std::array<std::int64_t, 3> g{};
      try {
        g = launch_grid(l, module_->sm_count());
      } catch (const launch_unsupported_error&) {
        throw kernel_status_error(l.symbol, kernel_status::unsupported_argument);
      }
      if (g[0] == 0) continue;
      void* fn = module_->function(l.symbol);
      module_->allow_shared(fn, l.shared_bytes);
      impl::build_arguments(api, l, tensors, workspace, args);
      const auto u = [](std::int64_t v) { return static_cast<unsigned>(v); };
      if (const int rc = api.launch(fn, u(g[0]), u(g[1]), u(g[2]), u(l.block[0]), u(l.block[1]), u(l.block[2]),
                                    u(l.shared_bytes), stream, args.pointers.data(), nullptr);
          rc != 0) {
        throw gpu_error(api.kind == platform::nvidia ? "cuLaunchKernel" : "hipModuleLaunchKernel", rc,
                        api.text(rc) + " [" + l.symbol + "]");
      }
    }
  }

  /// @brief The bound launch description it launches from.
  [[nodiscard]] const bound_launch& bound() const noexcept { return launch_; }

 private:
  static std::vector<std::int64_t> concat(std::vector<std::int64_t> a, const std::vector<std::int64_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }
  void check_extra(const std::vector<std::int64_t>& extra) const {
    if (extra != extra_) {
      throw invalid_argument_error(
          "rocmtpl: module_kernel: bound to other sizes or runtime arguments; bind the "
          "description again for these");
    }
  }

  std::shared_ptr<const code_object> module_;
  bound_launch launch_;
  std::vector<std::int64_t> extra_;
};

}  // namespace rocmtpl::runtime

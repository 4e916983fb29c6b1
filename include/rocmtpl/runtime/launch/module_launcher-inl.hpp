// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/launch/module_launcher.hpp: included at its end (header-only) or compiled once by
// src/runtime/launch.cpp, after it (so it does not include it back).

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
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/log.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>

namespace rocmtpl::runtime {

namespace detail::module_impl {

ROCMTPL_INLINE std::string module_api::text(int code) const {
  const char* s = nullptr;
  if (cu_error_string != nullptr) cu_error_string(code, &s);
  if (hip_error_string != nullptr) s = hip_error_string(code);
  return s != nullptr ? s : "error " + std::to_string(code);
}

ROCMTPL_INLINE module_api load_module_api(platform kind, const std::string& runtime_library) {
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
ROCMTPL_INLINE std::int64_t sm_count(int device) {
  static std::mutex mutex;
  static std::map<int, std::int64_t> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(device); it != known.end()) return it->second;
  const auto n = static_cast<std::int64_t>(gpu_runtime::instance().properties(device).compute_units);
  known.emplace(device, n);
  return n;
}

ROCMTPL_INLINE std::vector<char> read_binary(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw invalid_argument_error("rocmtpl: code_object: cannot read " + p.string() + "; compile it first");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace detail::module_impl

ROCMTPL_INLINE const detail::module_impl::module_api& module_api() {
  const auto& rt = gpu_runtime::instance();
  if (!rt.available()) throw no_gpu_error("load a code object", -1, rt.status());
  static const detail::module_impl::module_api api = detail::module_impl::load_module_api(*rt.kind(), rt.library());
  if (!api.error.empty()) throw gpu_error("module API", -1, api.error);
  return api;
}

ROCMTPL_INLINE code_object::code_object(const std::filesystem::path& path) : path_(path) {
  const auto& api = module_api();
  auto& rt = gpu_runtime::instance();
  rt.set_device(rt.current_device());  // makes the primary context current on this thread
  const auto image = detail::module_impl::read_binary(path);
  if (const int rc = api.load_data(&module_, image.data()); rc != 0) {
    throw gpu_error(api.kind == platform::nvidia ? "cuModuleLoadData" : "hipModuleLoadData", rc,
                    api.text(rc) + " [" + path.string() + "]");
  }
  if (api.kind == platform::nvidia) sm_count_ = detail::module_impl::sm_count(rt.current_device());
  log_info("load {}: code object", path.string());
}

ROCMTPL_INLINE code_object::~code_object() {
  if (module_ != nullptr) module_api().unload(module_);
}

ROCMTPL_INLINE void* code_object::function(const std::string& symbol) const {
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

ROCMTPL_INLINE void code_object::allow_shared(void* fn, std::int64_t bytes) const {
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

namespace detail::module_impl {

ROCMTPL_INLINE void encode_map(const module_api& api, tensor_map_bytes& out, const bound_tensor_map& m,
                               const void* tensor) {
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
ROCMTPL_INLINE void build_arguments(const module_api& api, const bound_kernel_launch& l,
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

ROCMTPL_INLINE module_kernel::module_kernel(const std::filesystem::path& path, const launch_description& d,
                                            const std::vector<std::int64_t>& sizes,
                                            const std::vector<std::int64_t>& runtime_args)
    : module_kernel(std::make_shared<code_object>(path),
                    bind(d, sizes, runtime_args, module_api().kind == platform::amd), concat(sizes, runtime_args)) {}

ROCMTPL_INLINE std::size_t module_kernel::workspace_size(const std::vector<std::int64_t>& extra) const {
  check_extra(extra);
  return static_cast<std::size_t>(launch_.workspace_bytes);
}

ROCMTPL_INLINE void module_kernel::launch(const std::vector<const void*>& tensors,
                                          const std::vector<std::int64_t>& extra, void* workspace, void* stream) const {
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

ROCMTPL_INLINE std::vector<std::int64_t> module_kernel::concat(std::vector<std::int64_t> a,
                                                               const std::vector<std::int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

ROCMTPL_INLINE void module_kernel::check_extra(const std::vector<std::int64_t>& extra) const {
  if (extra != extra_) {
    throw invalid_argument_error(
        "rocmtpl: module_kernel: bound to other sizes or runtime arguments; bind the "
        "description again for these");
  }
}

}  // namespace rocmtpl::runtime

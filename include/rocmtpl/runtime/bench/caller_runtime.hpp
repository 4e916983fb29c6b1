// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The runtime backend of rocm_template_caller's protocol (the reference's
/// ROCmBenchmarkRequest.precompile / update_workspace_size / benchmark): runtime::caller_runtime, which
/// rocm_template_caller::precompile(), benchmark() and output_node() take as their argument.
///
/// Compiles go to the code cache (code_cache::default_root(), so `ROCMTPL_CACHE_DIR` applies) for
/// the current device, or for gfx90a and gfx940 where there is none (the autotuner's choice).
/// @code{.cpp}
/// #include <rocmtpl/runtime/bench/caller_runtime.hpp>
/// const rocmtpl::runtime::caller_runtime rt;
/// auto caller = tpl.generate(config, {{"M", 1024}});
/// caller.precompile(rt);                            // hipcc or nvcc, once per source
/// double ms = caller.benchmark(rt, d_x, d_w, d_y);  // GPU events; no_gpu_error without a GPU
/// @endcode

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

/// @brief How rocm_template_caller's protocol compiles: the compile options for the current
/// device (its platform and arch) or, without one, for gfx90a and gfx940.
[[nodiscard]] inline compile_options caller_compile_options() {
  std::optional<device_identity> device = cached_device_identity();
  if (!device) device = query_device_identity();
  if (!device) return amd_compile_options();
  compile_options o;
  o.platform = device->kind;
  o.archs = {device_compile_arch(device->kind, device->arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

/// @brief The compiled library's entry point for a request (loads the library).
/// @throws shared_library errors when it does not load; symbol_not_found_error without the entry point
[[nodiscard]] inline kernel_entry caller_entry(const rocm_benchmark_request& request) {
  auto lib = std::make_shared<shared_library>(std::filesystem::path(request.library_path));
  return {std::move(lib), request.kernel_name, request.signature};
}

}  // namespace rocmtpl::runtime

namespace rocmtpl::runtime {

/// @brief The runtime layer's backend of rocm_template_caller (the caller_backend concept of
/// kernel/rocm_kernel.hpp): `caller.precompile(caller_runtime{})`, `caller.benchmark(caller_runtime{}, ...)`,
/// `caller.output_node(caller_runtime{})`.
struct caller_runtime {
  /// @brief Compiles the request's source into the code cache unless its library exists (the
  /// reference's precompile(); a second call costs a file check). Sets library_path.
  /// @throws compiler_not_found_error without a compiler; compile_error when the source does not build
  void precompile(rocm_benchmark_request& request) const {
    if (!request.library_path.empty() && std::filesystem::exists(request.library_path)) return;
    const auto options = caller_compile_options();
    const auto cc = compiler::find(options.platform);
    code_cache cache;
    request.library_path = cache.get_or_compile(cc, request.source_code, options).library.string();
  }

  /// @brief The compiled entry point's workspace query at the request's extra_args (compiling
  /// first when needed; no GPU needed), stored in workspace_size; nullopt without a compiler.
  /// @throws compile_error when the source does not build; kernel_status_error when the kernel
  /// refuses the sizes
  std::optional<std::size_t> query_workspace(rocm_benchmark_request& request) const {
    try {
      precompile(request);
    } catch (const compiler_not_found_error&) {
      return std::nullopt;
    }
    const std::size_t bytes = caller_entry(request).workspace_size(request.extra_args);
    request.workspace_size = bytes;
    return bytes;
  }

  /// @brief Times the kernel on the given device tensors (the reference's benchmark(*args, out)):
  /// compiles when needed, allocates the workspace it asks for (zeroed), then time_launches() with
  /// the default benchmark_options; returns the fastest repetition in milliseconds.
  /// @throws no_gpu_error without a GPU (before compiling); invalid_argument_error for a wrong
  /// number of inputs or a null output; kernel_status_error when the kernel refuses the arguments
  double benchmark(rocm_benchmark_request& request, const std::vector<const void*>& inputs, void* out) const {
    const auto& rt = gpu_runtime::instance();
    if (!rt.available()) throw no_gpu_error("benchmark a rocm_template_caller", -1, rt.status());
    if (inputs.size() != request.input_tensor_meta.size() || out == nullptr) {
      throw invalid_argument_error("rocmtpl: rocm_template_caller: benchmark of kernel " + request.kernel_name +
                                   " takes " + std::to_string(request.input_tensor_meta.size()) +
                                   " input pointers and a non-null output, got " + std::to_string(inputs.size()) +
                                   (out == nullptr ? " and a null output" : " inputs"));
    }
    precompile(request);
    const auto entry = caller_entry(request);
    const std::size_t bytes = entry.workspace_size(request.extra_args);
    request.workspace_size = bytes;
    stream s;
    device_buffer workspace;
    if (bytes > 0) {
      workspace = device_buffer(bytes);
      rt.memset(workspace.get(), 0, bytes, s.get());
    }
    const benchmark_options options;
    device_buffer flush;
    if (options.flush_l2) {
      flush = device_buffer(std::max<std::size_t>(2 * rt.properties(rt.current_device()).l2_cache_bytes, 1));
    }
    std::vector<const void*> tensors = inputs;
    tensors.push_back(out);
    const auto t = time_launches([&](void* on) { entry.launch(tensors, request.extra_args, workspace.get(), on); },
                                 s.get(), flush.get(), flush.size(), options);
    return t.min_ms;
  }
};

static_assert(rocmtpl::caller_backend<caller_runtime>);

}  // namespace rocmtpl::runtime

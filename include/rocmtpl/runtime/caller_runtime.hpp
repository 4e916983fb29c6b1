// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The runtime backend of rocm_template_caller's protocol (the reference's
/// ROCmBenchmarkRequest.precompile / update_workspace_size / benchmark): caller_runtime for
/// caller_runtime_tag, which rocm_template_caller::precompile() and benchmark() dispatch to, and
/// the workspace query that rocm_template_caller::output_node() falls back to for a template that
/// does not describe its workspace (registered when a translation unit of the program includes
/// this header).
///
/// Compiles go to the code cache (code_cache::default_root(), so `ROCMTPL_CACHE_DIR` applies) for
/// the current device, or for gfx90a and gfx940 where there is none (the autotuner's choice).
/// @code{.cpp}
/// #include <rocmtpl/runtime/caller_runtime.hpp>
/// auto caller = tpl.generate(config, {{"M", 1024}});
/// caller.precompile();                          // hipcc or nvcc, once per source
/// double ms = caller.benchmark(d_x, d_w, d_y);  // GPU events; no_gpu_error without a GPU
/// @endcode

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/error.hpp>
#include <rocmtpl/rocm_benchmark_request.hpp>
#include <rocmtpl/rocm_kernel.hpp>
#include <rocmtpl/runtime/benchmark.hpp>
#include <rocmtpl/runtime/code_cache.hpp>
#include <rocmtpl/runtime/compiler.hpp>
#include <rocmtpl/runtime/device_identity.hpp>
#include <rocmtpl/runtime/gpu_runtime.hpp>
#include <rocmtpl/runtime/kernel_call.hpp>
#include <rocmtpl/runtime/shared_library.hpp>
#include <rocmtpl/runtime/utility_kernels.hpp>

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

namespace rocmtpl {

/// @brief The runtime layer's backend of rocm_template_caller (see rocm_kernel.hpp).
template <>
struct caller_runtime<caller_runtime_tag> {
  /// @brief Compiles the request's source into the code cache unless its library exists (the
  /// reference's precompile(); a second call costs a file check). Sets library_path.
  /// @throws compiler_not_found_error without a compiler; compile_error when the source does not build
  static void precompile(rocm_benchmark_request& request) {
    if (!request.library_path.empty() && std::filesystem::exists(request.library_path)) return;
    const auto options = runtime::caller_compile_options();
    const auto cc = runtime::compiler::find(options.platform);
    runtime::code_cache cache;
    request.library_path = cache.get_or_compile(cc, request.source_code, options).library.string();
  }

  /// @brief The compiled entry point's workspace query at the request's extra_args (compiling
  /// first when needed; no GPU needed). Stores the answer in workspace_size.
  /// @throws what precompile() throws; kernel_status_error when the kernel refuses the sizes
  static std::size_t query_workspace(rocm_benchmark_request& request) {
    precompile(request);
    const std::size_t bytes = runtime::caller_entry(request).workspace_size(request.extra_args);
    request.workspace_size = bytes;
    return bytes;
  }

  /// @brief Times the kernel on the given device tensors (the reference's benchmark(*args, out)):
  /// compiles when needed, allocates the workspace it asks for (zeroed), then time_launches() with
  /// the default benchmark_options; returns the fastest repetition in milliseconds.
  /// @throws no_gpu_error without a GPU (before compiling); invalid_argument_error for a wrong
  /// number of inputs or a null output; kernel_status_error when the kernel refuses the arguments
  static double benchmark(rocm_benchmark_request& request, const std::vector<const void*>& inputs, void* out) {
    const auto& rt = runtime::gpu_runtime::instance();
    if (!rt.available()) throw runtime::no_gpu_error("benchmark a rocm_template_caller", -1, rt.status());
    if (inputs.size() != request.input_tensor_meta.size() || out == nullptr) {
      throw invalid_argument_error("rocmtpl: rocm_template_caller: benchmark of kernel " + request.kernel_name +
                                   " takes " + std::to_string(request.input_tensor_meta.size()) +
                                   " input pointers and a non-null output, got " + std::to_string(inputs.size()) +
                                   (out == nullptr ? " and a null output" : " inputs"));
    }
    const std::size_t bytes = query_workspace(request);
    const auto entry = runtime::caller_entry(request);
    runtime::stream s;
    runtime::device_buffer workspace;
    if (bytes > 0) {
      workspace = runtime::device_buffer(bytes);
      rt.memset(workspace.get(), 0, bytes, s.get());
    }
    const runtime::benchmark_options options;
    runtime::device_buffer flush;
    if (options.flush_l2) {
      flush = runtime::device_buffer(std::max<std::size_t>(2 * rt.properties(rt.current_device()).l2_cache_bytes, 1));
    }
    std::vector<const void*> tensors = inputs;
    tensors.push_back(out);
    const auto t =
        runtime::time_launches([&](void* on) { entry.launch(tensors, request.extra_args, workspace.get(), on); },
                               s.get(), flush.get(), flush.size(), options);
    return t.min_ms;
  }
};

namespace detail {
// output_node()'s fallback for templates that do not describe their workspace: the compiled
// library's query, or nothing when no compiler is installed (the scheduler then asks at run time).
[[nodiscard]] inline std::optional<std::size_t> runtime_workspace_query(rocm_benchmark_request& request) {
  try {
    return caller_runtime<caller_runtime_tag>::query_workspace(request);
  } catch (const runtime::compiler_not_found_error&) {
    return std::nullopt;
  }
}

// Registers the fallback when the program includes this header (before main; one registration
// however many translation units include it).
inline const bool runtime_workspace_query_registered = [] {
  registered_workspace_query() = &runtime_workspace_query;
  return true;
}();
}  // namespace detail

}  // namespace rocmtpl

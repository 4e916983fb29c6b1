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

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
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
[[nodiscard]] compile_options caller_compile_options();

/// @brief The compiled library's entry point for a request (loads the library).
/// @throws shared_library errors when it does not load; symbol_not_found_error without the entry point
[[nodiscard]] kernel_entry caller_entry(const rocm_benchmark_request& request);

}  // namespace rocmtpl::runtime

namespace rocmtpl::runtime {

/// @brief The runtime layer's backend of rocm_template_caller (the caller_backend concept of
/// kernel/rocm_kernel.hpp): `caller.precompile(caller_runtime{})`, `caller.benchmark(caller_runtime{}, ...)`,
/// `caller.output_node(caller_runtime{})`.
struct caller_runtime {
  /// @brief Compiles the request's source into the code cache unless its library exists (the
  /// reference's precompile(); a second call costs a file check). Sets library_path.
  /// @throws compiler_not_found_error without a compiler; compile_error when the source does not build
  void precompile(rocm_benchmark_request& request) const;

  /// @brief The compiled entry point's workspace query at the request's extra_args (compiling
  /// first when needed; no GPU needed), stored in workspace_size; nullopt without a compiler.
  /// @throws compile_error when the source does not build; kernel_status_error when the kernel
  /// refuses the sizes
  std::optional<std::size_t> query_workspace(rocm_benchmark_request& request) const;

  /// @brief Times the kernel on the given device tensors (the reference's benchmark(*args, out)):
  /// compiles when needed, allocates the workspace it asks for (zeroed), then time_launches() with
  /// the default benchmark_options; returns the fastest repetition in milliseconds.
  /// @throws no_gpu_error without a GPU (before compiling); invalid_argument_error for a wrong
  /// number of inputs or a null output; kernel_status_error when the kernel refuses the arguments
  double benchmark(rocm_benchmark_request& request, const std::vector<const void*>& inputs, void* out) const;
};

static_assert(rocmtpl::caller_backend<caller_runtime>);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/bench/caller_runtime-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/bench/caller_runtime.hpp: included at its end (header-only) or compiled once by
// src/runtime/bench.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE compile_options caller_compile_options() {
  std::optional<device_identity> device = cached_device_identity();
  if (!device) device = query_device_identity();
  if (!device) return amd_compile_options();
  compile_options o;
  o.platform = device->kind;
  o.archs = {device_compile_arch(device->kind, device->arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

ROCMTPL_INLINE kernel_entry caller_entry(const rocm_benchmark_request& request) {
  auto lib = std::make_shared<shared_library>(std::filesystem::path(request.library_path));
  return {std::move(lib), request.kernel_name, request.signature};
}

ROCMTPL_INLINE void caller_runtime::precompile(rocm_benchmark_request& request) const {
  if (!request.library_path.empty() && std::filesystem::exists(request.library_path)) return;
  auto options = caller_compile_options();
  options.required_symbols = {{request.kernel_name}};
  const auto cc = compiler::find(options.platform);
  code_cache cache;
  request.library_path = cache.get_or_compile(cc, request.source_code, options).library.string();
}

ROCMTPL_INLINE std::optional<std::size_t> caller_runtime::query_workspace(rocm_benchmark_request& request) const {
  try {
    precompile(request);
  } catch (const compiler_not_found_error&) {
    return std::nullopt;
  }
  const std::size_t bytes = caller_entry(request).workspace_size(request.extra_args);
  request.workspace_size = bytes;
  return bytes;
}

ROCMTPL_INLINE double caller_runtime::benchmark(rocm_benchmark_request& request, const std::vector<const void*>& inputs,
                                                void* out) const {
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

}  // namespace rocmtpl::runtime

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/tune/typed_autotune.hpp: included at its end (header-only) or compiled once by
// src/runtime/tune.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/tune/autotuner.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE no_winner_error::no_winner_error(const autotune_report& report)
    : error("rocmtpl: autotune: no winner for template '" + report.key.template_name + "' (" + report.summary() + "; " +
            report.gpu_status +
            "); benchmarking needs a GPU, and a winner must run and verify: see the report's candidates") {}

namespace detail {

// What autotune() compiled the candidates for: the device it tuned on, or (compile-only) the AMD
// archs. The same options give the same code cache entries, so loading the winner compiles nothing.
ROCMTPL_INLINE compile_options tuned_compile_options(const autotune_report& report, const autotune_options& options) {
  if (!report.gpu) return amd_compile_options(options.amd_archs);
  auto device = cached_device_identity();
  if (!device) device = query_device_identity();
  if (!device) throw no_gpu_error("load the tuned kernel", -1, gpu_runtime::instance().status());
  compile_options o;
  o.platform = device->kind;
  o.archs = {device_compile_arch(device->kind, device->arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

}  // namespace detail

}  // namespace rocmtpl::runtime

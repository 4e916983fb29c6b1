// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Umbrella header of the runtime layer (link rocmtpl::runtime): compile, cache, load,
/// benchmark and autotune rendered kernels. It includes every header of runtime/; a folder
/// runtime/X/ is included through runtime/X.hpp, which gathers it.

#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime/autotuner.hpp>
#include <rocmtpl/runtime/benchmark.hpp>
#include <rocmtpl/runtime/cache_root.hpp>
#include <rocmtpl/runtime/caller_runtime.hpp>
#include <rocmtpl/runtime/code_cache.hpp>
#include <rocmtpl/runtime/compiler.hpp>
#include <rocmtpl/runtime/device_headers.hpp>
#include <rocmtpl/runtime/device_identity.hpp>
#include <rocmtpl/runtime/export.hpp>
#include <rocmtpl/runtime/gpu_runtime.hpp>
#include <rocmtpl/runtime/kernel_call.hpp>
#include <rocmtpl/runtime/measure.hpp>
#include <rocmtpl/runtime/module_launcher.hpp>
#include <rocmtpl/runtime/module_loader.hpp>
#include <rocmtpl/runtime/nvrtc.hpp>
#include <rocmtpl/runtime/platform.hpp>
#include <rocmtpl/runtime/plot.hpp>
#include <rocmtpl/runtime/process.hpp>
#include <rocmtpl/runtime/resource_usage.hpp>
#include <rocmtpl/runtime/shared_library.hpp>
#include <rocmtpl/runtime/tune_batch.hpp>
#include <rocmtpl/runtime/tuning_db.hpp>
#include <rocmtpl/runtime/typed_autotune.hpp>
#include <rocmtpl/runtime/typed_kernel.hpp>
#include <rocmtpl/runtime/utility_kernels.hpp>
#include <rocmtpl/runtime/worker_pool.hpp>

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Umbrella header of the runtime layer (link rocmtpl::runtime): compile, cache, load,
/// benchmark and autotune rendered kernels. It includes the pure umbrella and every header of
/// runtime/'s folders (sys/, gpu/, build/, db/, launch/, bench/, tune/, aot/); it only includes.

#include <rocmtpl/rocmtpl.hpp>
#include <rocmtpl/runtime/aot/export.hpp>
#include <rocmtpl/runtime/aot/module_loader.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/caller_runtime.hpp>
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/bench/worker_pool.hpp>
#include <rocmtpl/runtime/build/amd_emulator.hpp>
#include <rocmtpl/runtime/build/artifact.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/build/nvrtc.hpp>
#include <rocmtpl/runtime/build/resource_usage.hpp>
#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/database.hpp>
#include <rocmtpl/runtime/db/descriptor_json.hpp>
#include <rocmtpl/runtime/db/json.hpp>
#include <rocmtpl/runtime/db/key.hpp>
#include <rocmtpl/runtime/db/postgres.hpp>
#include <rocmtpl/runtime/db/schema.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/gpu/handles.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>
#include <rocmtpl/runtime/gpu/options.hpp>
#include <rocmtpl/runtime/gpu/vendor_api.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/launch/typed_kernel.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>
#include <rocmtpl/runtime/sys/log.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>
#include <rocmtpl/runtime/tune/autotuner.hpp>
#include <rocmtpl/runtime/tune/plot.hpp>
#include <rocmtpl/runtime/tune/tune_batch.hpp>
#include <rocmtpl/runtime/tune/typed_autotune.hpp>

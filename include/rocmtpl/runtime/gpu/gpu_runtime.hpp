// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GPU runtime (CUDA's libcudart or HIP's libamdhip64), loaded with dlopen, gathered.
///
/// Programs that use rocmtpl build with a plain host compiler and no GPU header, and run on
/// machines without a GPU: there the runtime reports why (no library, no device, a driver error)
/// through available() and status(), and every GPU operation throws no_gpu_error. An invalid
/// `ROCMTPL_PLATFORM` is an error (invalid_argument_error from gpu_runtime::instance()).
///
/// The parts, one concern per header:
/// - `gpu/error.hpp`: `gpu_error`, `no_gpu_error`;
/// - `gpu/vendor_api.hpp`: the CUDA/HIP attribute and symbol tables (detail);
/// - `gpu/options.hpp`: `gpu_runtime_options` and the environment;
/// - `gpu/loader.hpp`: `gpu_runtime` and `device_properties`;
/// - `gpu/handles.hpp`: `device_buffer`, `stream`, `event`.
///
/// @code{.cpp}
/// auto& gpu = rocmtpl::runtime::gpu_runtime::instance();
/// if (!gpu.available()) { std::cerr << gpu.status() << '\n'; return; }
/// rocmtpl::runtime::device_buffer x(1 << 20);
/// rocmtpl::runtime::stream s;
/// gpu.memset(x.get(), 0, x.size(), s.get());
/// s.synchronize();
/// @endcode

#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/handles.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>
#include <rocmtpl/runtime/gpu/options.hpp>
#include <rocmtpl/runtime/gpu/vendor_api.hpp>

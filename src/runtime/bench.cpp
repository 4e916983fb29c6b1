// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/bench/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/caller_runtime.hpp>
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/bench/worker_pool.hpp>

#include <rocmtpl/runtime/bench/benchmark-inl.hpp>
#include <rocmtpl/runtime/bench/caller_runtime-inl.hpp>
#include <rocmtpl/runtime/bench/measure-inl.hpp>
#include <rocmtpl/runtime/bench/utility_kernels-inl.hpp>
#include <rocmtpl/runtime/bench/worker_pool-inl.hpp>

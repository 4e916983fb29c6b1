// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/tune/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/runtime/tune/autotuner.hpp>
#include <rocmtpl/runtime/tune/plot.hpp>
#include <rocmtpl/runtime/tune/tune_batch.hpp>
#include <rocmtpl/runtime/tune/typed_autotune.hpp>

#include <rocmtpl/runtime/tune/autotuner-inl.hpp>
#include <rocmtpl/runtime/tune/plot-inl.hpp>
#include <rocmtpl/runtime/tune/tune_batch-inl.hpp>
#include <rocmtpl/runtime/tune/typed_autotune-inl.hpp>

// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/tune/ (ROCMTPL_HEADER_ONLY=OFF): every -inl.hpp of
// that folder, included once here. A header-only build does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

#include <rocmtpl/runtime/tune/autotuner-inl.hpp>
#include <rocmtpl/runtime/tune/plot-inl.hpp>
#include <rocmtpl/runtime/tune/tune_batch-inl.hpp>
#include <rocmtpl/runtime/tune/typed_autotune-inl.hpp>

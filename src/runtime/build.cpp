// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/build/ (ROCMTPL_HEADER_ONLY=OFF): every -inl.hpp of
// that folder, included once here. A header-only build does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

#include <rocmtpl/runtime/build/code_cache-inl.hpp>
#include <rocmtpl/runtime/build/compiler-inl.hpp>
#include <rocmtpl/runtime/build/device_headers-inl.hpp>
#include <rocmtpl/runtime/build/nvrtc-inl.hpp>
#include <rocmtpl/runtime/build/resource_usage-inl.hpp>

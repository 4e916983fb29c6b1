// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/build/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/runtime/build/amd_emulator.hpp>
#include <rocmtpl/runtime/build/artifact.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/build/nvrtc.hpp>
#include <rocmtpl/runtime/build/resource_usage.hpp>

#include <rocmtpl/runtime/build/amd_emulator-inl.hpp>
#include <rocmtpl/runtime/build/artifact-inl.hpp>
#include <rocmtpl/runtime/build/code_cache-inl.hpp>
#include <rocmtpl/runtime/build/compiler-inl.hpp>
#include <rocmtpl/runtime/build/device_headers-inl.hpp>
#include <rocmtpl/runtime/build/nvrtc-inl.hpp>
#include <rocmtpl/runtime/build/resource_usage-inl.hpp>

// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/launch/ (ROCMTPL_HEADER_ONLY=OFF): every -inl.hpp of
// that folder, included once here. A header-only build does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

#include <rocmtpl/runtime/launch/kernel_call-inl.hpp>
#include <rocmtpl/runtime/launch/module_launcher-inl.hpp>
#include <rocmtpl/runtime/launch/typed_kernel-inl.hpp>

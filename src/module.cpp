// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/module/ (ROCMTPL_HEADER_ONLY=OFF): every -inl.hpp of
// that folder, included once here. A header-only build does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

#include <rocmtpl/module/emitter-inl.hpp>
#include <rocmtpl/module/graph-inl.hpp>
#include <rocmtpl/module/runner-inl.hpp>
#include <rocmtpl/module/workspace_plan-inl.hpp>

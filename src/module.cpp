// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/module/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/module/emitter.hpp>
#include <rocmtpl/module/graph.hpp>
#include <rocmtpl/module/runner.hpp>
#include <rocmtpl/module/workspace_plan.hpp>

#include <rocmtpl/module/emitter-inl.hpp>
#include <rocmtpl/module/graph-inl.hpp>
#include <rocmtpl/module/runner-inl.hpp>
#include <rocmtpl/module/workspace_plan-inl.hpp>

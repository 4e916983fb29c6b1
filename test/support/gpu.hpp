// SPDX-License-Identifier: MIT
#pragma once

// Test support for tests labelled gpu: they build everywhere and skip where no GPU is found.

#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>

#include <gtest/gtest.h>

// Skips the current test, with the runtime's reason, when no GPU is available.
#define ROCMTPL_REQUIRE_GPU()                                                             \
  do {                                                                                    \
    if (!::rocmtpl::runtime::gpu_runtime::instance().available())                         \
      GTEST_SKIP() << "no GPU: " << ::rocmtpl::runtime::gpu_runtime::instance().status(); \
  } while (0)

// Skips as ROCMTPL_REQUIRE_GPU does, and also when the GPU's compiler (nvcc or hipcc) is missing.
#define ROCMTPL_REQUIRE_GPU_AND_COMPILER()                                                                      \
  do {                                                                                                          \
    ROCMTPL_REQUIRE_GPU();                                                                                      \
    try {                                                                                                       \
      (void)::rocmtpl::runtime::compiler::find(::rocmtpl::runtime::gpu_runtime::instance().properties(0).kind); \
    } catch (const ::rocmtpl::runtime::compiler_not_found_error& e) {                                           \
      GTEST_SKIP() << e.what();                                                                                 \
    }                                                                                                           \
  } while (0)

// SPDX-License-Identifier: MIT
#pragma once

// Helpers of the runtime tests that compile: the HIP source the compile tests build, the workspace
// query, the installed compiler or a skip, a gemm template with a symbolic row count. Temporary folders, environment
// overrides, scripts and process watching come from the shared test support (test/support/), included here.

#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace rocmtpl::test {

namespace fs = std::filesystem;

// The kernel library the compile tests build: one kernel and an entry point that follows the
// rocmtpl C ABI. Its workspace query answers n * scale + 64 bytes, so a test can tell which
// build it loaded. `header` (optional) is #included, for dependency tests.
std::string entry_source(int scale, std::string_view header = {});

// int entry(const float*, float*, int64_t, size_t*, uint8_t*, hipStream_t): the stream is a pointer.
using entry_fn = int(const float*, float*, std::int64_t, std::size_t*, std::uint8_t*, void*);

std::size_t query_workspace(entry_fn* entry, std::int64_t n);

// The real compiler, or nullopt (the caller skips) when it is not installed.
std::optional<runtime::compiler> find_compiler(runtime::platform p);

// Whether the compiler for `p` is installed.
bool have_compiler(runtime::platform p);

// A gemm [M,64] x [64,48] -> [M,48] of dtype `t` with M symbolic.
rocm_template<templates::gemm_policy> symbolic_gemm(dtype t = dtype::f32);

#define ROCMTPL_REQUIRE_COMPILER(var, platform)                                                     \
  auto var##_found = ::rocmtpl::test::find_compiler(platform);                                      \
  if (!var##_found)                                                                                 \
    GTEST_SKIP() << "no compiler for " << ::rocmtpl::runtime::to_string(platform) << " installed (" \
                 << ::rocmtpl::runtime::compiler_not_found_error::install_hint(platform) << ")";    \
  [[maybe_unused]] const ::rocmtpl::runtime::compiler& var = *var##_found

}  // namespace rocmtpl::test

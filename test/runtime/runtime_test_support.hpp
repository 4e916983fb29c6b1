// SPDX-License-Identifier: MIT
#pragma once

// Helpers of the runtime tests that compile: the HIP source the compile tests build, the workspace
// query, the installed compiler or a skip, a gemm template with a symbolic row count. Temporary folders, environment
// overrides, scripts and process watching come from the shared test support (test/support/), included here.

#include <rocmtpl/rocm_template.hpp>
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
inline std::string entry_source(int scale, std::string_view header = {}) {
  std::string s = "#include <hip/hip_runtime.h>\n#include <cstddef>\n#include <cstdint>\n";
  if (!header.empty()) s += "#include \"" + std::string(header) + "\"\n";
  s += "#ifndef ROCMTPL_TEST_SCALE\n#define ROCMTPL_TEST_SCALE " + std::to_string(scale) + "\n#endif\n";
  s += R"(
__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  __shared__ float tile[256];
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (i < n) y[i] = 2.f * tile[threadIdx.x];
}

extern "C" __attribute__((visibility("default"))) int entry(const float* x, float* y, int64_t n,
                                                            size_t* workspace_size, uint8_t* workspace,
                                                            hipStream_t stream) {
  if (workspace_size != nullptr) {
    *workspace_size = static_cast<size_t>(n) * ROCMTPL_TEST_SCALE + 64;
    return 0;
  }
  (void)workspace;
  if (x == nullptr || y == nullptr) return 1;
  hipLaunchKernelGGL(scale_kernel, dim3(static_cast<unsigned>((n + 255) / 256)), dim3(256), 0, stream, x, y, n);
  return hipGetLastError() == hipSuccess ? 0 : 2;
}
)";
  return s;
}

// int entry(const float*, float*, int64_t, size_t*, uint8_t*, hipStream_t): the stream is a pointer.
using entry_fn = int(const float*, float*, std::int64_t, std::size_t*, std::uint8_t*, void*);

inline std::size_t query_workspace(entry_fn* entry, std::int64_t n) {
  std::size_t bytes = 0;
  const int rc = entry(nullptr, nullptr, n, &bytes, nullptr, nullptr);
  EXPECT_EQ(rc, 0);
  return bytes;
}

// The real compiler, or nullopt (the caller skips) when it is not installed.
inline std::optional<runtime::compiler> find_compiler(runtime::platform p) {
  try {
    return runtime::compiler::find(p);
  } catch (const runtime::compiler_not_found_error&) {
    return std::nullopt;
  }
}

// Whether the compiler for `p` is installed.
inline bool have_compiler(runtime::platform p) { return find_compiler(p).has_value(); }

// A gemm [M,64] x [64,48] -> [M,48] of dtype `t` with M symbolic.
inline rocm_template<templates::gemm_policy> symbolic_gemm(dtype t = dtype::f32) {
  const auto m = sym_expr::symbol("M");
  return {templates::gemm_policy(),
          {buffer("x", layout::row_major(t, {m, 64})), buffer("w", layout::row_major(t, {64, 48}))},
          layout::row_major(t, {m, 48})};
}

#define ROCMTPL_REQUIRE_COMPILER(var, platform)                                                     \
  auto var##_found = ::rocmtpl::test::find_compiler(platform);                                      \
  if (!var##_found)                                                                                 \
    GTEST_SKIP() << "no compiler for " << ::rocmtpl::runtime::to_string(platform) << " installed (" \
                 << ::rocmtpl::runtime::compiler_not_found_error::install_hint(platform) << ")";    \
  [[maybe_unused]] const ::rocmtpl::runtime::compiler& var = *var##_found

}  // namespace rocmtpl::test

// SPDX-License-Identifier: MIT
#include "support/runtime.hpp"

namespace rocmtpl::test {

std::string entry_source(int scale, std::string_view header) {
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

std::size_t query_workspace(entry_fn* entry, std::int64_t n) {
  std::size_t bytes = 0;
  const int rc = entry(nullptr, nullptr, n, &bytes, nullptr, nullptr);
  EXPECT_EQ(rc, 0);
  return bytes;
}

std::optional<runtime::compiler> find_compiler(runtime::platform p) {
  try {
    return runtime::compiler::find(p);
  } catch (const runtime::compiler_not_found_error&) {
    return std::nullopt;
  }
}

bool have_compiler(runtime::platform p) { return find_compiler(p).has_value(); }

rocm_template<templates::gemm_policy> symbolic_gemm(dtype t) {
  const auto m = sym_expr::symbol("M");
  return {templates::gemm_policy(),
          {buffer("x", layout::row_major(t, {m, 64})), buffer("w", layout::row_major(t, {64, 48}))},
          layout::row_major(t, {m, 48})};
}

}  // namespace rocmtpl::test

// SPDX-License-Identifier: MIT
// Hygiene on a real GPU (issue 8, label gpu; skips without one): GEMMs whose size symbols carry
// the names of the generated code's own identifiers (p, block_m, split_k, gemm_problem, X_size,
// total, t, acc, ...) compile, run and match cuBLAS, through the shared GEMM GPU harness: with
// runtime split-K (the entry point's own split_k argument next to a user symbol split_k), batched
// with bias, and with padded symbolic strides and offsets.
#include <rocmtpl/runtime.hpp>

#include "gpu/gemm_gpu_harness.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl::test::gemm_gpu;

sym_expr s(const char* name) { return sym_expr::symbol(name); }

gemm_config first_config(const rocm_template<gemm_policy>& t, const size_hints& hints) {
  return t.policy().configs(t.context(), hints).front();
}

TEST(HygieneGpu, GemmWithSymbolsNamedLikeInternalsMatchesCublas) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  // Batch, M, N, K named after the GEMM's problem struct, its local `p`, its tile constant and
  // its split-K argument.
  const sym_expr b = s("gemm_problem"), m = s("p"), n = s("split_k"), k = s("block_m");
  const size_hints hint{{"gemm_problem", 2}, {"p", 100}, {"split_k", 72}, {"block_m", 136}};
  const size_hints small{{"gemm_problem", 1}, {"p", 33}, {"split_k", 8}, {"block_m", 40}};
  for (dtype d : {dtype::f32, dtype::f16}) {
    const std::string dn(name(d));
    // Runtime split-K: the entry point takes `int32_t split_k` and the user symbol `split_k` (N).
    gemm_options o{.act = activation::gelu, .runtime_split_k = true};
    auto t = std::make_shared<rocm_template<gemm_policy>>(
        gemm_policy(o),
        std::vector<buffer>{buffer("x", layout::row_major(d, {b, m, k})), buffer("w", layout::row_major(d, {k, n})),
                            buffer("bias", layout::row_major(d, {n}))},
        layout::row_major(d, {b, m, n}));
    for (int split : {1, 3}) {
      const auto c = first_config(*t, hint).with_split_k(split);
      cases.push_back({dn + " split " + std::to_string(split), t, o, c, {hint, small}});
    }
  }
  // Padded strides and offsets, all symbols named like internals: X rows of X_size elements
  // starting at `t`, W column-major with leading dimension `acc`, Y rows of `total`.
  const sym_expr x_ld = s("X_size"), x_off = s("t"), w_ld = s("acc"), y_ld = s("total"), y_off = s("Partial");
  auto padded = std::make_shared<rocm_template<gemm_policy>>(
      gemm_policy({.act = activation::relu}),
      std::vector<buffer>{buffer("x", layout(dtype::f32, {m, k}, {x_ld, 1}, x_off)),
                          buffer("w", layout(dtype::f32, {k, n}, {1, w_ld}))},
      layout(dtype::f32, {m, n}, {y_ld, 1}, y_off));
  const size_hints padded_hint{{"p", 67}, {"split_k", 37}, {"block_m", 45}, {"X_size", 50},
                               {"t", 3},  {"acc", 48},     {"total", 40},   {"Partial", 5}};
  cases.push_back({"f32 padded", padded, {.act = activation::relu}, first_config(*padded, padded_hint), {padded_hint}});
  run_all(h, cases);
  EXPECT_GT(h.against_cublas() + h.against_host(), cases.size());
}

TEST(HygieneGpu, EntryPointRefusesNonPositiveOutputStridesAndOverflow) {  // issue 8, issue 22 item 6
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  const sym_expr m = s("p"), n = s("n"), k = s("k"), y_ld = s("total");
  auto t = std::make_shared<rocm_template<gemm_policy>>(
      gemm_policy(),
      std::vector<buffer>{buffer("x", layout::row_major(dtype::f32, {m, k})),
                          buffer("w", layout::row_major(dtype::f32, {k, n}))},
      layout(dtype::f32, {m, n}, {y_ld, 1}));
  const size_hints hint{{"p", 8}, {"n", 8}, {"k", 8}, {"total", 8}};
  cases.push_back({"status", t, {}, first_config(*t, hint), {hint}});
  h.prepare(cases);
  ASSERT_TRUE(cases[0].lib) << cases[0].compile_error;
  const device_buffer x(8 * 8 * 4), w(8 * 8 * 4), y(8 * 8 * 4);
  const std::vector<const void*> ptrs{x.get(), w.get(), y.get()};
  // Symbols in first-appearance order: p, k, n, total.
  EXPECT_EQ(h.call(cases[0], ptrs, {8, 8, 8, 8}, nullptr), kernel_status::ok);
  EXPECT_EQ(h.call(cases[0], ptrs, {8, 8, 8, 0}, nullptr),
            kernel_status::unsupported_argument);  // output rows overlap: unsupported
  EXPECT_EQ(h.call(cases[0], ptrs, {8, 8, 8, -8}, nullptr), kernel_status::unsupported_argument);
  EXPECT_EQ(h.call(cases[0], ptrs, {1, 8, 8, 0}, nullptr), kernel_status::ok);  // one row: any stride
  // Issue 22 item 6: rows of 8 elements every 4 overlap (overlap_of()'s rule, checked at run time).
  EXPECT_EQ(h.call(cases[0], ptrs, {8, 8, 8, 4}, nullptr), kernel_status::unsupported_argument);
  EXPECT_EQ(h.call(cases[0], ptrs, {4, 8, 4, 4}, nullptr), kernel_status::ok);  // rows of 4 every 4: contiguous
  EXPECT_EQ(h.call(cases[0], ptrs, {1, 8, 8, 4}, nullptr), kernel_status::ok);  // one row: no overlap
  const std::int64_t big = std::int64_t{1} << 62;
  EXPECT_EQ(h.call(cases[0], ptrs, {big, 8, 8, 8}, nullptr),
            kernel_status::unsupported_argument);  // p * k overflows int64
}
}  // namespace

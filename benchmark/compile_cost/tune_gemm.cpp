// SPDX-License-Identifier: MIT
// Compile-cost probe (b): a program that tunes one GEMM through the runtime layer.
#include <rocmtpl/runtime/tune/autotuner.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <iostream>

int main() {
  using namespace rocmtpl;
  const auto m = sym_expr::symbol("M");
  rocm_template<templates::gemm_policy> gemm(
      templates::gemm_policy{},
      {buffer("X", layout::row_major(dtype::f16, {m, 4096})), buffer("W", layout::row_major(dtype::f16, {4096, 4096}))},
      layout::row_major(dtype::f16, {m, 4096}));
  const auto report = runtime::autotune(gemm, {{"M", 8192}});
  report.print_table(std::cout);
}

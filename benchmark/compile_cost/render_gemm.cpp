// SPDX-License-Identifier: MIT
// Compile-cost probe (a): a program that renders one GEMM and asks for its hash key. Header-only,
// pure layer: `g++ -std=c++20 -O2 -I include render_gemm.cpp` with no define and no library.
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <iostream>

int main() {
  using namespace rocmtpl;
  const auto m = sym_expr::symbol("M");
  rocm_template<templates::gemm_policy> gemm(
      templates::gemm_policy{},
      {buffer("X", layout::row_major(dtype::f16, {m, 4096})), buffer("W", layout::row_major(dtype::f16, {4096, 4096}))},
      layout::row_major(dtype::f16, {m, 4096}));
  const auto caller = gemm.generate(templates::gemm_config{}, {{"M", 8192}});
  std::cout << caller.hash_key() << ' ' << caller.source().size() << '\n';
}

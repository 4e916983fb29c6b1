// SPDX-License-Identifier: MIT
// Compile-cost probe (a, typed): the program of render_gemm.cpp through the typed route (issue 24):
// buffer types, the signature the policy derives, typed size hints. It may cost at most 20% more
// CPU to compile than render_gemm.cpp. Header-only, pure layer, no define and no library.
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <iostream>

int main() {
  using namespace rocmtpl;
  using x = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<4096>>>>;
  using w = static_buffer<"W", row_major_layout<f16_t, dims<ext<4096>, ext<4096>>>>;
  using y = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<4096>>>>;
  const auto gemm = make_template(templates::gemm_policy{}, inputs<x, w>{}, outputs<y>{});
  const auto caller = gemm.generate(templates::gemm_config{}, hints<"M">{8192});
  std::cout << caller.untyped().hash_key() << ' ' << caller.source().size() << '\n';
}

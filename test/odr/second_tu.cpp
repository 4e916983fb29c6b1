// SPDX-License-Identifier: MIT
// ODR test, second translation unit: includes every public header and renders a GEMM with activation relu.
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl_odr_all_headers.hpp>
#if __has_include(<rocmtpl/runtime.hpp>)
#include <rocmtpl/runtime.hpp>
#endif

#include "odr.hpp"

namespace rocmtpl_odr {

tu_result render_in_second_tu() {
  using rocmtpl::buffer;
  using rocmtpl::dtype;
  using rocmtpl::layout;
  using rocmtpl::sym_expr;
  namespace tpl = rocmtpl::templates;
  const auto x = layout::row_major(dtype::f16, {sym_expr::symbol("M"), 64});
  const auto w = layout::row_major(dtype::f16, {64, 32});
  const auto y = layout::row_major(dtype::f16, {sym_expr::symbol("M"), 32});
  const rocmtpl::rocm_template<tpl::gemm_policy> gemm(tpl::gemm_policy{tpl::gemm_options{.act = tpl::activation::relu}},
                                                      {buffer("x", x), buffer("w", w)}, y);
  auto caller = gemm.generate(gemm.policy().configs().front(), {{"M", 128}});
  return {caller.name(), caller.source(), &rocmtpl::detail::choice_counter(), &rocmtpl::detail::hash64};
}

}  // namespace rocmtpl_odr

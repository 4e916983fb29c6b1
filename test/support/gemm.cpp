// SPDX-License-Identifier: MIT
#include "support/gemm.hpp"

namespace gemm_test {

rocmtpl::rocm_template<gemm_policy> make(dtype t, activation act, bool bias) {
  std::vector<buffer> in{buffer("x", layout::row_major(t, {M, 96})), buffer("w", layout::row_major(t, {96, 80}))};
  if (bias) in.emplace_back("b", layout::row_major(dtype::f32, {80}));
  return {gemm_policy({act}), in, layout::row_major(t, {M, 80})};
}

rocmtpl::rocm_template<gemm_policy> square(dtype t, sym_expr m, sym_expr n, sym_expr k, gemm_options o) {
  return {gemm_policy(o),
          {buffer("x", layout::row_major(t, {m, k})), buffer("w", layout::row_major(t, {k, n}))},
          layout::row_major(t, {m, n})};
}

rocmtpl::rocm_template<gemm_policy> epilogue_problem(bool col_major_w, bool runtime_split_k) {
  gemm_options o{.act = activation::gelu,
                 .alpha = 0.5F,
                 .beta = 2.0F,
                 .bias_along = bias_dim::m,
                 .residual = true,
                 .runtime_split_k = runtime_split_k};
  return {gemm_policy(o),
          {buffer("x", layout::row_major(dtype::f16, {M, 64})),
           buffer("w", col_major_w ? layout::col_major(dtype::f16, {64, 48}) : layout::row_major(dtype::f16, {64, 48})),
           buffer("b", layout::row_major(dtype::f32, {M})), buffer("r", layout::row_major(dtype::bf16, {M, 48}))},
          layout::row_major(dtype::f32, {M, 48})};
}

gemm_config mma(int bm, int bn, int bk, int wm, int wn, int stages) {
  gemm_config c;
  c.math = gemm_math::matrix_core;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.warp_m = wm;
  c.warp_n = wn;
  c.stages = stages;
  c.thread_m = 0;
  c.thread_n = 0;
  c.vector = 8;
  return c;
}

gemm_config hopper(int bm, int bn, int stages) {
  gemm_config c = mma(bm, bn, 64, bm / 2, bn, stages);
  c.math = gemm_math::wgmma;
  return c;
}

gemm_config skinny(gemm_math math, int bm, int wm, int wn, int tn, int bk, int vector, int split) {
  gemm_config c;
  c.math = math;
  c.block_m = bm;
  c.warp_m = wm;
  c.warp_n = wn;
  c.thread_m = 1;
  c.thread_n = tn;
  c.block_n = wn * tn;
  c.block_k = bk;
  c.group_m = 1;
  c.stages = 1;
  c.vector = vector;
  c.split_k = split;
  return c;
}

rocmtpl::rendered_source render_parts(const rocmtpl::rocm_template<gemm_policy>& t, const gemm_config& c) {
  rocmtpl::rocm_template_kernel kernel("rocm_" + std::string(t.name()), t.get_runtime_arg_info(),
                                       t.get_runtime_arg_values(c));
  return t.render(kernel, c);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (auto i = s.find(part); i != std::string::npos; i = s.find(part, i + part.size())) ++n;
  return n;
}

}  // namespace gemm_test

// SPDX-License-Identifier: MIT
// Shared by the tests of templates/gemm/*: problems as rocm_templates, matrix-core configs, text search.
#pragma once

#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <string>
#include <vector>

namespace gemm_test {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::size_hints;
using rocmtpl::sym_expr;
using rocmtpl::templates::activation;
using rocmtpl::templates::bias_dim;
using rocmtpl::templates::gemm_config;
using rocmtpl::templates::gemm_math;
using rocmtpl::templates::gemm_options;
using rocmtpl::templates::gemm_policy;

inline const sym_expr M = sym_expr::symbol("M");
inline const sym_expr N = sym_expr::symbol("N");
inline const sym_expr K = sym_expr::symbol("K");

// X [M, 96] @ W [96, 80] (+ Bias [80]) of one dtype.
rocmtpl::rocm_template<gemm_policy> make(dtype t = dtype::f32, activation act = activation::none, bool bias = false);

// Row-major X [m, k] @ W [k, n].
rocmtpl::rocm_template<gemm_policy> square(dtype t, sym_expr m, sym_expr n, sym_expr k, gemm_options o = {});

// Every epilogue feature: gelu(0.5 * X @ W + 2 * Bias[M]) + Residual, f16 operands, bf16 residual,
// f32 bias and output; W [64, 48] row- or column-major.
rocmtpl::rocm_template<gemm_policy> epilogue_problem(bool col_major_w, bool runtime_split_k = false);

gemm_config mma(int bm, int bn, int bk, int wm, int wn, int stages);

// A Hopper (wgmma) configuration: two consumer warpgroups split block_m, one warpgroup spans block_n.
gemm_config hopper(int bm, int bn, int stages);

// A skinny configuration (issue 10 part 2): `bm` rows of the small dimension per block, `wm`
// threads along K, `wn` along the large dimension, `tn` units per thread, `bk` K elements per
// step, `split` K slices.
gemm_config skinny(gemm_math math, int bm, int wm, int wn, int tn = 1, int bk = 8, int vector = 8, int split = 1);

// The parts generate() assembles for configuration `c` of `t` (its source() is their str()): the
// entry `rocm_gemm` with the configuration's runtime arguments, rendered into a kernel of its own.
rocmtpl::rendered_source render_parts(const rocmtpl::rocm_template<gemm_policy>& t, const gemm_config& c);

bool contains(const std::string& s, const std::string& part);

std::size_t count(const std::string& s, const std::string& part);
}  // namespace gemm_test

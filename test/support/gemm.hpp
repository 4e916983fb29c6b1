// SPDX-License-Identifier: MIT
// Shared by the tests of templates/gemm/*: problems as rocm_templates, matrix-core configs, text search.
#pragma once

#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <memory>
#include <optional>
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
using rocmtpl::templates::gemm_options;
using rocmtpl::templates::gemm_policy;
using rocmtpl::templates::mma_config;
using rocmtpl::templates::simt_config;
using rocmtpl::templates::skinny_config;
using rocmtpl::templates::skinny_mma_config;
using rocmtpl::templates::skinny_side;
using rocmtpl::templates::wgmma_config;

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

// A skinny (FMA) configuration: `bm` rows of the small dimension per block, `wm` threads along K,
// `wn` along the large dimension, `tn` units per thread, `bk` K elements per step, `split` K slices.
gemm_config skinny(skinny_side side, int bm, int wm, int wn, int tn = 1, int bk = 8, int vector = 8, int split = 1);

// True for a configuration of the skinny paths (skinny_config: fp32 FMAs; skinny_mma_config: mma.sync).
bool is_skinny(const gemm_config& c);

// The small dimension of a skinny configuration; nothing for the tiled paths.
std::optional<skinny_side> side_of(const gemm_config& c);

// The same skinny configuration on side `side` (a tiled one unchanged).
gemm_config with_side(const gemm_config& c, skinny_side side);

// The configuration's vector width: its field, or its path's constant (wgmma, skinny_mma: 8).
int vector_of(const gemm_config& c);

// The rank request gemm_problem_configs() makes of view `v` at `hints` (it points to them: keep
// them alive): the sizes at the hints (1024 when missing, the batch 1); split-K variants when `split`.
rocmtpl::templates::gemm_rank_request rank_request(const rocmtpl::templates::detail::gemm_view& v,
                                                   const size_hints& hints, bool split = false);

// Every configuration of every path's search space (gemm_path_list order; the skinny ones on side m).
std::vector<gemm_config> every_space_config();

// The parts generate() assembles for configuration `c` of `t` (its source() is their str()): the
// entry `rocm_gemm` with the configuration's runtime arguments, rendered into a kernel of its own.
rocmtpl::rendered_source render_parts(const rocmtpl::rocm_template<gemm_policy>& t, const gemm_config& c);

// ROCMTPL_GEMM_COMPILE_ALL=1: the compile tests build every source of their sweeps (the full spill
// check), not only the few CI builds.
bool compile_all();

// One epilogue problem of the Hopper path on one tiling. GemmGpu.EveryHopperConfigF16AndBf16 runs
// every case with `gpu` on the GPU at `shapes` (the first renders) against cuBLAS;
// GemmCompile.HopperEpiloguesBuildWithoutSpills builds every case for sm_90a and checks that ptxas
// spills nothing (a spill fails the gpu label). One list, so that a case added to the GPU test is
// spill-checked too.
struct hopper_case {
  std::string label;  // "float16 hopper bias[N] relu": the dtype's name first
  std::shared_ptr<rocmtpl::rocm_template<gemm_policy>> tpl;
  gemm_options options;
  wgmma_config config;
  std::vector<size_hints> shapes;
  bool bias_along_m = false;  // Bias is [M] (the GPU check's reference reads it along M)
  bool gpu = true;            // false: built only (HygieneGpu runs the problem on the GPU at its own shapes)
};

// The Hopper cases of dtype `d` (f16 or bf16) on every tiling of wgmma_path::search_space(), with
// stream-K, static and runtime split-K, a batch folded into M, every epilogue feature, Residual
// column-major and misaligned.
std::vector<hopper_case> hopper_cases(dtype d);

bool contains(const std::string& s, const std::string& part);

std::size_t count(const std::string& s, const std::string& part);
}  // namespace gemm_test

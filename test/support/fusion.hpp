// SPDX-License-Identifier: MIT
#pragma once

// Test support for epilogue fusion (issue 12): modules GEMM -> pointwise node(s), fused or not, of one
// dtype and configuration; the chains that cover every epilogue op. Shared by the unit, golden,
// compile and gpu tests and by benchmark/fusion_bench.cpp.

#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace rocmtpl::test::fusion {

/// One GEMM problem: X [M, K] @ W [K, N] in `type`, the configuration and options the node uses.
struct gemm_problem {
  dtype type = dtype::f16;
  sym_expr m = sym_expr::symbol("M");
  sym_expr n{64};
  sym_expr k{64};
  templates::gemm_config config{};
  templates::gemm_options options{};
  size_hints hints{{"M", 256}};
};

/// The graph inputs a chain may read, by broadcast: `bias` [N] (row vector), `rscale` [M] (column
/// vector), `d` [M, N] (full), all f32 except `d` in the GEMM's dtype.
buffer operand(const gemm_problem& p, epilogue_broadcast b);

/// The chain `add(bias [N]) -> gelu -> mul(d [M, N])` (the figure).
epilogue_chain bias_gelu_mul();

/// Chains that together use every op and every broadcast: each activation, add/sub/mul along rows,
/// columns and full, a scale and a cast (named for test output).
std::vector<std::pair<std::string, epilogue_chain>> every_op_chains();

/// The operands a chain reads, in its input order (each op's broadcast picks the graph input).
std::vector<buffer> chain_operands(const gemm_problem& p, const epilogue_chain& c);

/// A module `name`: inputs x, w and the chains' operands; h = x @ w (the GEMM of `p`), then one
/// pointwise node per chain (`e0`, `e1`, ..., the last one is the output `y` of dtype `out`).
module_graph chain_module(const std::string& name, const gemm_problem& p, const std::vector<epilogue_chain>& chains,
                          dtype out);

/// emit_module() of chain_module(), fused or not.
module_source emit_chain_module(const std::string& name, const gemm_problem& p,
                                const std::vector<epilogue_chain>& chains, dtype out, bool fuse, bool runner = false);

/// A matrix-core configuration (mma.sync on NVIDIA, MFMA on AMD).
templates::gemm_config mma_config();

/// A Hopper (wgmma) configuration, 128 x 128 tiles.
templates::gemm_config hopper_config();

/// The SIMT configuration of `split` K slices (runtime split-K when above 1).
std::pair<templates::gemm_config, templates::gemm_options> simt_config(int split = 1);

/// A skinny (FMA, side m) configuration: 4 rows of M per block, 8 threads along K, 32 along N,
/// 16-byte loads of W; `split` static K slices (their partials summed by the shared reduction).
templates::gemm_config skinny_config(int split = 1);

/// A skinny matrix-core configuration (side m, NVIDIA mma.sync): 8 rows of M per block, 2 warps
/// along K, 1 along N (64 columns); `split` static K slices.
templates::gemm_config skinny_mma_config(int split = 1);

/// Every chain of every_op_chains(), as one run of pointwise nodes.
std::vector<epilogue_chain> every_op();

/// One math path of the GPU test: a name, the GEMM problem, whether it needs an sm_90 device.
struct path_case {
  std::string name;
  gemm_problem p;
  bool hopper = false;
};

/// The math paths the GPU test runs: SIMT f32 (with and without split-K), matrix cores f16 and
/// bf16, matrix cores f16 with split-K, skinny_m f16 (with and without K slices; on matrix cores with
/// K slices), Hopper f16 (with and without split-K).
std::vector<path_case> gpu_paths();

}  // namespace rocmtpl::test::fusion

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM's search space: the SIMT and matrix-core configurations (constexpr tile values,
/// filtered by the constraints of templates/gemm/config.hpp), and the configurations of one
/// problem, fitted to its layouts and ordered by the cost model.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>

namespace rocmtpl::templates {

/// @brief The SIMT search space (the product of tile values, filtered by is_valid()), in product order.
[[nodiscard]] std::vector<gemm_config> gemm_simt_configs();

/// @brief The matrix-core search space (block tile, warp tile, K step, stages), filtered by is_valid().
[[nodiscard]] std::vector<gemm_config> gemm_matrix_core_configs();

/// @brief The Hopper (wgmma) search space: the configurations measured in benchmark/hopper/NOTES.md
/// (cooperative, no cluster), each with the most stages its shared memory allows.
[[nodiscard]] std::vector<gemm_config> gemm_wgmma_configs();

/// @brief The skinny (matrix-vector) search space, for the small dimension M (gemm_math::skinny_m;
/// a problem whose N is the small one takes the same tiles as skinny_n): tiles for the streaming
/// kernel (many threads along the large dimension, few along K) and for the dot kernel (8 to 32
/// lanes along K), 16-byte vectors, K not split (the problem's space adds the K slices).
[[nodiscard]] std::vector<gemm_config> gemm_skinny_configs();

/// @brief The skinny matrix-core tiles (is_skinny_mma(): `stages` 2, NVIDIA mma.sync): (block_m,
/// warp_m, warp_n, block_k) with 8 to 64 rows of the small dimension, 2 to 8 warps, K not split
/// (the problem's space adds the K slices); a problem whose large operand is contiguous along its
/// large dimension (row-major W for few rows) and whose X and W are f16 or bf16 ranks them first.
[[nodiscard]] std::vector<gemm_config> gemm_skinny_mma_configs();

namespace detail {

// Widest vector (at most `limit` elements, 16 bytes) an operand's layout and the hints allow;
// operands without a contiguous axis always copy element by element and do not limit the other one.
[[nodiscard]] int widest_vector(int limit, const gemm_copy_facts& f, std::size_t esize, const size_hints& hints);

// The K slices of a skinny configuration: 1 to 32 while each slice keeps at least two block steps.
[[nodiscard]] std::vector<int> skinny_splits(std::int64_t k, std::int64_t block_step);

// A skinny problem's sizes and its large operand (W for few rows, X for few columns), as the
// skinny spaces below read them.
struct skinny_problem {
  std::int64_t m, n, k, b, small;
  bool q_is_m;
  const gemm_operand* large;
  gemm_copy_facts facts;  // the large operand's
  int vec;                // its widest vector (at most 8 elements, 16 bytes)
};

// The matrix-core skinny configurations of one problem (none unless X and W are f16 or bf16 of
// one dtype and the large operand is contiguous along its large dimension with 16-byte vectors):
// the tiles of gemm_skinny_mma_configs() up to the small dimension's next multiple of 8, each with
// the K slices the cost model likes best, the best four tiles (NVIDIA only: AMD refuses them at run
// time, so the fp32 kernels must stay in a tuner's top 16 there).
[[nodiscard]] std::vector<std::pair<double, gemm_config>> skinny_mma_problem_configs(const gemm_view& v,
                                                                                     const skinny_problem& sp);

// The skinny space of one problem (nothing when neither M nor N is at most 64): the tiles of
// gemm_skinny_configs() that suit the large operand's kernel (streaming: at least 32 threads along
// the large dimension; dot: at least 8 lanes along K), the small tiles up to the small
// dimension's next power of two, the vector width the layouts allow, and K slices 1 to 32 while
// each slice keeps at least two block steps, ordered by gemm_estimate_cost(); led by the
// matrix-core ones (skinny_mma_problem_configs()).
[[nodiscard]] std::vector<std::pair<double, gemm_config>> skinny_problem_configs(const gemm_view& v,
                                                                                 const size_hints& hints);

}  // namespace detail

/// @brief The search space for one problem, best first.
///
/// Keeps the path the dtypes call for (matrix cores for f16/bf16 X and W, else SIMT; for f16/bf16
/// also the Hopper configurations when the problem meets their rules, see wgmma_static_reason() and
/// wgmma_fits_hints(): they need an sm_90 device and refuse other targets at run time), sets each
/// configuration's vector width to the widest the layouts (and for symbolic values the hints)
/// allow, adds split-K variants when `runtime_split_k` is on (every tiled path, Hopper included: 2
/// to 16 slices of at least two K steps each), and orders everything by gemm_estimate_cost(). When
/// M or N is at most 64 the skinny configurations (gemm_skinny_configs(), any dtype and layout,
/// K split statically) come first, in their own cost order, led by up to four matrix-core ones
/// (gemm_skinny_mma_configs(): f16/bf16 with the large operand contiguous along its large
/// dimension; NVIDIA sm_80 and later, refused at run time elsewhere): the matrix-vector kernels stream the
/// large operand at close to the memory bandwidth where the tiled paths leave most of each tile
/// empty; the tiled ones (split-K variants included) follow, except that with more than 16 rows
/// (columns) for f16/bf16, or where gemm_skinny_fma_bound() holds for the best skinny one (f32
/// from about 32 rows), the eight best tiled ones come right after the eight best skinny ones
/// (there the skinny kernels' fp32 FMAs, not the memory, set the pace, and tiled kernels may win);
/// for the SIMT path those tiled ones include static split-K variants (2 to 16 K slices reduced
/// through the workspace) even without `runtime_split_k`: N / 64 tiles of 64 rows would leave most
/// SMs idle.
/// @param v the checked problem
/// @param runtime_split_k whether configurations may split K (gemm_options::runtime_split_k)
/// @param hints values of size symbols (missing ones count as 1024)
[[nodiscard]] std::vector<gemm_config> gemm_problem_configs(const detail::gemm_view& v, bool runtime_split_k,
                                                            const size_hints& hints);

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/search_space-inl.hpp>
#endif

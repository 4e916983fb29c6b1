// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM's search space for one problem: every path's candidates (gemm_path_list, each
/// ranked by its own cost model), merged into one order.

#include <cstdint>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/templates/gemm/paths.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>

namespace rocmtpl::templates {

/// @brief The search space for one problem, best first.
///
/// Asks every path of gemm_path_list for its candidates (`problem_configs()`: the paths the dtypes
/// and layouts allow, vector widths fitted to the layouts and the hints, split-K variants when
/// asked for) and merges them: the skinny paths' candidates first (when M or N is at most 64: the
/// matrix-vector kernels stream the large operand at close to the memory bandwidth where the tiled
/// paths leave most of each tile empty), in list order (the matrix-core ones lead: up to four),
/// then the tiled paths' candidates ordered by cost (ties in list order), except that with more
/// than 16 rows (columns) for f16/bf16, or where gemm_skinny_fma_bound() holds for the best skinny
/// one (f32 from about 32 rows), the eight best tiled ones come right after the eight best skinny
/// ones (there the skinny kernels' fp32 FMAs, not the memory, set the pace, and tiled kernels may
/// win); for the SIMT path those tiled ones include static split-K variants (2 to 16 K slices
/// reduced through the workspace) even without `runtime_split_k`: N / 64 tiles of 64 rows would
/// leave most SMs idle. Duplicates keep their first place.
/// @param v the checked problem
/// @param runtime_split_k whether configurations may split K (gemm_options::runtime_split_k)
/// @param hints values of size symbols (missing ones count as 1024)
[[nodiscard]] std::vector<gemm_config> gemm_problem_configs(const detail::gemm_view& v, bool runtime_split_k,
                                                            const size_hints& hints);

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/search_space-inl.hpp>
#endif

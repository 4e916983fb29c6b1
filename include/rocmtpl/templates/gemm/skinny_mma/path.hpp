// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The skinny matrix-core path as a unit (gemm_path): the matrix-vector kernel on mma.sync
/// (NVIDIA sm_80 and later; the AMD build refuses every call) for f16/bf16 X and W of one dtype
/// whose large operand is contiguous along P; K split statically (skinny/render.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/path.hpp>
#include <rocmtpl/templates/gemm/skinny/render.hpp>
#include <rocmtpl/templates/gemm/skinny_mma/config.hpp>

namespace rocmtpl::templates {

/// @brief The skinny matrix-core path.
struct skinny_mma_path {
  using config = skinny_mma_config;                                     ///< its configuration
  static constexpr std::string_view name = "skinny_mma";                ///< its name
  static constexpr gemm_path_family family = gemm_path_family::skinny;  ///< ranked ahead of the tiled paths
  static constexpr bool splits_k_statically = true;                     ///< K slices without runtime split-K

  /// @brief (rows, k_warps, p_warps, k_step) with 8 to 64 rows of Q, 2 to 8 warps, K not split (a
  /// problem's space adds the K slices).
  [[nodiscard]] static std::vector<config> search_space();
  /// @brief The streaming time of the large operand as in skinny_path::estimate_cost() (two K steps
  /// of k_step 16-byte rows in flight per lane: the current one and the prefetched one) against the
  /// MMAs (Q padded to tiles of 8 rows; one m16n8k16 of 2048 multiply-adds costs about 256 units:
  /// mma.sync runs about 8 times the fp32 FMA rate), the K warps' reduction per block and the K
  /// slices' partials.
  [[nodiscard]] static double estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch);
  /// @brief Nothing unless M or N is at most 64, X and W are f16 or bf16 of one dtype and the large
  /// operand is contiguous along P with 16-byte vectors: the tiles up to the small dimension's next
  /// multiple of 8, each with the K slices the cost model likes best, the best four (NVIDIA only:
  /// AMD refuses them at run time, so the FMA kernels must stay in a tuner's top 16 there).
  [[nodiscard]] static std::vector<std::pair<double, config>> problem_configs(const detail::gemm_view& v,
                                                                              const gemm_rank_request& r);
  /// @brief Refuses X and W that are not f16/bf16 of one dtype, or a large operand contiguous along K.
  [[nodiscard]] static std::optional<std::string> unsupported(const config& c, const detail::gemm_view& v,
                                                              const gemm_options& o);
  /// @brief `math=skinny_m block_m=rows block_n=columns block_k=k_step warp_m=k_warps
  /// warp_n=p_warps thread_n=1 group_m=1 stages=2 vector=8 split_k`.
  [[nodiscard]] static gemm_config_fields describe(const config& c);
  /// @brief The configuration of describe()'s fields, or nothing when they are not this path's.
  [[nodiscard]] static std::optional<config> parse(const gemm_config_fields& fields);
  /// @brief What the skinny writers need of the configuration.
  [[nodiscard]] static detail::skinny_shape shape(const config& c);
  /// @brief The skinny launch description.
  [[nodiscard]] static launch_description describe_launch(const rocm_template_kernel& kernel,
                                                          const detail::gemm_plan& plan, const config& c);
  /// @brief The skinny translation unit (the entry refuses every call on AMD).
  static void render(rendered_source& out, rocm_template_kernel& kernel, const detail::gemm_plan& plan, const config& c,
                     const launch_description& d);
};

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/skinny_mma/path-inl.hpp>
#endif

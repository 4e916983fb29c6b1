// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The matrix-core path as a unit (gemm_path): mma.sync on NVIDIA and MFMA on AMD, from one
/// source (the device code has both: templates/gemm/device_code.hpp), for f16 or bf16 X and W of
/// one dtype; K split only at run time (gemm_options::runtime_split_k).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/mma/config.hpp>
#include <rocmtpl/templates/gemm/path.hpp>

namespace rocmtpl::templates {

/// @brief The matrix-core path (mma.sync / MFMA).
struct mma_path {
  using config = mma_config;                                           ///< its configuration
  static constexpr std::string_view name = "mma";                      ///< its name
  static constexpr gemm_path_family family = gemm_path_family::tiled;  ///< ranked among the tiled paths
  static constexpr bool splits_k_statically = false;                   ///< K slices without runtime split-K

  /// @brief The product of block tiles, warp tiles and (block_k, stages), valid ones of at least 4 warps.
  [[nodiscard]] static std::vector<config> search_space();
  /// @brief Block-tiled cost with the matrix-core tile efficiency: measured on an H100 (f16 4096^3,
  /// 8192^3, 1000x3000x700), 128 x 128 blocks of 64 x 64 warp tiles with block_k 64 and 3 stages
  /// won; 128 x 256 came close; block_k 32 trailed.
  [[nodiscard]] static double estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch);
  /// @brief The space with the widest vector the layouts allow (only for f16/bf16 X and W of one
  /// dtype), split-K variants when asked for.
  [[nodiscard]] static std::vector<std::pair<double, config>> problem_configs(const detail::gemm_view& v,
                                                                              const gemm_rank_request& r);
  /// @brief Refuses X and W that are not f16 or bf16 of one dtype.
  [[nodiscard]] static std::optional<std::string> unsupported(const config& c, const detail::gemm_view& v,
                                                              const gemm_options& o);
  /// @brief `math=matrix_core block_m=... warp_m warp_n group_m stages vector split_k`.
  [[nodiscard]] static gemm_config_fields describe(const config& c);
  /// @brief The configuration of describe()'s fields, or nothing when `math` is not "matrix_core".
  [[nodiscard]] static std::optional<config> parse(const gemm_config_fields& fields);
  /// @brief What the block-tiled writers need of the configuration.
  [[nodiscard]] static detail::gemm_block_tile tile(const config& c);
  /// @brief The block-tiled launch description.
  [[nodiscard]] static launch_description describe_launch(const rocm_template_kernel& kernel,
                                                          const detail::gemm_plan& plan, const config& c);
  /// @brief The block-tiled translation unit.
  static void render(rendered_source& out, rocm_template_kernel& kernel, const detail::gemm_plan& plan, const config& c,
                     const launch_description& d);
};

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/mma/path-inl.hpp>
#endif

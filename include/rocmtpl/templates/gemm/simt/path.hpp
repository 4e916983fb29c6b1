// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The SIMT path as a unit (gemm_path): fp32 FMAs on every dtype, block tiles of
/// thread_m x thread_n outputs per thread, K split statically through the workspace.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/path.hpp>
#include <rocmtpl/templates/gemm/simt/config.hpp>

namespace rocmtpl::templates {

/// @brief The SIMT path.
struct simt_path {
  using config = simt_config;                                          ///< its configuration
  static constexpr std::string_view name = "simt";                     ///< its name
  static constexpr gemm_path_family family = gemm_path_family::tiled;  ///< ranked among the tiled paths
  static constexpr bool splits_k_statically = true;                    ///< K slices without runtime split-K

  /// @brief The product of tile values (6 blocks, block_k 8 and 16, 6 thread tiles), valid ones
  /// of 64 to 256 threads, in product order.
  [[nodiscard]] static std::vector<config> search_space();
  /// @brief Block-tiled cost with the SIMT tile efficiency: measured on an H100 (fp32 4096^3 ..
  /// 8192^3), 16 x 8 thread tiles on 256 x 128 blocks beat 8 x 8 on 128 x 128 by 3-6%; longer K
  /// steps save barriers.
  [[nodiscard]] static double estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch);
  /// @brief The space with the widest vector the layouts allow (none for f16/bf16 X and W: matrix
  /// cores serve those), split-K variants when asked for.
  [[nodiscard]] static std::vector<std::pair<double, config>> problem_configs(const detail::gemm_view& v,
                                                                              const gemm_rank_request& r);
  /// @brief Nothing: every problem renders.
  [[nodiscard]] static std::optional<std::string> unsupported(const config& c, const detail::gemm_view& v,
                                                              const gemm_options& o);
  /// @brief `math=simt block_m=... thread_m thread_n group_m stages vector split_k`.
  [[nodiscard]] static gemm_config_fields describe(const config& c);
  /// @brief The configuration of describe()'s fields, or nothing when `math` is not "simt".
  [[nodiscard]] static std::optional<config> parse(const gemm_config_fields& fields);
  /// @brief Blocks per SM the register budget must allow on NVIDIA: 2 when the estimate leaves room
  /// (ptxas then keeps 128x128 8x8 tiles at 128 registers, two blocks per SM), else 1.
  [[nodiscard]] static int min_blocks(const config& c);
  /// @brief Whether the main loop reads step kk + 1's operands while step kk computes (NVIDIA):
  /// with 128 accumulators or more, or when the registers leave room.
  [[nodiscard]] static bool prefetch(const config& c);
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
#include <rocmtpl/templates/gemm/simt/path-inl.hpp>
#endif

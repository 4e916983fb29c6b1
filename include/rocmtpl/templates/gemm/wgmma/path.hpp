// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The Hopper path as a unit (gemm_path): sm_90a only, TMA-fed wgmma warpgroups
/// (wgmma/device_code.hpp), for row-major f16/bf16 problems whose batch is 1 or folds into M; the
/// entry refuses other devices at run time and the AMD build refuses every call.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/path.hpp>
#include <rocmtpl/templates/gemm/wgmma/config.hpp>

namespace rocmtpl::templates {

/// @brief The Hopper (wgmma) path.
struct wgmma_path {
  using config = wgmma_config;                                         ///< its configuration
  static constexpr std::string_view name = "wgmma";                    ///< its name
  static constexpr gemm_path_family family = gemm_path_family::tiled;  ///< ranked among the tiled paths
  static constexpr bool splits_k_statically = true;                    ///< K slices without runtime split-K too

  /// @brief The tilings of detail::wgmma_tilings: the cooperative ones measured in
  /// benchmark/hopper/NOTES.md (no cluster) and 128x192, and the ping-pong 128x128, 64x256 and
  /// 64x64, each with the most stages its shared memory allows up to its cap (8; 16 for 64x64).
  /// Stream-K variants come per problem (problem_configs()).
  [[nodiscard]] static std::vector<config> search_space();
  /// @brief One persistent block per SM, tiles in rounds over the SMs. Measured on an H100
  /// (benchmark/hopper/NOTES.md): wgmma ran 2.0-2.3x the mma.sync path's throughput on large
  /// f16/bf16 problems (760 against 330-360 TFLOP/s at 4096^3); 128x256 and 256x128 tied, 128x128
  /// trailed them by ~12%, 128x64 (twice the X traffic per flop) reached half of them on large
  /// problems but won on small ones (more tiles than SMs). Split-K adds the fp32 partials written
  /// and read back (8 bytes per output element per slice, mostly in L2: ~0.33 units a byte at ~4
  /// TB/s) and the reduction kernel's launch and ramp (~2.5 us). Ping-pong drops the exposed
  /// epilogue. Stream-K: each block's equal share of the (tile, k-block) iterations, a partial tile
  /// written and read back once (fp32, in L2) and the counter-zeroing launch (~2 us).
  [[nodiscard]] static double estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch);
  /// @brief The space when the problem meets the path's rules (wgmma_static_reason(),
  /// wgmma_fits_hints()), split-K variants when asked for or when a configuration has fewer
  /// output tiles than two waves over the GPU's SMs (static K slices: the persistent grid walks (slice, tile)
  /// units, then the split-K reduction applies the epilogue), and there stream-K variants of every
  /// tiling too (without runtime split-K), enough blocks per tile to fill the SMs.
  [[nodiscard]] static std::vector<std::pair<double, config>> problem_configs(const detail::gemm_view& v,
                                                                              const gemm_rank_request& r);
  /// @brief Refuses problems the path cannot run (wgmma_static_reason()), and stream-K with
  /// gemm_options::runtime_split_k (the entry's split_k would have nothing to split).
  [[nodiscard]] static std::optional<std::string> unsupported(const config& c, const detail::gemm_view& v,
                                                              const gemm_options& o);
  /// @brief Refuses a fused epilogue whose output dtype differs from the GEMM's: the path stages the
  /// output in its own dtype first.
  [[nodiscard]] static std::optional<std::string> unsupported_fusion(const config& c, const template_context& ctx,
                                                                     const fused_epilogue& e);
  /// @brief `math=wgmma block_m=... block_k=64 warp_m warp_n group_m stages vector=8 split_k`, then
  /// `pingpong` and `stream_k` where set.
  [[nodiscard]] static gemm_config_fields describe(const config& c);
  /// @brief The configuration of describe()'s fields, or nothing when `math` is not "wgmma".
  [[nodiscard]] static std::optional<config> parse(const gemm_config_fields& fields);
  /// @brief What the path needs of a problem at run time (statically true conditions left out): a
  /// batch of one, or one that folds into M (wgmma_fold_conditions()), sizes that fit int32 (the
  /// folded rows batch * M too), N and the row pitches of X, W and Y multiples of 8 elements (TMA
  /// pitches of 16 bytes, 16-byte stores; a pitch never stepped is free), 16-byte aligned X, W, Y.
  [[nodiscard]] static std::vector<launch_requirement> requirements(const rocm_template_kernel& kernel,
                                                                    const detail::gemm_view& v);
  /// @brief Stream-K's workspace: a counter per tile (rounded up to 256 bytes), then fp32 partial
  /// tiles, one per (tile, block) pair that can share a tile: tiles + blocks <= tiles x (stream_k + 1).
  /// Nothing for other configurations (the split-K slices of gemm_workspace_bytes()).
  [[nodiscard]] static std::optional<sym_expr> workspace_bytes(const config& c, const detail::gemm_view& v);
  /// @brief Tensor maps of X and W, the tensors, (the split-K partials,) the sizes, (split_k); a
  /// persistent grid of at most one block per SM over the (K slice, tile) units. With K split (at
  /// run time, or statically by the configuration) the workspace holds split_k slices of fp32
  /// partials and, above one slice, the split-K reduction follows; stream-K launches a kernel that
  /// zeroes the tile counters first and has no reduction.
  [[nodiscard]] static launch_description describe_launch(const rocm_template_kernel& kernel,
                                                          const detail::gemm_plan& plan, const config& c);
  /// @brief The Hopper translation unit: its constants, device code and kernel; the entry launches
  /// on NVIDIA and refuses every call on AMD.
  static void render(rendered_source& out, rocm_template_kernel& kernel, const detail::gemm_plan& plan, const config& c,
                     const launch_description& d);
};

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/wgmma/path-inl.hpp>
#endif

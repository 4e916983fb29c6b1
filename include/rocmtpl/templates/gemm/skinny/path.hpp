// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The skinny path as a unit (gemm_path): matrix-vector kernels on fp32 FMAs for M or N up
/// to 64, every dtype and layout, K split statically (skinny/render.hpp, skinny/device_code.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/path.hpp>
#include <rocmtpl/templates/gemm/skinny/config.hpp>
#include <rocmtpl/templates/gemm/skinny/render.hpp>

namespace rocmtpl::templates {

/// @brief The skinny (fp32 FMA) path.
struct skinny_path {
  using config = skinny_config;                                         ///< its configuration
  static constexpr std::string_view name = "skinny";                    ///< its name
  static constexpr gemm_path_family family = gemm_path_family::skinny;  ///< ranked ahead of the tiled paths
  static constexpr bool splits_k_statically = true;                     ///< K slices without runtime split-K

  /// @brief Tiles for side m (a problem whose N is the small one takes them as side n): for the
  /// streaming kernel (many threads along P, few along K) and for the dot kernel (8 to 32 lanes
  /// along K), 16-byte vectors (narrower where the rules ask), K not split (a problem's space adds
  /// the K slices).
  [[nodiscard]] static std::vector<config> search_space();
  /// @brief The memory-bound matrix-vector kernels, in the units of the other paths (one FMA per
  /// SM; one byte of DRAM traffic costs about 10 FMAs: an H100 does ~30 T fp32 FMA/s against ~3
  /// TB/s): the larger of the streaming time of the large operand and the FMA time, where the
  /// streaming rate falls with idle SMs and with too few bytes in flight per SM (~32 KiB hide the
  /// DRAM latency: 3 TB/s x ~1.5 us over 132 SMs); the Q tiles re-read the large operand from L2
  /// (about three times DRAM's bandwidth: up to three tiles come free, more cost a third of a DRAM
  /// read each); K slices add the fp32 partials and a second kernel. `vector` is the fitted width
  /// of 16-byte loads (its element size is 16 / vector; narrower loads count as wider elements).
  [[nodiscard]] static double estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch);
  /// @brief Whether the configuration's fp32 FMAs, at the rate the kernels reach, take longer than
  /// streaming the large operand (same terms as estimate_cost()). The kernels issue an FMA in about
  /// one slot of four (the small operand's loads and conversions, addressing): on the H100 the f32
  /// streaming kernel ran 7.5-7.9 T FMA/s at M = 32 and 64 (N = K = 8192), a quarter of the fp32
  /// peak, at 31% and 17% of the copy bandwidth.
  [[nodiscard]] static bool fma_bound(const config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                      std::int64_t batch);
  /// @brief Nothing unless M or N is at most 64: the tiles that suit the large operand's kernel
  /// (streaming: at least 32 threads along P; dot: at least 8 lanes along K), the small tiles up to
  /// the small dimension's next power of two, the vector width the layouts allow, and K slices 1
  /// to 32 while each slice keeps at least two block steps, ordered by cost.
  [[nodiscard]] static std::vector<std::pair<double, config>> problem_configs(const detail::gemm_view& v,
                                                                              const gemm_rank_request& r);
  /// @brief Nothing: every problem renders.
  [[nodiscard]] static std::optional<std::string> unsupported(const config& c, const detail::gemm_view& v,
                                                              const gemm_options& o);
  /// @brief `math=skinny_m block_m=rows block_n=units block_k=k_step warp_m=k_threads
  /// warp_n=p_threads thread_n=p_units group_m=1 stages=1 vector split_k`.
  [[nodiscard]] static gemm_config_fields describe(const config& c);
  /// @brief The configuration of describe()'s fields, or nothing when they are not this path's.
  [[nodiscard]] static std::optional<config> parse(const gemm_config_fields& fields);
  /// @brief What the skinny writers need of the configuration.
  [[nodiscard]] static detail::skinny_shape shape(const config& c);
  /// @brief The skinny launch description.
  [[nodiscard]] static launch_description describe_launch(const rocm_template_kernel& kernel,
                                                          const detail::gemm_plan& plan, const config& c);
  /// @brief The skinny translation unit.
  static void render(rendered_source& out, rocm_template_kernel& kernel, const detail::gemm_plan& plan, const config& c,
                     const launch_description& d);
};

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/skinny/path-inl.hpp>
#endif

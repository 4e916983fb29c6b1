// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief What the GEMM paths' cost models share: the analytic estimate of a configuration's time
/// for a problem size (arbitrary units; only the order matters), on an H100-sized GPU (132 SMs).
/// Each path's own terms are in its folder (each unit's `estimate_cost()`); gemm_estimate_cost()
/// dispatches to them.

#include <cstdint>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

/// SMs of the GPU the cost model describes (an H100 SXM).
inline constexpr double gemm_cost_sms = 132;

// A problem's block tiles: M x N tiles (times the batch), times the K slices, and the K steps of one slice.
struct gemm_tile_counts {
  double tiles_mn = 0;
  double tiles = 0;
  double k_steps = 0;
};
[[nodiscard]] gemm_tile_counts gemm_tiles(int block_m, int block_n, int block_k, int split_k, std::int64_t m,
                                          std::int64_t n, std::int64_t k, std::int64_t batch);

// The resources and steady-state efficiency of a block tile of the SIMT and matrix-core paths.
struct gemm_block_shape {
  int block_m = 0;
  int block_n = 0;
  int block_k = 0;
  int stages = 0;
  int split_k = 1;
  int threads = 0;
  int shared_bytes = 0;
  int registers = 0;
  double efficiency = 1.0;  // the path's measured efficiency of this tile shape
};

// The block shape of a SIMT or matrix-core configuration `c` with the path's `efficiency`.
template <class Config>
[[nodiscard]] gemm_block_shape block_shape(const Config& c, double efficiency) {
  return {.block_m = c.block_m,
          .block_n = c.block_n,
          .block_k = c.block_k,
          .stages = c.stages,
          .split_k = c.split_k,
          .threads = c.threads(),
          .shared_bytes = c.shared_bytes(),
          .registers = c.register_estimate(),
          .efficiency = efficiency};
}

// The time of the block-tiled SIMT and matrix-core kernels: residency per SM (228 KiB of shared
// memory, 2048 threads, 64 Ki registers, 32 blocks), rounds of resident blocks, latency hiding by
// the warps resident per SM (one resident block of 8 warps stalls at its barriers: f32
// 1000x3000x700 ran 1.23x faster on three 4-warp blocks per SM than on one 8-warp block), and for
// split-K the fp32 partials written and read back.
[[nodiscard]] double gemm_block_tiled_cost(const gemm_block_shape& s, std::int64_t m, std::int64_t n, std::int64_t k,
                                           std::int64_t batch);

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/cost_model-inl.hpp>
#endif

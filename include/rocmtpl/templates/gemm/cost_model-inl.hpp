// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/cost_model.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE gemm_tile_counts gemm_tiles(int block_m, int block_n, int block_k, int split_k, std::int64_t m,
                                           std::int64_t n, std::int64_t k, std::int64_t batch) {
  const auto cdiv = [](double a, double b) { return std::ceil(a / b); };
  gemm_tile_counts t;
  t.tiles_mn = cdiv(static_cast<double>(std::max<std::int64_t>(m, 1)), block_m) *
               cdiv(static_cast<double>(std::max<std::int64_t>(n, 1)), block_n) *
               static_cast<double>(std::max<std::int64_t>(batch, 1));
  t.tiles = t.tiles_mn * split_k;
  t.k_steps = cdiv(cdiv(static_cast<double>(std::max<std::int64_t>(k, 1)), block_k), split_k);
  return t;
}

ROCMTPL_INLINE double gemm_block_tiled_cost(const gemm_block_shape& s, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch) {
  constexpr double sms = gemm_cost_sms;
  const auto cdiv = [](double a, double b) { return std::ceil(a / b); };
  const auto t = gemm_tiles(s.block_m, s.block_n, s.block_k, s.split_k, m, n, k, batch);
  const int threads = std::max(s.threads, 32);
  const int occ = std::max(1, std::min({228 * 1024 / std::max(s.shared_bytes, 1), 2048 / threads,
                                        65536 / (threads * std::max(s.registers, 32)), 32}));
  const double per_sm = cdiv(t.tiles, sms);
  const double resident = std::min<double>(occ, per_sm);
  const double rounds = cdiv(per_sm, resident);
  const double warps = resident * std::max(1, threads / 32);
  const double fill = std::min(1.0, 0.25 + warps / 16.0);
  const double tile_work = static_cast<double>(s.block_m) * s.block_n * (t.k_steps * s.block_k + 48.0 + 8.0 * s.stages);
  double time = rounds * resident * tile_work / (s.efficiency * fill);
  if (s.split_k > 1) {
    // The fp32 partials are written and read back: bytes over bandwidth, in FMA-equivalents per SM.
    time += static_cast<double>(s.split_k) * static_cast<double>(m) * static_cast<double>(n) *
            static_cast<double>(batch) * 8.0 * 90.0 / sms;
  }
  return time;
}

}  // namespace rocmtpl::templates::detail

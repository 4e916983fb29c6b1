// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/cost_model.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE double wgmma_cost(const gemm_config& c, double tiles, double k_steps, double sms) {
  const double rounds = std::ceil(tiles / sms);
  const double intensity = static_cast<double>(c.block_m) * c.block_n / (c.block_m + c.block_n);
  const double eff = 2.2 * std::pow(std::min(1.0, intensity / 85.0), 0.8);
  // Pipeline fill and the epilogue of each tile, in K steps of 64.
  const double tile_work = static_cast<double>(c.block_m) * c.block_n * (k_steps * c.block_k + 64.0 * 3);
  return rounds * tile_work / eff;
}

ROCMTPL_INLINE double skinny_cost(const gemm_config& c, double q, double p, double k, double batch, double sms) {
  const double tiles_q = std::ceil(q / c.block_m);
  const double units = c.vector > 1 ? std::ceil(p / c.vector) : p;
  const double blocks = tiles_q * std::ceil(units / c.block_n) * c.split_k * batch;
  const double esize = 16.0 / c.vector;
  const int threads = std::max(c.threads(), 32);
  const double occ = std::max(1, std::min({2048 / threads, 65536 / (threads * std::max(c.register_estimate(), 32)),
                                           228 * 1024 / std::max(c.shared_bytes(), 1), 32}));
  const double resident = std::min(occ, blocks / sms);
  const double in_flight = resident * threads * c.block_k * c.thread_n * 16.0;
  const double busy = std::min(1.0, blocks / sms);
  const double rounds = std::ceil(blocks / (sms * occ));
  const double wave = blocks / (rounds * sms * occ);
  const double bw = busy * std::min(1.0, in_flight / (32.0 * 1024)) * std::max(0.5, std::min(1.0, wave + 0.3));
  const double bytes = p * k * batch * esize * std::max(1.0, tiles_q / 3.0) + q * p * batch * 4.0;
  const double memory = bytes * 10.0 / (sms * std::max(bw, 1e-3));
  const double fma = tiles_q * c.block_m * p * k * batch / (sms * std::max(busy, 1e-3));
  double time = std::max(memory, fma);
  // Per-block tail: the K threads' reduction and the epilogue of block_m x thread_n results.
  time += rounds * occ * c.block_m * c.thread_n * (c.warp_m > 1 ? 400.0 : 40.0);
  if (c.split_k > 1) time += c.split_k * q * p * batch * 8.0 * 10.0 / sms + 6.0e5;
  return time;
}

ROCMTPL_INLINE double skinny_mma_cost(const gemm_config& c, double q, double p, double k, double batch, double sms) {
  const double tiles_q = std::ceil(q / c.block_m);
  const double blocks = tiles_q * std::ceil(p / c.block_n) * c.split_k * batch;
  const int threads = c.threads();
  const double occ = std::max(1, std::min({2048 / threads, 65536 / (threads * std::max(c.register_estimate(), 32)),
                                           228 * 1024 / std::max(c.shared_bytes(), 1), 32}));
  const double resident = std::min(occ, blocks / sms);
  const double in_flight = resident * threads * c.block_k * 16.0 * 2.0;
  const double busy = std::min(1.0, blocks / sms);
  const double rounds = std::ceil(blocks / (sms * occ));
  const double wave = blocks / (rounds * sms * occ);
  const double bw = busy * std::min(1.0, in_flight / (32.0 * 1024)) * std::max(0.5, std::min(1.0, wave + 0.3));
  const double bytes = p * k * batch * 2.0 * std::max(1.0, tiles_q / 3.0) + q * p * batch * 4.0;
  const double memory = bytes * 10.0 / (sms * std::max(bw, 1e-3));
  const double mmas = tiles_q * (c.block_m / 8.0) * std::ceil(p / 16.0) * std::ceil(k / 16.0) * batch;
  double time = std::max(memory, mmas * 256.0 / (sms * std::max(busy, 1e-3)));
  time += rounds * occ * (c.block_m / 8.0) * (c.warp_m > 1 ? 400.0 : 40.0);
  if (c.split_k > 1) time += c.split_k * q * p * batch * 8.0 * 10.0 / sms + 6.0e5;
  return time;
}

ROCMTPL_INLINE bool skinny_fma_bound(const gemm_config& c, double q, double p, double k, double batch, double sms) {
  const double tiles_q = std::ceil(q / c.block_m);
  const double esize = 16.0 / c.vector;
  const double bytes = p * k * batch * esize * std::max(1.0, tiles_q / 3.0) + q * p * batch * 4.0;
  const double memory = bytes * 10.0 / sms;
  const double fma = 4.0 * tiles_q * c.block_m * p * k * batch / sms;
  return fma > memory;
}

ROCMTPL_INLINE double wgmma_split_cost(const gemm_config& c, double outputs) {
  if (c.split_k <= 1) return 0.0;
  return static_cast<double>(c.split_k) * outputs * 8.0 * 0.33 + 3.3e6;
}

}  // namespace rocmtpl::templates::detail

namespace rocmtpl::templates {

ROCMTPL_INLINE bool gemm_skinny_fma_bound(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                          std::int64_t batch) {
  if (!is_skinny(c.math) || is_skinny_mma(c)) return false;
  const bool q_is_m = c.math == gemm_math::skinny_m;
  const auto pos = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 1)); };
  return detail::skinny_fma_bound(c, pos(q_is_m ? m : n), pos(q_is_m ? n : m), pos(k), pos(batch), 132);
}

ROCMTPL_INLINE double gemm_estimate_cost(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                         std::int64_t batch) {
  constexpr double sms = 132;
  const auto cdiv = [](double a, double b) { return std::ceil(a / b); };
  const double tiles_mn = cdiv(static_cast<double>(std::max<std::int64_t>(m, 1)), c.block_m) *
                          cdiv(static_cast<double>(std::max<std::int64_t>(n, 1)), c.block_n) *
                          static_cast<double>(std::max<std::int64_t>(batch, 1));
  const double tiles = tiles_mn * c.split_k;
  const double k_steps = cdiv(cdiv(static_cast<double>(std::max<std::int64_t>(k, 1)), c.block_k), c.split_k);
  if (c.math == gemm_math::wgmma) {
    const double outputs = static_cast<double>(std::max<std::int64_t>(m, 1)) *
                           static_cast<double>(std::max<std::int64_t>(n, 1)) *
                           static_cast<double>(std::max<std::int64_t>(batch, 1));
    return detail::wgmma_cost(c, tiles, k_steps, sms) + detail::wgmma_split_cost(c, outputs);
  }
  if (is_skinny(c.math)) {
    const bool q_is_m = c.math == gemm_math::skinny_m;
    const auto pos = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 1)); };
    if (is_skinny_mma(c))
      return detail::skinny_mma_cost(c, pos(q_is_m ? m : n), pos(q_is_m ? n : m), pos(k), pos(batch), sms);
    return detail::skinny_cost(c, pos(q_is_m ? m : n), pos(q_is_m ? n : m), pos(k), pos(batch), sms);
  }
  // Residency per SM: shared memory (228 KiB), threads (2048), registers (64 Ki), 32 blocks.
  const int threads = std::max(c.threads(), 32);
  const int occ = std::max(1, std::min({228 * 1024 / std::max(c.shared_bytes(), 1), 2048 / threads,
                                        65536 / (threads * std::max(c.register_estimate(), 32)), 32}));
  const double per_sm = cdiv(tiles, sms);
  const double resident = std::min<double>(occ, per_sm);
  const double rounds = cdiv(per_sm, resident);
  // Steady-state efficiency of one tile shape.
  double eff = 1.0;
  const auto intensity = [](double a, double b) { return a * b / (a + b); };
  if (c.math == gemm_math::matrix_core) {
    // Measured on an H100 (f16 4096^3, 8192^3, 1000x3000x700): 128 x 128 blocks of 64 x 64 warp
    // tiles with block_k 64 and 3 stages won; 128 x 256 came close; block_k 32 trailed.
    eff *= std::pow(std::min(1.0, intensity(c.block_m, c.block_n) / 64.0), 0.6);
    eff *= std::pow(std::min(1.0, intensity(c.warp_m, c.warp_n) / 32.0), 0.5);
    eff *= c.stages >= 3 ? 1.0 : 0.85;
    eff *= c.block_k >= 64 ? 1.0 : 0.94;
  } else {
    // Measured on an H100 (fp32 4096^3 .. 8192^3): 16 x 8 thread tiles on 256 x 128 blocks
    // beat 8 x 8 on 128 x 128 by 3-6%; longer K steps save barriers.
    eff *= std::pow(std::min(1.4, intensity(c.thread_m, c.thread_n) / 4.0), 0.8);
    eff *= std::pow(std::min(1.4, intensity(c.block_m, c.block_n) / 64.0), 0.3);
    eff *= c.block_k >= 16 ? 1.0 : 0.98;
  }
  // Latency hiding: warps resident per SM (one resident block of 8 warps stalls at its barriers:
  // f32 1000x3000x700 ran 1.23x faster on three 4-warp blocks per SM than on one 8-warp block).
  const double warps = resident * std::max(1, threads / 32);
  const double fill = std::min(1.0, 0.25 + warps / 16.0);
  const double tile_work = static_cast<double>(c.block_m) * c.block_n * (k_steps * c.block_k + 48.0 + 8.0 * c.stages);
  double time = rounds * resident * tile_work / (eff * fill);
  if (c.split_k > 1) {
    // The fp32 partials are written and read back: bytes over bandwidth, in FMA-equivalents per SM.
    time += static_cast<double>(c.split_k) * static_cast<double>(m) * static_cast<double>(n) *
            static_cast<double>(batch) * 8.0 * 90.0 / sms;
  }
  return time;
}

}  // namespace rocmtpl::templates

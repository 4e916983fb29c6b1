// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM's analytic cost model: the estimated time of a configuration for a problem
/// size, which orders a problem's search space (templates/gemm/search_space.hpp).

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <rocmtpl/templates/gemm/config.hpp>

namespace rocmtpl::templates {

namespace detail {
// The Hopper path (one persistent block per SM, tiles in rounds over the SMs), in the units of
// gemm_estimate_cost(). Measured on an H100 (benchmark/hopper/NOTES.md): wgmma ran 2.0-2.3x the
// mma.sync path's throughput on large f16/bf16 problems (760 against 330-360 TFLOP/s at 4096^3);
// 128x256 and 256x128 tied, 128x128 trailed them by ~12%, 128x64 (twice the X traffic per
// flop) reached half of them on large problems but won on small ones (more tiles than SMs).
[[nodiscard]] inline double wgmma_cost(const gemm_config& c, double tiles, double k_steps, double sms) {
  const double rounds = std::ceil(tiles / sms);
  const double intensity = static_cast<double>(c.block_m) * c.block_n / (c.block_m + c.block_n);
  const double eff = 2.2 * std::pow(std::min(1.0, intensity / 85.0), 0.8);
  // Pipeline fill and the epilogue of each tile, in K steps of 64.
  const double tile_work = static_cast<double>(c.block_m) * c.block_n * (k_steps * c.block_k + 64.0 * 3);
  return rounds * tile_work / eff;
}

// The skinny paths (memory-bound matrix-vector kernels), in the same units (one FMA per SM; one
// byte of DRAM traffic costs about 10 FMAs: an H100 does ~30 T fp32 FMA/s against ~3 TB/s): the
// larger of the streaming time of the large operand and the FMA time, where the streaming rate
// falls with idle SMs and with too few bytes in flight per SM (~32 KiB hide the DRAM latency:
// 3 TB/s x ~1.5 us over 132 SMs); the Q tiles re-read the large operand from L2 (about three
// times DRAM's bandwidth: up to three tiles come free, more cost a third of a DRAM read each); K slices
// add the fp32 partials and a second kernel. `vector` is the fitted width of 16-byte loads (its
// element size is 16 / vector; narrower loads count as wider elements).
[[nodiscard]] inline double skinny_cost(const gemm_config& c, double q, double p, double k, double batch, double sms) {
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

// The skinny matrix-core kernel (is_skinny_mma()), in the same units: the streaming time of the
// large operand as in skinny_cost() (two K steps of block_k 16-byte rows in flight per lane: the
// current one and the prefetched one) against the MMAs (Q padded to tiles of 8 rows; one m16n8k16
// of 2048 multiply-adds costs about 256 units: mma.sync runs about 8 times the fp32 FMA rate), the
// K warps' reduction per block and the K slices' partials.
[[nodiscard]] inline double skinny_mma_cost(const gemm_config& c, double q, double p, double k, double batch,
                                            double sms) {
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

// Whether a skinny configuration's fp32 FMAs, at the rate the kernels reach, take longer than
// streaming the large operand (same terms as skinny_cost()). The kernels issue an FMA in about
// one slot of four (the small operand's loads and conversions, addressing): on the H100 the f32
// streaming kernel ran 7.5-7.9 T FMA/s at M = 32 and 64 (N = K = 8192), a quarter of the fp32
// peak, at 31% and 17% of the copy bandwidth.
[[nodiscard]] inline bool skinny_fma_bound(const gemm_config& c, double q, double p, double k, double batch,
                                           double sms) {
  const double tiles_q = std::ceil(q / c.block_m);
  const double esize = 16.0 / c.vector;
  const double bytes = p * k * batch * esize * std::max(1.0, tiles_q / 3.0) + q * p * batch * 4.0;
  const double memory = bytes * 10.0 / sms;
  const double fma = 4.0 * tiles_q * c.block_m * p * k * batch / sms;
  return fma > memory;
}

// What split-K adds on the Hopper path, in the same units (one unit ~ 0.76 ps of wall time: a
// multiply-add per SM at 2.2 / 2.88e12 s): the fp32 partials written and read back (8 bytes per
// output element per slice, mostly in L2: ~0.33 units a byte at ~4 TB/s) and the reduction
// kernel's launch and ramp (~2.5 us). An estimate until the ranking report
// (benchmark/gemm_runtime_bench.cpp) measures it on the H100.
[[nodiscard]] inline double wgmma_split_cost(const gemm_config& c, double outputs) {
  if (c.split_k <= 1) return 0.0;
  return static_cast<double>(c.split_k) * outputs * 8.0 * 0.33 + 3.3e6;
}
}  // namespace detail

/// @brief Whether a skinny configuration (gemm_math::skinny_m / skinny_n) is bound by its fp32
/// FMAs rather than by streaming the large operand, for an M x N x K problem (batch `batch`), at
/// the FMA rate the skinny kernels reach (about a quarter of the fp32 peak); false for other paths
/// and for the skinny matrix-core kernel.
[[nodiscard]] inline bool gemm_skinny_fma_bound(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                                std::int64_t batch) {
  if (!is_skinny(c.math) || is_skinny_mma(c)) return false;
  const bool q_is_m = c.math == gemm_math::skinny_m;
  const auto pos = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 1)); };
  return detail::skinny_fma_bound(c, pos(q_is_m ? m : n), pos(q_is_m ? n : m), pos(k), pos(batch), 132);
}

/// @brief Estimated time of a configuration for an M x N x K problem (batch `batch`), in
/// arbitrary units; only the order matters.
///
/// Wave quantization and tile padding on an H100-sized GPU (132 SMs), residency from the
/// shared-memory, thread and register estimates, tile efficiency, and for split-K the traffic of
/// the fp32 partials.
[[nodiscard]] inline double gemm_estimate_cost(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
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

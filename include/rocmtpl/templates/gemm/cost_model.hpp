// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM's analytic cost model: the estimated time of a configuration for a problem
/// size, which orders a problem's search space (templates/gemm/search_space.hpp).

#include <cstdint>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/config.hpp>

namespace rocmtpl::templates {

namespace detail {
// The Hopper path (one persistent block per SM, tiles in rounds over the SMs), in the units of
// gemm_estimate_cost(). Measured on an H100 (benchmark/hopper/NOTES.md): wgmma ran 2.0-2.3x the
// mma.sync path's throughput on large f16/bf16 problems (760 against 330-360 TFLOP/s at 4096^3);
// 128x256 and 256x128 tied, 128x128 trailed them by ~12%, 128x64 (twice the X traffic per
// flop) reached half of them on large problems but won on small ones (more tiles than SMs).
[[nodiscard]] double wgmma_cost(const gemm_config& c, double tiles, double k_steps, double sms);

// The skinny paths (memory-bound matrix-vector kernels), in the same units (one FMA per SM; one
// byte of DRAM traffic costs about 10 FMAs: an H100 does ~30 T fp32 FMA/s against ~3 TB/s): the
// larger of the streaming time of the large operand and the FMA time, where the streaming rate
// falls with idle SMs and with too few bytes in flight per SM (~32 KiB hide the DRAM latency:
// 3 TB/s x ~1.5 us over 132 SMs); the Q tiles re-read the large operand from L2 (about three
// times DRAM's bandwidth: up to three tiles come free, more cost a third of a DRAM read each); K slices
// add the fp32 partials and a second kernel. `vector` is the fitted width of 16-byte loads (its
// element size is 16 / vector; narrower loads count as wider elements).
[[nodiscard]] double skinny_cost(const gemm_config& c, double q, double p, double k, double batch, double sms);

// The skinny matrix-core kernel (is_skinny_mma()), in the same units: the streaming time of the
// large operand as in skinny_cost() (two K steps of block_k 16-byte rows in flight per lane: the
// current one and the prefetched one) against the MMAs (Q padded to tiles of 8 rows; one m16n8k16
// of 2048 multiply-adds costs about 256 units: mma.sync runs about 8 times the fp32 FMA rate), the
// K warps' reduction per block and the K slices' partials.
[[nodiscard]] double skinny_mma_cost(const gemm_config& c, double q, double p, double k, double batch, double sms);

// Whether a skinny configuration's fp32 FMAs, at the rate the kernels reach, take longer than
// streaming the large operand (same terms as skinny_cost()). The kernels issue an FMA in about
// one slot of four (the small operand's loads and conversions, addressing): on the H100 the f32
// streaming kernel ran 7.5-7.9 T FMA/s at M = 32 and 64 (N = K = 8192), a quarter of the fp32
// peak, at 31% and 17% of the copy bandwidth.
[[nodiscard]] bool skinny_fma_bound(const gemm_config& c, double q, double p, double k, double batch, double sms);

// What split-K adds on the Hopper path, in the same units (one unit ~ 0.76 ps of wall time: a
// multiply-add per SM at 2.2 / 2.88e12 s): the fp32 partials written and read back (8 bytes per
// output element per slice, mostly in L2: ~0.33 units a byte at ~4 TB/s) and the reduction
// kernel's launch and ramp (~2.5 us). An estimate until the ranking report
// (benchmark/gemm_runtime_bench.cpp) measures it on the H100.
[[nodiscard]] double wgmma_split_cost(const gemm_config& c, double outputs);
}  // namespace detail

/// @brief Whether a skinny configuration (gemm_math::skinny_m / skinny_n) is bound by its fp32
/// FMAs rather than by streaming the large operand, for an M x N x K problem (batch `batch`), at
/// the FMA rate the skinny kernels reach (about a quarter of the fp32 peak); false for other paths
/// and for the skinny matrix-core kernel.
[[nodiscard]] bool gemm_skinny_fma_bound(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                         std::int64_t batch);

/// @brief Estimated time of a configuration for an M x N x K problem (batch `batch`), in
/// arbitrary units; only the order matters.
///
/// Wave quantization and tile padding on an H100-sized GPU (132 SMs), residency from the
/// shared-memory, thread and register estimates, tile efficiency, and for split-K the traffic of
/// the fp32 partials.
[[nodiscard]] double gemm_estimate_cost(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                        std::int64_t batch);

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/cost_model-inl.hpp>
#endif

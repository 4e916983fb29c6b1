// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The Hopper path's configuration (sm_90a): TMA-fed wgmma warpgroups, f16 or bf16 X and W
/// with fp32 accumulation; one producer warpgroup and two consumer warpgroups per block.

#include <optional>
#include <string_view>

#include <rocmtpl/core/static_string.hpp>

namespace rocmtpl::templates {

/// @brief Fixed facts of the Hopper (wgmma) path: one producer warpgroup and two consumer
/// warpgroups per block, a 64-element (128-byte) K step, and the shared-memory layout of the
/// measured kernel (benchmark/hopper/NOTES.md).
struct gemm_wgmma_facts {
  static constexpr int consumers = 2;                    ///< consumer warpgroups (cooperative: block_m / 2 rows each)
  static constexpr int threads = 128 * (consumers + 1);  ///< producer + consumers
  static constexpr int block_k = 64;                     ///< one 128-byte swizzle row of 16-bit values
  static constexpr int epilogue_bytes = consumers * 4 * 16 * 72 * 2;  ///< per-warp 16 x 64 staging tiles (padded rows)
  static constexpr int max_shared = 232448;                           ///< 227 KiB: the most one NVIDIA block may use
  static constexpr int consumer_registers = 232;                      ///< setmaxnreg of the consumer warpgroups
};

/// @brief One Hopper tiling: a structural aggregate (usable as an NTTP).
///
/// Cooperative (pingpong = 0): the two consumer warpgroups share each output tile, block_m / 2
/// rows each. Ping-pong (pingpong = 1): each consumer warpgroup owns whole tiles, the block's
/// tiles dealt to them in turn, so that one's epilogue runs while the other's wgmma keep the
/// tensor cores busy (the producer fills the ring in tile order, which makes them take turns).
struct wgmma_config {
  int block_m =
      128;  ///< rows of Y per tile (cooperative: 2 x a multiple of 64; ping-pong: a multiple of 64; at most 256)
  int block_n = 256;  ///< columns of Y per tile: the wgmma N (64, 128, 160, 192 or 256)
  int group_m = 8;    ///< tiles grouped along M for L2 reuse
  int stages = 4;     ///< shared-memory buffers of the TMA pipeline (2 to 16)
  int split_k = 1;    ///< K slices (statically, or the entry's split_k with gemm_options::runtime_split_k)
  int pingpong = 0;   ///< 1: each consumer warpgroup owns whole tiles (ping-pong); 0: they share one (cooperative)
  /// Stream-K (0: off): the grid, min(SMs, tiles x stream_k) blocks, takes equal shares of the
  /// (tile, k-block) iterations; a tile split between blocks is finished by the block holding its
  /// first k-block, which adds the others' fp32 partial tiles (workspace) and runs the epilogue.
  /// Either schedule: cooperative (both warpgroups on each segment) or ping-pong (segments dealt
  /// to the warpgroups in turn).
  int stream_k = 0;

  /// @brief The path's name in the serialised form ("math" of describe()).
  static constexpr std::string_view math = "wgmma";
  /// @brief The K step: one 128-byte swizzle row of 16-bit values.
  static constexpr int block_k = gemm_wgmma_facts::block_k;
  /// @brief Elements per global access: 16-byte TMA rows and stores.
  static constexpr int vector = 8;

  /// @brief Consumer warpgroups computing one tile: 2 cooperative, 1 ping-pong.
  [[nodiscard]] constexpr int tile_consumers() const noexcept {
    return pingpong != 0 ? 1 : gemm_wgmma_facts::consumers;
  }
  /// @brief Rows of one consumer warpgroup (block_m / 2 cooperative, block_m ping-pong).
  [[nodiscard]] constexpr int warp_m() const noexcept { return block_m / tile_consumers(); }
  /// @brief Columns of one consumer warpgroup (block_n: one wgmma N).
  [[nodiscard]] constexpr int warp_n() const noexcept { return block_n; }
  /// @brief Columns of W a stage holds: whole 64-column (128-byte swizzle) slabs, so 192 for a
  /// 160-column tile (its wgmma reads two and a half slabs).
  [[nodiscard]] constexpr int loaded_n() const noexcept { return (block_n + 63) / 64 * 64; }
  /// @brief Threads per block: the producer and the consumer warpgroups.
  [[nodiscard]] constexpr int threads() const noexcept { return gemm_wgmma_facts::threads; }
  /// @brief Warps per block.
  [[nodiscard]] constexpr int warps() const noexcept { return threads() / 32; }
  /// @brief Shared memory per block in bytes: 1024 bytes of alignment slack, `stages` swizzled X
  /// and W tiles (W in whole slabs: loaded_n()), the epilogue staging tiles and two mbarriers per
  /// stage plus two.
  [[nodiscard]] constexpr int shared_bytes() const noexcept {
    return 1024 + stages * (block_m + loaded_n()) * block_k * 2 + gemm_wgmma_facts::epilogue_bytes + 16 * stages + 16;
  }
  /// @brief Registers per consumer thread, estimated: the accumulators of their m64 blocks, the
  /// prefetched bias pairs, addressing (128x256: 168 registers at entry, 232 after setmaxnreg; CUDA
  /// 13.0, sm_90a).
  [[nodiscard]] constexpr int register_estimate() const noexcept {
    const int acc = warp_m() / 64 * warp_n() / 2;
    return acc + warp_n() / 8 + 48;
  }

  /// @brief Why the tiling is invalid, or nothing: two consumer warpgroups of m64 blocks, TMA boxes
  /// of at most 256 rows, one wgmma N, the register and shared-memory budgets.
  [[nodiscard]] constexpr std::optional<std::string_view> invalid_reason() const noexcept {
    if (block_m <= 0 || block_n <= 0 || group_m <= 0 || stages <= 0 || split_k <= 0) {
      return "every field must be positive";
    }
    if (pingpong != 0 && pingpong != 1) return "wgmma pingpong must be 0 (cooperative) or 1 (ping-pong)";
    if (pingpong == 0 && block_m % (gemm_wgmma_facts::consumers * 64) != 0) {
      return "wgmma block_m must be 2 x a multiple of 64 (two consumer warpgroups of m64 blocks)";
    }
    if (pingpong == 1 && block_m % 64 != 0) return "wgmma ping-pong block_m must be a multiple of 64 (m64 blocks)";
    if (stream_k < 0 || stream_k == 1 || stream_k > 64) return "wgmma stream_k must be 0 (off) or 2 to 64";
    if (stream_k != 0 && split_k != 1) return "wgmma stream_k needs split_k 1 (it splits K itself)";
    if (block_m > 256) return "wgmma block_m above 256 (one TMA box holds at most 256 rows)";
    if (block_n != 64 && block_n != 128 && block_n != 160 && block_n != 192 && block_n != 256) {
      return "wgmma block_n must be 64, 128, 160, 192 or 256";
    }
    if (warp_m() / 64 * warp_n() / 2 + warp_n() / 8 > 176) {
      return "wgmma accumulators and bias pairs above the consumer register budget";
    }
    if (stages < 2 || stages > 16) return "wgmma stages must be 2 to 16";
    if (shared_bytes() > gemm_wgmma_facts::max_shared) return "shared memory above the 227 KiB an NVIDIA block may use";
    if (register_estimate() > 255) return "more than 255 registers per thread (estimate)";
    return std::nullopt;
  }

  /// @brief `wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8` (then `_pp` when ping-pong, `_stk<n>` for stream-K, `_sk<n>`
  /// when K is split).
  [[nodiscard]] constexpr static_string<192> name_text() const {
    static_string<192> s("wgmma_");
    const auto field = [&s](std::string_view prefix, int v) {
      s += prefix;
      s.append_decimal(v);
    };
    field("bm", block_m);
    field("_bn", block_n);
    field("_bk", block_k);
    field("_wm", warp_m());
    field("_wn", warp_n());
    field("_g", group_m);
    field("_s", stages);
    field("_v", vector);
    if (pingpong != 0) s += "_pp";
    if (stream_k != 0) field("_stk", stream_k);
    if (split_k != 1) field("_sk", split_k);
    return s;
  }
  /// @brief Calls `f(name, value)` for every member, in declaration order (to_text()); pingpong
  /// and stream_k only when set, so that older configurations read as before those fields existed.
  template <class F>
  constexpr void visit_fields(F&& f) const {
    f("block_m", block_m);
    f("block_n", block_n);
    f("group_m", group_m);
    f("stages", stages);
    f("split_k", split_k);
    if (pingpong != 0) f("pingpong", pingpong);
    if (stream_k != 0) f("stream_k", stream_k);
  }

  /// @brief Member-wise equality.
  friend constexpr bool operator==(const wgmma_config&, const wgmma_config&) = default;
  /// @brief Member-wise order.
  friend constexpr auto operator<=>(const wgmma_config&, const wgmma_config&) = default;
};

}  // namespace rocmtpl::templates

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The SIMT path's configuration: fp32 FMAs on every dtype, a double-buffered block tile in
/// shared memory, thread_m x thread_n outputs per thread.

#include <optional>
#include <string_view>

#include <rocmtpl/core/static_string.hpp>

namespace rocmtpl::templates {

/// @brief One SIMT tiling: a structural aggregate (usable as an NTTP). `simt_config{64, 64, 16, 4,
/// 4, 8}` is the default tiling.
struct simt_config {
  int block_m = 64;  ///< rows of Y per block
  int block_n = 64;  ///< columns of Y per block
  int block_k = 16;  ///< K step held in shared memory
  int thread_m = 4;  ///< rows of Y per thread (multiple of 4)
  int thread_n = 4;  ///< columns of Y per thread (multiple of 4)
  int group_m = 8;   ///< blocks grouped along M for L2 reuse (1: row-major block order)
  int vector = 4;    ///< elements per global load on the fast path (1, 2, 4 or 8; at most 16 bytes)
  int split_k = 1;   ///< K slices, reduced through the workspace (static unless the entry takes split_k)

  /// @brief The path's name in the serialised form ("math" of describe()).
  static constexpr std::string_view math = "simt";
  /// @brief Shared-memory buffers of the K pipeline: the SIMT path is double-buffered.
  static constexpr int stages = 2;

  /// @brief Threads per block.
  [[nodiscard]] constexpr int threads() const noexcept {
    return thread_m > 0 && thread_n > 0 ? (block_m / thread_m) * (block_n / thread_n) : 0;
  }
  /// @brief Warps per block (threads / 32).
  [[nodiscard]] constexpr int warps() const noexcept { return threads() / 32; }
  /// @brief Shared memory per block in bytes: two buffers of fp32 tiles, each padded by 4 columns.
  [[nodiscard]] constexpr int shared_bytes() const noexcept { return 2 * 4 * block_k * (block_m + 4 + block_n + 4); }
  /// @brief LDS per block on AMD: as on NVIDIA.
  [[nodiscard]] constexpr int amd_lds_bytes() const noexcept { return shared_bytes(); }
  /// @brief Registers per thread, estimated: accumulators, one K step of operands, staged loads,
  /// addressing; ptxas schedules the shared-memory reads of a longer unrolled K tile earlier
  /// (+block_k): 128x128 tiles of 8x8 took 128 registers with block_k 8 and 153 with 16 (CUDA
  /// 13.0, sm_90).
  [[nodiscard]] constexpr int register_estimate() const noexcept {
    const int t = threads() > 0 ? threads() : 1;
    const int staging = (block_m + block_n) * block_k / t;
    return thread_m * thread_n + thread_m + thread_n + staging + 32 + block_k;
  }

  /// @brief Why the tiling is invalid, or nothing: positive fields, multiples of 4 per thread,
  /// 64 to 1024 threads in whole waves, 64 KiB of shared memory (AMD), 128 accumulators, 255 registers.
  [[nodiscard]] constexpr std::optional<std::string_view> invalid_reason() const noexcept {
    if (block_m <= 0 || block_n <= 0 || block_k <= 0 || group_m <= 0 || vector <= 0 || split_k <= 0 || thread_m <= 0 ||
        thread_n <= 0) {
      return "every field must be positive";
    }
    if (vector != 1 && vector != 2 && vector != 4 && vector != 8) return "vector must be 1, 2, 4 or 8";
    if (thread_m % 4 != 0 || thread_n % 4 != 0) return "thread_m and thread_n must be multiples of 4";
    if (block_m % thread_m != 0) return "block_m must be a multiple of thread_m";
    if (block_n % thread_n != 0) return "block_n must be a multiple of thread_n";
    if (threads() % 64 != 0 || threads() > 1024) return "threads per block must be a multiple of 64, at most 1024";
    if (shared_bytes() > 64 * 1024) return "shared memory above the 64 KiB of an AMD workgroup";
    if (thread_m * thread_n > 128) return "more than 128 accumulators per thread would spill";
    if (register_estimate() > 255) return "more than 255 registers per thread (estimate)";
    return std::nullopt;
  }

  /// @brief `bm64_bn64_bk16_tm4_tn4_g8_s2_v4` (`_sk<n>` when K is split).
  [[nodiscard]] constexpr static_string<192> name_text() const {
    static_string<192> s;
    const auto field = [&s](std::string_view prefix, int v) {
      s += prefix;
      s.append_decimal(v);
    };
    field("bm", block_m);
    field("_bn", block_n);
    field("_bk", block_k);
    field("_tm", thread_m);
    field("_tn", thread_n);
    field("_g", group_m);
    field("_s", stages);
    field("_v", vector);
    if (split_k != 1) field("_sk", split_k);
    return s;
  }
  /// @brief Calls `f(name, value)` for every member, in declaration order (to_text()).
  template <class F>
  constexpr void visit_fields(F&& f) const {
    f("block_m", block_m);
    f("block_n", block_n);
    f("block_k", block_k);
    f("thread_m", thread_m);
    f("thread_n", thread_n);
    f("group_m", group_m);
    f("vector", vector);
    f("split_k", split_k);
  }

  /// @brief Member-wise equality.
  friend constexpr bool operator==(const simt_config&, const simt_config&) = default;
  /// @brief Member-wise order.
  friend constexpr auto operator<=>(const simt_config&, const simt_config&) = default;
};

}  // namespace rocmtpl::templates

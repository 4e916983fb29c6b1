// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The matrix-core path's configuration: mma.sync on NVIDIA, MFMA on AMD (one source serves
/// both), f16 or bf16 X and W with fp32 accumulation, a `stages`-deep K pipeline in shared memory.

#include <optional>
#include <string_view>

#include <rocmtpl/core/static_string.hpp>

namespace rocmtpl::templates {

/// @brief One matrix-core tiling: a structural aggregate (usable as an NTTP).
struct mma_config {
  int block_m = 128;  ///< rows of Y per block
  int block_n = 128;  ///< columns of Y per block
  int block_k = 32;   ///< K step held in shared memory (multiple of 32)
  int warp_m = 64;    ///< rows of Y per warp (multiple of 32)
  int warp_n = 64;    ///< columns of Y per warp (multiple of 32)
  int group_m = 8;    ///< blocks grouped along M for L2 reuse
  int stages = 3;     ///< shared-memory buffers in the K pipeline (NVIDIA; AMD keeps one)
  int vector = 8;     ///< elements per global load on the fast path (1, 2, 4 or 8)
  int split_k = 1;    ///< K slices (only with gemm_options::runtime_split_k: the entry's split_k)

  /// @brief The path's name in the serialised form ("math" of describe()).
  static constexpr std::string_view math = "matrix_core";

  /// @brief Warps per block.
  [[nodiscard]] constexpr int warps() const noexcept {
    return warp_m > 0 && warp_n > 0 ? (block_m / warp_m) * (block_n / warp_n) : 0;
  }
  /// @brief Threads per block on NVIDIA (32-thread warps); AMD blocks have 64-thread waves.
  [[nodiscard]] constexpr int threads() const noexcept { return 32 * warps(); }
  /// @brief Shared memory per block in bytes on NVIDIA: `stages` buffers of 16-bit tiles.
  [[nodiscard]] constexpr int shared_bytes() const noexcept { return stages * (block_m + block_n) * block_k * 2; }
  /// @brief LDS per block on AMD: one K-major buffer with 8 elements of padding per row.
  [[nodiscard]] constexpr int amd_lds_bytes() const noexcept { return (block_m + block_n) * (block_k + 8) * 2; }
  /// @brief Registers per thread, estimated: accumulators, one K step of fragments, addressing
  /// (64 x 64 warp tiles: 232-254 registers with ptxas of CUDA 13.0, sm_90).
  [[nodiscard]] constexpr int register_estimate() const noexcept {
    const int acc = warp_m * warp_n / 32;
    const int frags = warp_m / 16 * 4 + warp_n / 8 * 2;
    return acc + frags + 48;
  }

  /// @brief Why the tiling is invalid, or nothing: warp tiles of multiples of 32 up to 64 x 64, 1 to
  /// 8 warps, 2 to 8 stages, 227 KiB of shared memory (NVIDIA), 64 KiB of LDS (AMD), 255 registers.
  [[nodiscard]] constexpr std::optional<std::string_view> invalid_reason() const noexcept {
    if (block_m <= 0 || block_n <= 0 || block_k <= 0 || group_m <= 0 || stages <= 0 || vector <= 0 || split_k <= 0) {
      return "every field must be positive";
    }
    if (vector != 1 && vector != 2 && vector != 4 && vector != 8) return "vector must be 1, 2, 4 or 8";
    if (warp_m <= 0 || warp_n <= 0) return "matrix-core configs need positive warp_m and warp_n";
    if (warp_m % 32 != 0 || warp_n % 32 != 0) return "warp_m and warp_n must be multiples of 32";
    if (block_m % warp_m != 0 || block_n % warp_n != 0) return "block_m/block_n must be multiples of warp_m/warp_n";
    if (block_k % 32 != 0) return "block_k must be a multiple of 32 on matrix cores";
    if (warp_m * warp_n > 64 * 64) return "warp tiles above 64 x 64 would not fit the registers";
    if (warps() < 1 || warps() > 8) return "1 to 8 warps per block";
    if (stages < 2 || stages > 8) return "stages must be 2 to 8 on matrix cores";
    if (shared_bytes() > 227 * 1024) return "shared memory above the 227 KiB an NVIDIA block may use";
    if (amd_lds_bytes() > 64 * 1024) return "LDS above the 64 KiB of an AMD workgroup";
    if (register_estimate() > 255) return "more than 255 registers per thread (estimate)";
    return std::nullopt;
  }

  /// @brief `mma_bm128_bn128_bk32_wm64_wn64_g8_s4_v8` (`_sk<n>` when K is split).
  [[nodiscard]] constexpr static_string<192> name_text() const {
    static_string<192> s("mma_");
    const auto field = [&s](std::string_view prefix, int v) {
      s += prefix;
      s.append_decimal(v);
    };
    field("bm", block_m);
    field("_bn", block_n);
    field("_bk", block_k);
    field("_wm", warp_m);
    field("_wn", warp_n);
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
    f("warp_m", warp_m);
    f("warp_n", warp_n);
    f("group_m", group_m);
    f("stages", stages);
    f("vector", vector);
    f("split_k", split_k);
  }

  /// @brief Member-wise equality.
  friend constexpr bool operator==(const mma_config&, const mma_config&) = default;
  /// @brief Member-wise order.
  friend constexpr auto operator<=>(const mma_config&, const mma_config&) = default;
};

}  // namespace rocmtpl::templates

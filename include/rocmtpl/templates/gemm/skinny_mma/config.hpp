// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The skinny matrix-core path's configuration: the matrix-vector kernel on mma.sync (NVIDIA
/// sm_80 and later) for f16 or bf16 X and W of one dtype whose large operand is contiguous along
/// its large dimension (see skinny/config.hpp for Q, P and the sides).

#include <optional>
#include <string_view>

#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/templates/gemm/skinny/config.hpp>

namespace rocmtpl::templates {

/// @brief One skinny matrix-core tiling: a structural aggregate (usable as an NTTP). Each warp
/// covers 64 elements of P; the large operand's K steps are double-buffered in registers.
struct skinny_mma_config {
  skinny_side side = skinny_side::m;  ///< which dimension is the small one (Q)
  int rows = 8;                       ///< rows of Q per block: 8, 16, 32 or 64 (8 per MMA tile)
  int k_warps = 4;                    ///< warps along K (1, 2 or 4; reduced through shared memory)
  int p_warps = 1;                    ///< warps along P (1, 2 or 4; 64 elements each)
  int k_step = 8;                     ///< K elements per lane and step (4 or 8)
  int split_k = 1;                    ///< K slices across blocks, reduced through the workspace (static)

  /// @brief Elements per load of the large operand: 16 bytes of 16-bit values.
  static constexpr int vector = 8;
  /// @brief Register buffers of the large operand's K steps (the current one and the prefetched next).
  static constexpr int stages = 2;

  /// @brief The serialised form's "math": "skinny_m" or "skinny_n".
  [[nodiscard]] constexpr std::string_view math() const noexcept {
    return side == skinny_side::m ? "skinny_m" : "skinny_n";
  }
  /// @brief Elements of P per block (64 * p_warps).
  [[nodiscard]] constexpr int columns() const noexcept { return 64 * p_warps; }
  /// @brief Threads per block.
  [[nodiscard]] constexpr int threads() const noexcept { return 32 * k_warps * p_warps; }
  /// @brief Warps per block.
  [[nodiscard]] constexpr int warps() const noexcept { return k_warps * p_warps; }
  /// @brief Static shared memory in bytes: the K warps' reduction, 8 rows at a time.
  [[nodiscard]] constexpr int shared_bytes() const noexcept { return k_warps > 1 ? k_warps * 8 * columns() * 4 : 0; }
  /// @brief Registers per thread, estimated: rows / 8 tiles of 16 accumulators, two K steps of
  /// k_step 16-byte rows of the large operand and of the small one's pairs.
  [[nodiscard]] constexpr int register_estimate() const noexcept {
    return 2 * rows + 8 * k_step + rows / 8 * k_step + 40;
  }

  /// @brief Why the tiling is invalid, or nothing: 1 to 8 tiles of 8 rows, 1 to 4 warps along K and
  /// along P, at least two warps, at most 64 K slices, 48 KiB of static shared memory, 255 registers.
  [[nodiscard]] constexpr std::optional<std::string_view> invalid_reason() const noexcept {
    if (rows <= 0 || k_step <= 0 || split_k <= 0) return "every field must be positive";
    if (rows != 8 && rows != 16 && rows != 32 && rows != 64) {
      return "skinny mma rows (of the small dimension) must be 8, 16, 32 or 64";
    }
    if (!detail::power_of_two(k_warps) || k_warps > 4) return "skinny mma k_warps (warps along K) must be 1, 2 or 4";
    if (!detail::power_of_two(p_warps) || p_warps > 4) {
      return "skinny mma p_warps (warps along the large dimension) must be 1, 2 or 4";
    }
    if (threads() < 64) return "skinny mma configs need at least two warps (k_warps * p_warps)";
    if (k_step != 4 && k_step != 8) return "skinny mma k_step (K elements per lane and step) must be 4 or 8";
    if (split_k > 64) return "skinny split_k above 64";
    if (shared_bytes() > 48 * 1024) return "skinny shared memory above 48 KiB (static)";
    if (register_estimate() > 255) return "more than 255 registers per thread (estimate)";
    return std::nullopt;
  }

  /// @brief `skm_mma_bm8_bn64_bk8_wm4_wn1_sk16` (`skn_` for side n; `_sk<n>` when K is split): bm
  /// rows, bn columns, bk k_step, wm k_warps, wn p_warps.
  [[nodiscard]] constexpr static_string<192> name_text() const {
    static_string<192> s(side == skinny_side::m ? "skm_mma_" : "skn_mma_");
    const auto field = [&s](std::string_view prefix, int v) {
      s += prefix;
      s.append_decimal(v);
    };
    field("bm", rows);
    field("_bn", columns());
    field("_bk", k_step);
    field("_wm", k_warps);
    field("_wn", p_warps);
    if (split_k != 1) field("_sk", split_k);
    return s;
  }
  /// @brief Calls `f(name, value)` for every integer member, in declaration order (to_text()).
  template <class F>
  constexpr void visit_fields(F&& f) const {
    f("rows", rows);
    f("k_warps", k_warps);
    f("p_warps", p_warps);
    f("k_step", k_step);
    f("split_k", split_k);
  }

  /// @brief Member-wise equality.
  friend constexpr bool operator==(const skinny_mma_config&, const skinny_mma_config&) = default;
  /// @brief Member-wise order.
  friend constexpr auto operator<=>(const skinny_mma_config&, const skinny_mma_config&) = default;
};

}  // namespace rocmtpl::templates

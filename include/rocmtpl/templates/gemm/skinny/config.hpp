// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The skinny path's configuration: matrix-vector kernels for a small dimension (M or N up
/// to 64) that stream the large operand with 16-byte loads and fp32 FMAs, on every dtype.
///
/// Names: the small dimension is Q (M for skinny_side::m, N for skinny_side::n), the large one P;
/// the large operand is W (side m) or X (side n). When the large operand is contiguous along P the
/// streaming kernel runs (units of `vector` elements along P), when it is contiguous along K the
/// dot kernel (one row of P per unit, K reduced with shuffles).

#include <cstdint>
#include <optional>
#include <string_view>

#include <rocmtpl/core/static_string.hpp>

namespace rocmtpl::templates {

/// @brief Which output dimension is the small one.
enum class skinny_side {
  m,  ///< few rows: Q = M, the large operand is W
  n,  ///< few columns: Q = N, the large operand is X
};

/// @brief The largest small dimension the skinny paths are made for (the ranked space holds them
/// only up to it; an exported skinny winner serves only problems within it while another entry can).
inline constexpr std::int64_t gemm_skinny_max_small = 64;

namespace detail {
[[nodiscard]] constexpr bool power_of_two(int v) noexcept { return v > 0 && (v & (v - 1)) == 0; }
}  // namespace detail

/// @brief One skinny tiling: a structural aggregate (usable as an NTTP).
struct skinny_config {
  skinny_side side = skinny_side::m;  ///< which dimension is the small one (Q)
  int rows = 1;                       ///< rows of Q per block (1, 2, 4, 8 or 16)
  int k_threads = 1;                  ///< threads along K (power of two, at most 32)
  int p_threads = 256;                ///< threads along P (power of two)
  int p_units = 1;                    ///< units along P per thread (1, 2 or 4)
  int k_step = 8;                     ///< K elements per thread and step (4 or 8)
  int vector = 8;                     ///< elements per load of the large operand (at most k_step)
  int split_k = 1;                    ///< K slices across blocks, reduced through the workspace (static)

  /// @brief The serialised form's "math": "skinny_m" or "skinny_n".
  [[nodiscard]] constexpr std::string_view math() const noexcept {
    return side == skinny_side::m ? "skinny_m" : "skinny_n";
  }
  /// @brief Units along P per block (p_threads * p_units).
  [[nodiscard]] constexpr int units() const noexcept { return p_threads * p_units; }
  /// @brief Threads per block.
  [[nodiscard]] constexpr int threads() const noexcept { return k_threads * p_threads; }
  /// @brief Warps per block.
  [[nodiscard]] constexpr int warps() const noexcept { return threads() / 32; }
  /// @brief Static shared memory in bytes: the larger of the streaming kernel's K reduction
  /// (threads * vector floats) and the dot kernel's staged small operand (rows * k_step * k_threads floats).
  [[nodiscard]] constexpr int shared_bytes() const noexcept {
    const int stream = k_threads > 1 ? threads() * vector * 4 : 0;
    const int dot = rows * k_step * k_threads * 4;
    return stream > dot ? stream : dot;
  }
  /// @brief Registers per thread, estimated: rows x p_units x vector accumulators, k_step raw
  /// 16-byte vectors (one P group at a time) and the rows x k_step values of the small operand the
  /// compiler loads ahead (bm8 bk8 v8: 224 registers with ptxas of CUDA 13, sm_90); the dot kernel
  /// needs fewer.
  [[nodiscard]] constexpr int register_estimate() const noexcept {
    return rows * p_units * vector + k_step * 4 + rows * k_step + 40;
  }

  /// @brief Why the tiling is invalid, or nothing: power-of-two thread counts (64 to 512, at most
  /// 32 along K: the dot kernel reduces K with shuffles inside a warp), at most 64 accumulators,
  /// at most 64 K slices, 48 KiB of static shared memory, 255 registers.
  [[nodiscard]] constexpr std::optional<std::string_view> invalid_reason() const noexcept {
    if (rows <= 0 || p_threads <= 0 || k_step <= 0 || vector <= 0 || split_k <= 0) {
      return "every field must be positive";
    }
    if (vector != 1 && vector != 2 && vector != 4 && vector != 8) return "vector must be 1, 2, 4 or 8";
    if (!detail::power_of_two(rows) || rows > 16)
      return "skinny rows (of the small dimension) must be 1, 2, 4, 8 or 16";
    if (!detail::power_of_two(k_threads) || k_threads > 32) {
      return "skinny k_threads (threads along K) must be a power of two, at most 32";
    }
    if (!detail::power_of_two(p_threads))
      return "skinny p_threads (threads along the large dimension) must be a power of two";
    if (threads() < 64 || threads() > 512) return "skinny threads per block (k_threads * p_threads) must be 64 to 512";
    if (p_units != 1 && p_units != 2 && p_units != 4) return "skinny p_units must be 1, 2 or 4";
    if (k_step != 4 && k_step != 8) return "skinny k_step (K elements per thread and step) must be 4 or 8";
    if (vector > k_step) return "skinny vector above k_step";
    if (rows * p_units * vector > 64) return "skinny accumulators (rows * p_units * vector) above 64";
    if (split_k > 64) return "skinny split_k above 64";
    if (shared_bytes() > 48 * 1024) return "skinny shared memory above 48 KiB (static)";
    if (register_estimate() > 255) return "more than 255 registers per thread (estimate)";
    return std::nullopt;
  }

  /// @brief `skm_bm8_bn32_bk8_wm8_wn32_tn1_v8_sk4` (`skn_` for side n; `_sk<n>` when K is split):
  /// bm rows, bn units, bk k_step, wm k_threads, wn p_threads, tn p_units.
  [[nodiscard]] constexpr static_string<192> name_text() const {
    static_string<192> s(side == skinny_side::m ? "skm_" : "skn_");
    const auto field = [&s](std::string_view prefix, int v) {
      s += prefix;
      s.append_decimal(v);
    };
    field("bm", rows);
    field("_bn", units());
    field("_bk", k_step);
    field("_wm", k_threads);
    field("_wn", p_threads);
    field("_tn", p_units);
    field("_v", vector);
    if (split_k != 1) field("_sk", split_k);
    return s;
  }
  /// @brief Calls `f(name, value)` for every integer member, in declaration order (to_text()).
  template <class F>
  constexpr void visit_fields(F&& f) const {
    f("rows", rows);
    f("k_threads", k_threads);
    f("p_threads", p_threads);
    f("p_units", p_units);
    f("k_step", k_step);
    f("vector", vector);
    f("split_k", split_k);
  }

  /// @brief Member-wise equality.
  friend constexpr bool operator==(const skinny_config&, const skinny_config&) = default;
  /// @brief Member-wise order.
  friend constexpr auto operator<=>(const skinny_config&, const skinny_config&) = default;
};

}  // namespace rocmtpl::templates

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM's configuration and its constraints: gemm_math, bias_dim, the tunable
/// gemm_config (a structural aggregate), the problem-level gemm_options, and the value rules a
/// configuration must meet (invalid_reason(), is_valid(), validate()).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/templates/activation.hpp>

namespace rocmtpl::templates {

/// @brief Which units do the multiply-adds.
enum class gemm_math {
  simt,         ///< fp32 FMA on every dtype
  matrix_core,  ///< mma.sync (NVIDIA) / MFMA (AMD); f16 or bf16 X and W, fp32 accumulation
  wgmma,        ///< Hopper (sm_90a): TMA-fed wgmma warpgroups; f16 or bf16, fp32 accumulation
  skinny_m,  ///< few rows (M up to 64): streams W with 16-byte loads, fp32 FMA (templates/gemm/skinny_device_code.hpp);
             ///< with `stages` 2 on matrix cores (see is_skinny_mma())
  skinny_n,  ///< few columns (N up to 64): streams X with 16-byte loads, fp32 FMA; `stages` 2: matrix cores
};

/// @brief "simt", "matrix_core", "wgmma", "skinny_m" or "skinny_n".
[[nodiscard]] constexpr std::string_view to_string(gemm_math m) noexcept {
  switch (m) {
    case gemm_math::wgmma: return "wgmma";
    case gemm_math::matrix_core: return "matrix_core";
    case gemm_math::skinny_m: return "skinny_m";
    case gemm_math::skinny_n: return "skinny_n";
    default: return "simt";
  }
}

/// @brief True for the skinny (matrix-vector) paths, gemm_math::skinny_m and gemm_math::skinny_n.
[[nodiscard]] constexpr bool is_skinny(gemm_math m) noexcept {
  return m == gemm_math::skinny_m || m == gemm_math::skinny_n;
}

/// @brief The largest small dimension the skinny paths are made for: M for gemm_math::skinny_m, N
/// for gemm_math::skinny_n (the ranked space holds them only up to it; an exported skinny winner
/// serves only problems within it while another entry can).
inline constexpr std::int64_t gemm_skinny_max_small = 64;

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

/// @brief Which output dimension a rank-1 Bias (or Residual) runs along.
enum class bias_dim {
  n,  ///< [N]: one value per column, the same vector added to every row (nn.Linear)
  m,  ///< [M]: one value per row, broadcast along the columns
};

/// @brief Tunable tiling of the GEMM: a structural aggregate, usable as an NTTP and as a value.
///
/// The first six fields keep the order of the original SIMT tiling, so `gemm_config{64, 64, 16, 4,
/// 4, 8}` is the SIMT default. Matrix-core configurations set `math`, `warp_m` and `warp_n`
/// (thread_m and thread_n are unused there and 0). Hopper (wgmma) configurations set `math`,
/// `warp_m` (rows of one consumer warpgroup: block_m / 2, a multiple of 64) and `warp_n` (= block_n,
/// the wgmma N), block_k 64. Skinny configurations (gemm_math::skinny_m / skinny_n: the small
/// dimension is M / N; the large operand is W / X) set `block_m` (rows of the small dimension per
/// block), `warp_m` (threads along K), `warp_n` (threads along the large dimension), `thread_n`
/// (large-dimension units per thread: `vector` elements when the large operand is contiguous along
/// its large dimension, one row when it is contiguous along K), `block_n` (= warp_n * thread_n,
/// units per block), `block_k` (K elements per thread and step), `split_k` (K slices across blocks,
/// static: reduced through the workspace whether or not gemm_options::runtime_split_k is on),
/// thread_m, group_m and stages 1. Skinny configurations with `stages` 2 run on matrix cores
/// (mma.sync, NVIDIA sm_80 and later; is_skinny_mma()): 16-bit X and W of one dtype, the large
/// operand contiguous along its large dimension; `stages` counts the register buffers of the large
/// operand's K steps (the current one and the prefetched next), `block_m` is 8 to 64 rows (8 per
/// MMA tile), `warp_m` warps along K (reduced through shared memory), `warp_n` warps along the large
/// dimension (64 elements each: `block_n` = 64 * warp_n elements), `block_k` K elements per lane and
/// step, `vector` 8, thread_m, thread_n and group_m 1.
struct gemm_config {
  int block_m = 64;                  ///< rows of Y per block
  int block_n = 64;                  ///< columns of Y per block
  int block_k = 16;                  ///< K step held in shared memory
  int thread_m = 4;                  ///< SIMT: rows of Y per thread (multiple of 4)
  int thread_n = 4;                  ///< SIMT: columns of Y per thread (multiple of 4)
  int group_m = 8;                   ///< blocks grouped along M for L2 reuse (1: row-major block order)
  gemm_math math = gemm_math::simt;  ///< math path
  int warp_m = 0;                    ///< matrix cores: rows of Y per warp (multiple of 32); wgmma: per warpgroup
  int warp_n = 0;                    ///< matrix cores: columns of Y per warp (multiple of 32); wgmma: per warpgroup
  int stages = 2;                    ///< shared-memory buffers in the K pipeline (SIMT: 2)
  int vector = 4;                    ///< elements per global load on the fast path (1, 2, 4 or 8; at most 16 bytes)
  int split_k = 1;  ///< K slices: at run time with gemm_options::runtime_split_k, else static (SIMT, skinny)

  /// @brief Warps per block (SIMT: threads / 32).
  [[nodiscard]] constexpr int warps() const noexcept {
    if (math == gemm_math::wgmma) return gemm_wgmma_facts::threads / 32;
    if (is_skinny(math)) return threads() / 32;
    if (math == gemm_math::matrix_core) {
      return warp_m > 0 && warp_n > 0 ? (block_m / warp_m) * (block_n / warp_n) : 0;
    }
    return threads() / 32;
  }
  /// @brief Threads per block on NVIDIA (32-thread warps); AMD matrix-core blocks have 64-thread waves.
  [[nodiscard]] constexpr int threads() const noexcept {
    if (math == gemm_math::matrix_core || math == gemm_math::wgmma) return 32 * warps();
    if (is_skinny(math)) return stages == 2 ? 32 * warp_m * warp_n : warp_m * warp_n;
    return thread_m > 0 && thread_n > 0 ? (block_m / thread_m) * (block_n / thread_n) : 0;
  }
  /// @brief Shared memory per block in bytes on NVIDIA (dynamic; matrix cores: `stages` buffers of
  /// 16-bit tiles; SIMT: two buffers of fp32 tiles, each padded by 4 columns; wgmma: 1024 bytes
  /// of alignment slack, `stages` swizzled X and W tiles, the epilogue staging tiles and two
  /// mbarriers per stage plus two: 1024 + stages * (bm + bn) * 128 + 18432 + 16 * stages + 16).
  /// Skinny: static, the larger of the K reduction of the streaming kernel (threads * vector
  /// floats) and the staged small operand of the dot kernel (block_m * block_k * warp_m floats);
  /// on matrix cores the K warps' reduction, 8 rows at a time (warp_m * 8 * block_n floats).
  [[nodiscard]] constexpr int shared_bytes() const noexcept {
    if (is_skinny(math) && stages == 2) return warp_m > 1 ? warp_m * 8 * block_n * 4 : 0;
    if (is_skinny(math)) {
      const int stream = warp_m > 1 ? threads() * vector * 4 : 0;
      const int dot = block_m * block_k * warp_m * 4;
      return stream > dot ? stream : dot;
    }
    if (math == gemm_math::wgmma) {
      return 1024 + stages * (block_m + block_n) * block_k * 2 + gemm_wgmma_facts::epilogue_bytes + 16 * stages + 16;
    }
    if (math == gemm_math::matrix_core) return stages * (block_m + block_n) * block_k * 2;
    return 2 * 4 * block_k * (block_m + 4 + block_n + 4);
  }
  /// @brief LDS per block on AMD (matrix cores: one K-major buffer with 8 elements of padding per row).
  [[nodiscard]] constexpr int amd_lds_bytes() const noexcept {
    if (math == gemm_math::matrix_core) return (block_m + block_n) * (block_k + 8) * 2;
    return shared_bytes();
  }
  /// @brief Registers per thread the configuration needs, estimated (accumulators, fragments,
  /// staging, addressing); NVIDIA allows 255.
  [[nodiscard]] constexpr int register_estimate() const noexcept {
    if (is_skinny(math) && stages == 2) {
      // Matrix cores: block_m / 8 tiles of 16 accumulators, two K steps of block_k 16-byte rows of
      // the large operand (the current one and the prefetched one) and of the small one's pairs.
      return 2 * block_m + 8 * block_k + block_m / 8 * block_k + 40;
    }
    if (is_skinny(math)) {
      // Streaming kernel: block_m x thread_n x vector accumulators, block_k raw 16-byte vectors
      // (one P group at a time) and the block_m x block_k values of X the compiler loads ahead
      // (bm8 bk8 v8: 224 registers with ptxas of CUDA 13, sm_90); the dot kernel needs fewer.
      return block_m * thread_n * vector + block_k * 4 + block_m * block_k + 40;
    }
    if (math == gemm_math::wgmma) {
      // Consumer threads: the accumulators of their m64 blocks, the prefetched bias pairs,
      // addressing (128x256: 168 registers at entry, 232 after setmaxnreg; CUDA 13.0, sm_90a).
      const int acc = warp_m / 64 * warp_n / 2;
      return acc + warp_n / 8 + 48;
    }
    if (math == gemm_math::matrix_core) {
      // Accumulators, one K step of fragments, addressing (64 x 64 warp tiles: 232-254 registers
      // with ptxas of CUDA 13.0, sm_90).
      const int acc = warp_m * warp_n / 32;
      const int frags = warp_m / 16 * 4 + warp_n / 8 * 2;
      return acc + frags + 48;
    }
    // Accumulators, one K step of operands, staged loads, addressing; ptxas schedules the
    // shared-memory reads of a longer unrolled K tile earlier (+block_k): 128x128 tiles of 8x8
    // took 128 registers with block_k 8 and 153 with 16 (CUDA 13.0, sm_90).
    const int t = threads() > 0 ? threads() : 1;
    const int staging = (block_m + block_n) * block_k / t;
    return thread_m * thread_n + thread_m + thread_n + staging + 32 + block_k;
  }

  /// @brief Designated-initializer text: `{.block_m = 64, .block_n = 64, ...}` (to_text() as a std::string).
  [[nodiscard]] std::string to_string() const;
  /// @brief to_string() as a constant: `static_assert(gemm_config{}.to_text() == "{.block_m = 64, ...}")`.
  [[nodiscard]] constexpr static_string<384> to_text() const {
    static_string<384> s;
    const auto field = [&s](std::string_view name, int v, bool first = false) {
      s += first ? "{." : ", .";
      s += name;
      s += " = ";
      s.append_decimal(v);
    };
    field("block_m", block_m, true);
    field("block_n", block_n);
    field("block_k", block_k);
    field("thread_m", thread_m);
    field("thread_n", thread_n);
    field("group_m", group_m);
    s += ", .math = gemm_math::";
    s += templates::to_string(math);
    field("warp_m", warp_m);
    field("warp_n", warp_n);
    field("stages", stages);
    field("vector", vector);
    field("split_k", split_k);
    s += "}";
    return s;
  }
  /// @brief Short deterministic identifier: `bm64_bn64_bk16_tm4_tn4_g8_s2_v4` (SIMT),
  /// `mma_bm128_bn128_bk32_wm64_wn64_g8_s4_v8` (matrix cores),
  /// `wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8` (Hopper); `_sk<n>` when K is split.
  /// Skinny: `skm_bm8_bn32_bk8_wm8_wn32_tn1_v8_sk4` (skinny_m; `skn_` for skinny_n); on matrix cores
  /// `skm_mma_bm8_bn64_bk8_wm4_wn1_sk16`. (name_text() as a std::string.)
  [[nodiscard]] std::string name() const;
  /// @brief name() as a constant: `static_assert(gemm_config{}.name_text() == "bm64_bn64_bk16_tm4_tn4_g8_s2_v4")`.
  [[nodiscard]] constexpr static_string<192> name_text() const {
    if (is_skinny(math)) return skinny_name_text();
    static_string<192> s(math == gemm_math::matrix_core ? "mma_" : (math == gemm_math::wgmma ? "wgmma_" : ""));
    const auto field = [&s](std::string_view prefix, int v) {
      s += prefix;
      s.append_decimal(v);
    };
    field("bm", block_m);
    field("_bn", block_n);
    field("_bk", block_k);
    if (math != gemm_math::simt) {
      field("_wm", warp_m);
      field("_wn", warp_n);
    } else {
      field("_tm", thread_m);
      field("_tn", thread_n);
    }
    field("_g", group_m);
    field("_s", stages);
    field("_v", vector);
    if (split_k != 1) field("_sk", split_k);
    return s;
  }

 private:
  [[nodiscard]] constexpr static_string<192> skinny_name_text() const {
    static_string<192> s(math == gemm_math::skinny_m ? "skm_" : "skn_");
    const auto field = [&s](std::string_view prefix, int v) {
      s += prefix;
      s.append_decimal(v);
    };
    if (stages == 2) s += "mma_";
    field("bm", block_m);
    field("_bn", block_n);
    field("_bk", block_k);
    field("_wm", warp_m);
    field("_wn", warp_n);
    if (stages != 2) {
      field("_tn", thread_n);
      field("_v", vector);
    }
    if (split_k != 1) field("_sk", split_k);
    return s;
  }

 public:
  /// @brief Member-wise equality.
  friend constexpr bool operator==(const gemm_config&, const gemm_config&) = default;
  /// @brief Member-wise order (configurations sort and key maps).
  friend constexpr auto operator<=>(const gemm_config&, const gemm_config&) = default;
};

/// @brief True for a skinny configuration on matrix cores (gemm_math::skinny_m / skinny_n with
/// `stages` 2: the tensor-core kernel of templates/gemm/skinny_device_code.hpp).
[[nodiscard]] constexpr bool is_skinny_mma(const gemm_config& c) noexcept { return is_skinny(c.math) && c.stages == 2; }

/// @brief (field, value) pairs of a configuration, for info_dict and reports.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> describe(const gemm_config& c);

namespace detail {
// The Hopper path's rules: two consumer warpgroups of warp_m x warp_n (m64 blocks, one wgmma N),
// block_k 64, TMA boxes of at most 256 rows, the register and shared-memory budgets (split-K as on
// the other paths: fp32 partials in the workspace, then the reduction kernel).
[[nodiscard]] constexpr std::optional<std::string_view> invalid_wgmma_reason(const gemm_config& c) noexcept {
  using f = gemm_wgmma_facts;
  if (c.block_k != f::block_k) return "wgmma configs have block_k 64 (one 128-byte swizzle row)";
  if (c.warp_m <= 0 || c.warp_m % 64 != 0) return "wgmma warp_m (rows per consumer warpgroup) must be a multiple of 64";
  if (c.block_m != f::consumers * c.warp_m) return "wgmma block_m must be 2 x warp_m (two consumer warpgroups)";
  if (c.block_m > 256) return "wgmma block_m above 256 (one TMA box holds at most 256 rows)";
  if (c.warp_n != c.block_n) return "wgmma warp_n must equal block_n (one wgmma N per warpgroup)";
  if (c.block_n != 64 && c.block_n != 128 && c.block_n != 192 && c.block_n != 256) {
    return "wgmma block_n must be 64, 128, 192 or 256";
  }
  if (c.warp_m / 64 * c.warp_n / 2 + c.warp_n / 8 > 176) {
    return "wgmma accumulators and bias pairs above the consumer register budget";
  }
  if (c.stages < 2 || c.stages > 16) return "wgmma stages must be 2 to 16";
  if (c.vector != 8) return "wgmma configs have vector 8 (16-byte TMA rows and stores)";
  if (c.shared_bytes() > f::max_shared) return "shared memory above the 227 KiB an NVIDIA block may use";
  return std::nullopt;
}

[[nodiscard]] constexpr bool power_of_two(int v) noexcept { return v > 0 && (v & (v - 1)) == 0; }

// The skinny paths' rules: a small tile of 1 to 16 rows, power-of-two thread counts (64 to 512
// threads, at most 32 along K: the dot kernel reduces K with shuffles inside a warp), block_n the
// units of the block, 4 or 8 K elements per step (a multiple of the vector), at most 64
// accumulators of the streaming kernel, at most 64 K slices.
// The skinny matrix-core kernel's rules: 1 to 8 tiles of 8 rows, 1 to 4 warps along K and along
// the large dimension (64 elements each), 64 to 512 threads, 4 or 8 K elements per lane and step,
// 16-byte vectors, at most 64 K slices, the register and shared-memory budgets.
[[nodiscard]] constexpr std::optional<std::string_view> invalid_skinny_mma_reason(const gemm_config& c) noexcept {
  if (c.block_m != 8 && c.block_m != 16 && c.block_m != 32 && c.block_m != 64)
    return "skinny mma block_m (small-dimension rows) must be 8, 16, 32 or 64";
  if (!power_of_two(c.warp_m) || c.warp_m > 4) return "skinny mma warp_m (warps along K) must be 1, 2 or 4";
  if (!power_of_two(c.warp_n) || c.warp_n > 4)
    return "skinny mma warp_n (warps along the large dimension) must be 1, 2 or 4";
  if (c.threads() < 64) return "skinny mma configs need at least two warps (warp_m * warp_n)";
  if (c.block_n != 64 * c.warp_n) return "skinny mma block_n must be 64 * warp_n";
  if (c.block_k != 4 && c.block_k != 8) return "skinny mma block_k (K elements per lane and step) must be 4 or 8";
  if (c.thread_m != 1 || c.thread_n != 1 || c.group_m != 1)
    return "skinny mma configs have thread_m, thread_n and group_m 1";
  if (c.vector != 8) return "skinny mma configs have vector 8 (16-byte rows of 16-bit elements)";
  if (c.split_k > 64) return "skinny split_k above 64";
  if (c.shared_bytes() > 48 * 1024) return "skinny shared memory above 48 KiB (static)";
  return std::nullopt;
}

[[nodiscard]] constexpr std::optional<std::string_view> invalid_skinny_reason(const gemm_config& c) noexcept {
  if (c.stages == 2) return invalid_skinny_mma_reason(c);
  if (!power_of_two(c.block_m) || c.block_m > 16)
    return "skinny block_m (small-dimension rows) must be 1, 2, 4, 8 or 16";
  if (!power_of_two(c.warp_m) || c.warp_m > 32)
    return "skinny warp_m (threads along K) must be a power of two, at most 32";
  if (!power_of_two(c.warp_n)) return "skinny warp_n (threads along the large dimension) must be a power of two";
  if (c.threads() < 64 || c.threads() > 512) return "skinny threads per block (warp_m * warp_n) must be 64 to 512";
  if (c.thread_n != 1 && c.thread_n != 2 && c.thread_n != 4) return "skinny thread_n must be 1, 2 or 4";
  if (c.thread_m != 1 || c.group_m != 1 || c.stages != 1)
    return "skinny configs have thread_m, group_m and stages 1 (stages 2: matrix cores)";
  if (c.block_n != c.warp_n * c.thread_n) return "skinny block_n must be warp_n * thread_n";
  if (c.block_k != 4 && c.block_k != 8) return "skinny block_k (K elements per thread and step) must be 4 or 8";
  if (c.vector > c.block_k) return "skinny vector above block_k";
  if (c.block_m * c.thread_n * c.vector > 64) return "skinny accumulators (block_m * thread_n * vector) above 64";
  if (c.split_k > 64) return "skinny split_k above 64";
  if (c.shared_bytes() > 48 * 1024) return "skinny shared memory above 48 KiB (static)";
  return std::nullopt;
}
}  // namespace detail

/// @brief Why a configuration is invalid, or nothing when it is valid; does not throw (search
/// spaces filter with it). Value rules checked before rendering: divisibility, threads per block,
/// NVIDIA shared memory (227 KiB; SIMT 48 KiB static), AMD LDS (64 KiB), a register estimate (255
/// per thread).
[[nodiscard]] constexpr std::optional<std::string_view> invalid_reason(const gemm_config& c) noexcept {
  const bool positive =
      c.block_m > 0 && c.block_n > 0 && c.block_k > 0 && c.group_m > 0 && c.stages > 0 && c.vector > 0 && c.split_k > 0;
  if (!positive) return "every field must be positive";
  if (c.vector != 1 && c.vector != 2 && c.vector != 4 && c.vector != 8) return "vector must be 1, 2, 4 or 8";
  if (is_skinny(c.math)) {
    if (const auto why = detail::invalid_skinny_reason(c)) return why;
  } else if (c.math == gemm_math::wgmma) {
    if (const auto why = detail::invalid_wgmma_reason(c)) return why;
  } else if (c.math == gemm_math::matrix_core) {
    if (c.warp_m <= 0 || c.warp_n <= 0) return "matrix-core configs need positive warp_m and warp_n";
    if (c.warp_m % 32 != 0 || c.warp_n % 32 != 0) return "warp_m and warp_n must be multiples of 32";
    if (c.block_m % c.warp_m != 0 || c.block_n % c.warp_n != 0) {
      return "block_m/block_n must be multiples of warp_m/warp_n";
    }
    if (c.block_k % 32 != 0) return "block_k must be a multiple of 32 on matrix cores";
    if (c.warp_m * c.warp_n > 64 * 64) return "warp tiles above 64 x 64 would not fit the registers";
    if (c.warps() < 1 || c.warps() > 8) return "1 to 8 warps per block";
    if (c.stages < 2 || c.stages > 8) return "stages must be 2 to 8 on matrix cores";
    if (c.shared_bytes() > 227 * 1024) return "shared memory above the 227 KiB an NVIDIA block may use";
    if (c.amd_lds_bytes() > 64 * 1024) return "LDS above the 64 KiB of an AMD workgroup";
  } else {
    if (c.thread_m <= 0 || c.thread_n <= 0) return "every field must be positive";
    if (c.thread_m % 4 != 0 || c.thread_n % 4 != 0) return "thread_m and thread_n must be multiples of 4";
    if (c.block_m % c.thread_m != 0) return "block_m must be a multiple of thread_m";
    if (c.block_n % c.thread_n != 0) return "block_n must be a multiple of thread_n";
    if (c.threads() % 64 != 0 || c.threads() > 1024) return "threads per block must be a multiple of 64, at most 1024";
    if (c.stages != 2) return "the SIMT path is double-buffered: stages must be 2";
    if (c.shared_bytes() > 64 * 1024) return "shared memory above the 64 KiB of an AMD workgroup";
    if (c.thread_m * c.thread_n > 128) return "more than 128 accumulators per thread would spill";
  }
  if (c.register_estimate() > 255) return "more than 255 registers per thread (estimate)";
  return std::nullopt;
}

/// @brief True when the configuration meets every rule of invalid_reason().
[[nodiscard]] constexpr bool is_valid(const gemm_config& c) noexcept { return !invalid_reason(c).has_value(); }

/// @brief Checks a configuration before it is rendered.
/// @throws config_error carrying the configuration and the rule it breaks (see invalid_reason()).
void validate(const gemm_config& c);

/// @brief Problem-level options of the GEMM (baked into the source, not tuned).
///
/// Inputs after X and W, in this order: Bias when the template has one more input than needed for
/// X, W and (when `residual`) Residual; then Residual.
struct gemm_options {
  activation act = activation::none;  ///< applied to alpha * X @ W + beta * Bias
  float alpha = 1.0F;                 ///< scale of X @ W
  float beta = 1.0F;                  ///< scale of Bias (addmm's beta * input)
  bias_dim bias_along = bias_dim::n;  ///< which dimension a rank-1 Bias or Residual runs along
  bool residual = false;              ///< the last input is added after the activation
  bool runtime_split_k = false;       ///< entry point takes `int32_t split_k`; configs may split K
};

/// @brief Checks the options before a policy keeps them: alpha and beta are rendered into the
/// kernels as float literals, so they must be finite (no literal spells NaN or an infinity).
/// @throws config_error naming the field and its value (`alpha=nan: alpha must be a finite number ...`).
void validate(const gemm_options& o);

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/config-inl.hpp>
#endif

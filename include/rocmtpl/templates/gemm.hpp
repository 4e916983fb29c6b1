// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief gemm_policy: the GEMM template family, Y = act(alpha * X @ W + beta * Bias) + Residual.
///
/// Inputs in template order: X [M, K] or [B, M, K], W [K, N] or [B, K, N], then optionally Bias and
/// Residual (see gemm_options). Any strides and offsets, static or symbolic sizes, fp32
/// accumulation; f32, f16 and bf16 operands, epilogue inputs and output (the output dtype is a
/// free cast). Two math paths from one policy:
/// - `gemm_math::simt`: fp32 FMA register tiles, any dtypes (the fp32 path; no TF32);
/// - `gemm_math::matrix_core`: X and W both f16 or both bf16, on mma.sync (NVIDIA sm_80+, cp.async
///   multi-stage pipeline, ldmatrix) or MFMA (AMD gfx90a, gfx940), chosen in the rendered source by
///   `ROCMTPL_PLATFORM_NVIDIA` / `ROCMTPL_PLATFORM_AMD`.
/// The addmm order [Bias, X, W] is input_reorder {2, 0, 1}. With gemm_options::runtime_split_k the
/// entry point takes `int32_t split_k` and asks for an fp32 workspace when it is above 1.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/cartesian_product.hpp>
#include <range/v3/view/concat.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/error.hpp>
#include <rocmtpl/rocm_kernel.hpp>
#include <rocmtpl/templates/gemm_device.hpp>

namespace rocmtpl::templates {

/// @brief Elementwise function applied after the bias.
enum class activation { none, relu, gelu, silu, sigmoid };

/// @brief Name of an activation ("none", "relu", ...).
[[nodiscard]] constexpr std::string_view to_string(activation a) noexcept {
  switch (a) {
    case activation::relu: return "relu";
    case activation::gelu: return "gelu";
    case activation::silu: return "silu";
    case activation::sigmoid: return "sigmoid";
    case activation::none: break;
  }
  return "none";
}

/// @brief The device function `float apply_activation(float)` generated kernels call for `a`.
[[nodiscard]] inline std::string activation_device_function(activation a) {
  std::string body;
  switch (a) {
    case activation::none: body = "return v;"; break;
    case activation::relu: body = "return v > 0.0f ? v : 0.0f;"; break;
    case activation::gelu: body = "return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));"; break;
    case activation::silu: body = "return v / (1.0f + expf(-v));"; break;
    case activation::sigmoid: body = "return 1.0f / (1.0f + expf(-v));"; break;
  }
  return "__device__ __forceinline__ float apply_activation(float v) { " + body + " }";
}

/// @brief Parses an activation name.
/// @throws invalid_argument_error naming the text and the accepted names.
[[nodiscard]] inline activation parse_activation(std::string_view text) {
  for (auto a : {activation::none, activation::relu, activation::gelu, activation::silu, activation::sigmoid}) {
    if (to_string(a) == text) return a;
  }
  throw invalid_argument_error("rocmtpl: gemm: unknown activation '" + std::string(text) +
                               "'; expected none, relu, gelu, silu or sigmoid");
}

/// @brief Which units do the multiply-adds.
enum class gemm_math {
  simt,         ///< fp32 FMA on every dtype
  matrix_core,  ///< mma.sync (NVIDIA) / MFMA (AMD); f16 or bf16 X and W, fp32 accumulation
};

/// @brief "simt" or "matrix_core".
[[nodiscard]] constexpr std::string_view to_string(gemm_math m) noexcept {
  return m == gemm_math::simt ? std::string_view("simt") : std::string_view("matrix_core");
}

/// @brief Which output dimension a rank-1 Bias (or Residual) runs along.
enum class bias_dim {
  n,  ///< [N]: one value per column, the same vector added to every row (nn.Linear)
  m,  ///< [M]: one value per row, broadcast along the columns
};

/// @brief Tunable tiling of the GEMM: a structural aggregate, usable as an NTTP and as a value.
///
/// The first six fields keep the order of the original SIMT tiling, so `gemm_config{64, 64, 16, 4,
/// 4, 8}` is the SIMT default. Matrix-core configurations set `math`, `warp_m` and `warp_n`
/// (thread_m and thread_n are unused there and 0).
struct gemm_config {
  int block_m = 64;                   ///< rows of Y per block
  int block_n = 64;                   ///< columns of Y per block
  int block_k = 16;                   ///< K step held in shared memory
  int thread_m = 4;                   ///< SIMT: rows of Y per thread (multiple of 4)
  int thread_n = 4;                   ///< SIMT: columns of Y per thread (multiple of 4)
  int group_m = 8;                    ///< blocks grouped along M for L2 reuse (1: row-major block order)
  gemm_math math = gemm_math::simt;   ///< math path
  int warp_m = 0;                     ///< matrix cores: rows of Y per warp (multiple of 32)
  int warp_n = 0;                     ///< matrix cores: columns of Y per warp (multiple of 32)
  int stages = 2;                     ///< shared-memory buffers in the K pipeline (SIMT: 2)
  int vector = 4;                     ///< elements per global load on the fast path (1, 2, 4 or 8; at most 16 bytes)
  int split_k = 1;                    ///< K slices (above 1 only with gemm_options::runtime_split_k)

  /// @brief Warps per block (SIMT: threads / 32).
  [[nodiscard]] constexpr int warps() const noexcept {
    if (math == gemm_math::matrix_core) {
      return warp_m > 0 && warp_n > 0 ? (block_m / warp_m) * (block_n / warp_n) : 0;
    }
    return threads() / 32;
  }
  /// @brief Threads per block on NVIDIA (32-thread warps); AMD matrix-core blocks have 64-thread waves.
  [[nodiscard]] constexpr int threads() const noexcept {
    if (math == gemm_math::matrix_core) return 32 * warps();
    return thread_m > 0 && thread_n > 0 ? (block_m / thread_m) * (block_n / thread_n) : 0;
  }
  /// @brief Shared memory per block in bytes on NVIDIA (dynamic; matrix cores: `stages` buffers of
  /// 16-bit tiles; SIMT: two buffers of fp32 tiles, each padded by 4 columns).
  [[nodiscard]] constexpr int shared_bytes() const noexcept {
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

  /// @brief Designated-initializer text: `{.block_m = 64, .block_n = 64, ...}`.
  [[nodiscard]] std::string to_string() const {
    return "{.block_m = " + std::to_string(block_m) + ", .block_n = " + std::to_string(block_n) +
           ", .block_k = " + std::to_string(block_k) + ", .thread_m = " + std::to_string(thread_m) +
           ", .thread_n = " + std::to_string(thread_n) + ", .group_m = " + std::to_string(group_m) +
           ", .math = gemm_math::" + std::string(templates::to_string(math)) + ", .warp_m = " + std::to_string(warp_m) +
           ", .warp_n = " + std::to_string(warp_n) + ", .stages = " + std::to_string(stages) +
           ", .vector = " + std::to_string(vector) + ", .split_k = " + std::to_string(split_k) + "}";
  }
  /// @brief Short deterministic identifier: `bm64_bn64_bk16_tm4_tn4_g8_s2_v4` (SIMT),
  /// `mma_bm128_bn128_bk32_wm64_wn64_g8_s4_v8` (matrix cores); `_sk<n>` when K is split.
  [[nodiscard]] std::string name() const {
    std::string s = math == gemm_math::matrix_core ? "mma_" : "";
    s += "bm" + std::to_string(block_m) + "_bn" + std::to_string(block_n) + "_bk" + std::to_string(block_k);
    if (math == gemm_math::matrix_core) {
      s += "_wm" + std::to_string(warp_m) + "_wn" + std::to_string(warp_n);
    } else {
      s += "_tm" + std::to_string(thread_m) + "_tn" + std::to_string(thread_n);
    }
    s += "_g" + std::to_string(group_m) + "_s" + std::to_string(stages) + "_v" + std::to_string(vector);
    if (split_k != 1) s += "_sk" + std::to_string(split_k);
    return s;
  }

  friend constexpr bool operator==(const gemm_config&, const gemm_config&) = default;
  friend constexpr auto operator<=>(const gemm_config&, const gemm_config&) = default;
};

/// @brief (field, value) pairs of a configuration, for info_dict and reports.
[[nodiscard]] inline std::vector<std::pair<std::string, std::string>> describe(const gemm_config& c) {
  std::vector<std::pair<std::string, std::string>> d{{"math", std::string(to_string(c.math))},
                                                      {"block_m", std::to_string(c.block_m)},
                                                      {"block_n", std::to_string(c.block_n)},
                                                      {"block_k", std::to_string(c.block_k)}};
  if (c.math == gemm_math::matrix_core) {
    d.emplace_back("warp_m", std::to_string(c.warp_m));
    d.emplace_back("warp_n", std::to_string(c.warp_n));
  } else {
    d.emplace_back("thread_m", std::to_string(c.thread_m));
    d.emplace_back("thread_n", std::to_string(c.thread_n));
  }
  d.emplace_back("group_m", std::to_string(c.group_m));
  d.emplace_back("stages", std::to_string(c.stages));
  d.emplace_back("vector", std::to_string(c.vector));
  d.emplace_back("split_k", std::to_string(c.split_k));
  return d;
}

/// @brief Why a configuration is invalid, or empty when it is valid. Value rules checked before
/// rendering: divisibility, threads per block, NVIDIA shared memory (227 KiB; SIMT 48 KiB static),
/// AMD LDS (64 KiB), a register estimate (255 per thread).
[[nodiscard]] inline std::string validate(const gemm_config& c) {
  const bool positive = c.block_m > 0 && c.block_n > 0 && c.block_k > 0 && c.group_m > 0 && c.stages > 0 &&
                        c.vector > 0 && c.split_k > 0;
  if (!positive) return "every field must be positive";
  if (c.vector != 1 && c.vector != 2 && c.vector != 4 && c.vector != 8) return "vector must be 1, 2, 4 or 8";
  if (c.math == gemm_math::matrix_core) {
    if (c.warp_m <= 0 || c.warp_n <= 0) return "matrix-core configs need positive warp_m and warp_n";
    if (c.warp_m % 32 != 0 || c.warp_n % 32 != 0) return "warp_m and warp_n must be multiples of 32";
    if (c.block_m % c.warp_m != 0 || c.block_n % c.warp_n != 0) return "block_m/block_n must be multiples of warp_m/warp_n";
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
  return {};
}

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

namespace detail {

// One tensor seen as (batch, rows, cols) of the GEMM, strides 0 where it broadcasts.
struct gemm_operand {
  const buffer* node = nullptr;
  sym_expr stride_b{0};
  sym_expr stride_r{0};
  sym_expr stride_c{0};
  sym_expr offset{0};
};

// The problem a template context describes, checked.
struct gemm_view {
  gemm_operand x;         // rows M, cols K
  gemm_operand w;         // rows K, cols N
  gemm_operand bias;      // rows M, cols N (node may be null)
  gemm_operand residual;  // rows M, cols N (node may be null)
  gemm_operand y;         // rows M, cols N
  sym_expr m{0};
  sym_expr n{0};
  sym_expr k{0};
  sym_expr batch{1};

  [[nodiscard]] bool matrix_core_eligible() const {
    const auto t = x.node->type();
    return t == w.node->type() && (t == dtype::f16 || t == dtype::bf16);
  }
};

// Operand facts for the copy paths: the stride along M/N and along K, which is statically 1,
// and the values that must be multiples of the vector width for the fast path.
struct gemm_copy_facts {
  sym_expr mn_stride{0};
  sym_expr k_stride{0};
  bool k_contiguous = false;
  bool mn_contiguous = false;
  bool k_major = true;  // tile order: along K unless only M/N is contiguous
  bool fast_copy = false;  // a contiguous axis exists
  std::vector<sym_expr> alignment_terms;  // other stride, batch stride, offset

  [[nodiscard]] std::optional<bool> statically_aligned(std::int64_t vec) const {
    bool all_static = true;
    for (const auto& t : alignment_terms) {
      if (auto c = t.constant()) {
        if (*c % vec != 0) return false;
      } else {
        all_static = false;
      }
    }
    if (all_static) return true;
    return std::nullopt;
  }
  [[nodiscard]] bool aligned_with(std::int64_t vec, const size_hints& hints) const {
    for (const auto& t : alignment_terms) {
      try {
        if (t.evaluate(hints) % vec != 0) return false;
      } catch (const evaluation_error&) {
        // unknown value: the entry point checks at run time
      }
    }
    return true;
  }
};

inline gemm_copy_facts copy_facts(const gemm_operand& op, bool rows_are_k) {
  gemm_copy_facts f;
  f.mn_stride = rows_are_k ? op.stride_c : op.stride_r;
  f.k_stride = rows_are_k ? op.stride_r : op.stride_c;
  f.k_contiguous = f.k_stride == sym_expr(1);
  f.mn_contiguous = f.mn_stride == sym_expr(1);
  f.k_major = f.k_contiguous || !f.mn_contiguous;
  f.fast_copy = f.k_major ? f.k_contiguous : f.mn_contiguous;
  f.alignment_terms = {f.k_major ? f.mn_stride : f.k_stride, op.stride_b, op.offset};
  return f;
}

inline int dtype_kind(dtype t) { return t == dtype::f32 ? 0 : (t == dtype::f16 ? 1 : 2); }

// Best-effort value of a size for ranking: static value, else the hint, else `fallback`.
inline std::int64_t size_value(const sym_expr& e, const size_hints& hints, std::int64_t fallback) {
  if (auto c = e.constant()) return *c;
  try {
    return e.evaluate(hints);
  } catch (const evaluation_error&) {
    return fallback;
  }
}

}  // namespace detail

/// @brief The GEMM kernel_template policy (SIMT and matrix-core paths, fused epilogues).
class gemm_policy {
 public:
  using policy_concept = kernel_template_tag;
  using config_type = gemm_config;

  explicit gemm_policy(gemm_options options = {}) : options_(options) {}

  [[nodiscard]] static std::string_view name() noexcept { return "gemm"; }
  [[nodiscard]] const gemm_options& options() const noexcept { return options_; }

  /// @brief The SIMT search space (range-v3 product of tile values, filtered by validate()).
  [[nodiscard]] static std::vector<gemm_config> simt_configs() {
    static constexpr std::pair<int, int> blocks[] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 128}};
    static constexpr int ks[] = {8, 16};
    static constexpr std::pair<int, int> per_thread[] = {{4, 4}, {4, 8}, {8, 4}, {8, 8}, {8, 16}, {16, 8}};
    namespace rv = ranges::views;
    auto space = rv::cartesian_product(blocks, ks, per_thread) | rv::transform([](const auto& t) {
                   const auto& [b, bk, tt] = t;
                   gemm_config c;
                   c.block_m = b.first;
                   c.block_n = b.second;
                   c.block_k = bk;
                   c.thread_m = tt.first;
                   c.thread_n = tt.second;
                   c.group_m = 8;
                   c.stages = 2;
                   c.vector = 4;
                   return c;
                 }) |
                 rv::filter([](const gemm_config& c) {
                   return validate(c).empty() && c.threads() >= 64 && c.threads() <= 256;
                 });
    return space | ranges::to<std::vector>();
  }

  /// @brief The matrix-core search space (block tile, warp tile, K step, stages), filtered by validate().
  [[nodiscard]] static std::vector<gemm_config> matrix_core_configs() {
    static constexpr std::pair<int, int> blocks[] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 128}};
    static constexpr std::pair<int, int> warps[] = {{64, 64}, {32, 64}, {64, 32}, {32, 32}};
    static constexpr std::pair<int, int> k_stages[] = {{32, 3}, {32, 4}, {64, 3}};
    namespace rv = ranges::views;
    auto space = rv::cartesian_product(blocks, warps, k_stages) | rv::transform([](const auto& t) {
                   const auto& [b, w, ks] = t;
                   gemm_config c;
                   c.math = gemm_math::matrix_core;
                   c.block_m = b.first;
                   c.block_n = b.second;
                   c.warp_m = w.first;
                   c.warp_n = w.second;
                   c.block_k = ks.first;
                   c.stages = ks.second;
                   c.thread_m = 0;
                   c.thread_n = 0;
                   c.group_m = 8;
                   c.vector = 8;
                   return c;
                 }) |
                 rv::filter([](const gemm_config& c) { return validate(c).empty() && c.warps() >= 4; });
    return space | ranges::to<std::vector>();
  }

  /// @brief Every configuration, without problem knowledge: the SIMT space, then the matrix-core one.
  [[nodiscard]] std::vector<gemm_config> configs() const {
    auto out = simt_configs();
    auto mc = matrix_core_configs();
    out.insert(out.end(), mc.begin(), mc.end());
    return out;
  }

  /// @brief The search space for one problem, best first.
  ///
  /// Keeps the path the dtypes call for (matrix cores for f16/bf16 X and W, else SIMT), sets each
  /// configuration's vector width to the widest the layouts (and for symbolic values the hints)
  /// allow, adds split-K variants when gemm_options::runtime_split_k is on, and orders everything
  /// by an analytic cost model: wave quantization and tile padding on an H100-sized GPU (132 SMs),
  /// residency from the shared-memory, thread and register estimates, tile efficiency.
  /// @param ctx the template's inputs and output
  /// @param hints values of size symbols (missing ones count as 1024)
  /// @throws invalid_argument_error when the problem is malformed (see render()).
  [[nodiscard]] std::vector<gemm_config> configs(const template_context& ctx, const size_hints& hints) const {
    const auto v = view(ctx);
    const bool mc = v.matrix_core_eligible();
    auto base = mc ? matrix_core_configs() : simt_configs();
    const auto fx = detail::copy_facts(v.x, false);
    const auto fw = detail::copy_facts(v.w, true);
    // Widest vector an operand's layout (and hints) allow; operands without a contiguous axis
    // always copy element by element and do not limit the other one.
    const auto widest = [&](int limit, const detail::gemm_copy_facts& f, std::size_t esize) {
      const int cap = std::min<int>(limit, static_cast<int>(16 / esize));
      if (!f.fast_copy) return cap;
      for (int vec = cap; vec > 1; vec /= 2) {
        const auto s = f.statically_aligned(vec);
        if ((!s.has_value() || *s) && f.aligned_with(vec, hints)) return vec;
      }
      return 1;
    };
    const std::int64_t m = detail::size_value(v.m, hints, 1024);
    const std::int64_t n = detail::size_value(v.n, hints, 1024);
    const std::int64_t k = detail::size_value(v.k, hints, 1024);
    const std::int64_t b = detail::size_value(v.batch, hints, 1);
    std::vector<std::pair<double, gemm_config>> ranked;
    for (auto c : base) {
      const int vx = widest(c.vector, fx, element_size(v.x.node->type()));
      const int vw = widest(c.vector, fw, element_size(v.w.node->type()));
      c.vector = std::min(vx, vw);
      ranked.emplace_back(estimate_cost(c, m, n, k, b), c);
      if (options_.runtime_split_k) {
        for (int s : {2, 4, 8, 16}) {
          auto cs = c;
          cs.split_k = s;
          if (k / s < 2 * c.block_k) break;
          ranked.emplace_back(estimate_cost(cs, m, n, k, b), cs);
        }
      }
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
    std::vector<gemm_config> out;
    out.reserve(ranked.size());
    for (const auto& r : ranked) {
      if (std::find(out.begin(), out.end(), r.second) == out.end()) out.push_back(r.second);
    }
    return out;
  }

  /// @brief Estimated time of a configuration for an M x N x K problem (batch `batch`), in
  /// arbitrary units; only the order matters. Public for tests and tools.
  [[nodiscard]] static double estimate_cost(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch) {
    constexpr double sms = 132;
    const auto cdiv = [](double a, double b) { return std::ceil(a / b); };
    const double tiles_mn = cdiv(static_cast<double>(std::max<std::int64_t>(m, 1)), c.block_m) *
                            cdiv(static_cast<double>(std::max<std::int64_t>(n, 1)), c.block_n) *
                            static_cast<double>(std::max<std::int64_t>(batch, 1));
    const double tiles = tiles_mn * c.split_k;
    const double k_steps = cdiv(cdiv(static_cast<double>(std::max<std::int64_t>(k, 1)), c.block_k), c.split_k);
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

  /// @brief Runtime arguments: `int32_t split_k` with gemm_options::runtime_split_k, else none.
  [[nodiscard]] std::vector<arg_info> runtime_arg_info() const {
    if (!options_.runtime_split_k) return {};
    return {arg_info{"split_k", "int32_t"}};
  }

  /// @brief The configuration's split_k when it is a runtime argument.
  [[nodiscard]] std::vector<runtime_arg_value> runtime_arg_values(const gemm_config& config) const {
    if (!options_.runtime_split_k) return {};
    return {config.split_k};
  }

  /// @brief Renders the complete translation unit for one configuration.
  /// @throws invalid_argument_error for an invalid configuration, a matrix-core configuration on
  /// dtypes other than f16/bf16 X and W, split_k above 1 without runtime split-K, inputs of the
  /// wrong rank, mismatched K, batch or output shape, or an unsupported dtype.
  [[nodiscard]] std::string render(rocm_template_kernel& kernel, const template_context& ctx,
                                   const gemm_config& config) const {
    if (auto why = validate(config); !why.empty()) {
      throw invalid_argument_error("rocmtpl: gemm: invalid config " + config.to_string() + ": " + why);
    }
    const auto v = view(ctx);
    const bool mc = config.math == gemm_math::matrix_core;
    if (mc && !v.matrix_core_eligible()) {
      throw invalid_argument_error("rocmtpl: gemm: matrix-core config " + config.name() +
                                   " needs X and W of one dtype, float16 or bfloat16; got " +
                                   std::string(rocmtpl::name(v.x.node->type())) + " and " +
                                   std::string(rocmtpl::name(v.w.node->type())) + "; use a simt config");
    }
    if (config.split_k != 1 && !options_.runtime_split_k) {
      throw invalid_argument_error("rocmtpl: gemm: config " + config.name() +
                                   " splits K but gemm_options::runtime_split_k is off; turn it on");
    }
    const std::string signature = bind(kernel, ctx, v);
    const auto symbols = kernel.args().size_params();
    const bool split = options_.runtime_split_k;

    // Vector widths per operand: the config's, capped at 16 bytes and at what the static layout allows.
    const auto fx = detail::copy_facts(v.x, false);
    const auto fw = detail::copy_facts(v.w, true);
    const auto vector_for = [&](const detail::gemm_copy_facts& f, dtype t) {
      if (!f.fast_copy) return 1;
      int vec = std::min<int>(config.vector, static_cast<int>(16 / element_size(t)));
      while (vec > 1 && f.statically_aligned(vec) == std::optional<bool>(false)) vec /= 2;
      return vec;
    };
    const int va = vector_for(fx, v.x.node->type());
    const int vb = vector_for(fw, v.w.node->type());
    const bool fast = va > 1 || vb > 1;
    // Alignment that depends on size symbols is checked at run time, with a one-element fallback.
    const bool needs_fallback = (va > 1 && !fx.statically_aligned(va).has_value()) ||
                                (vb > 1 && !fw.statically_aligned(vb).has_value());

    indented_buffer src;
    src.reserve(48 * 1024);
    src.write_verbatim(ctx.header());
    src.writeline("");
    src.write_verbatim(ctx.globals());
    src.writeline("");
    src.writeline("// gemm " + config.name() + ": " + formula(v));
    for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) {
      if (op->node != nullptr) src.writeline("// " + op->node->name() + " " + op->node->get_layout().to_string());
    }
    src.writeline("namespace {");
    src.writeline("");
    write_prelude(src, v, symbols);
    src.writeline("");
    src.writeline("constexpr int block_m = " + std::to_string(config.block_m) + ";");
    src.writeline("constexpr int block_n = " + std::to_string(config.block_n) + ";");
    src.writeline("constexpr int block_k = " + std::to_string(config.block_k) + ";");
    if (mc) {
      src.writeline("constexpr int warp_m = " + std::to_string(config.warp_m) + ";");
      src.writeline("constexpr int warp_n = " + std::to_string(config.warp_n) + ";");
    } else {
      src.writeline("constexpr int thread_m = " + std::to_string(config.thread_m) + ";");
      src.writeline("constexpr int thread_n = " + std::to_string(config.thread_n) + ";");
    }
    src.writeline("constexpr int group_m = " + std::to_string(config.group_m) + ";");
    src.writeline("[[maybe_unused]] constexpr int stages = " + std::to_string(config.stages) + ";");
    src.writeline("[[maybe_unused]] constexpr bool x_k_contiguous = " + bool_text(fx.k_contiguous) + ";");
    src.writeline("[[maybe_unused]] constexpr bool x_m_contiguous = " + bool_text(fx.mn_contiguous) + ";");
    src.writeline("[[maybe_unused]] constexpr bool x_k_major = " + bool_text(fx.k_major) + ";");
    src.writeline("[[maybe_unused]] constexpr bool w_k_contiguous = " + bool_text(fw.k_contiguous) + ";");
    src.writeline("[[maybe_unused]] constexpr bool w_n_contiguous = " + bool_text(fw.mn_contiguous) + ";");
    src.writeline("[[maybe_unused]] constexpr bool w_k_major = " + bool_text(fw.k_major) + ";");
    src.writeline("");
    src.write_verbatim(detail::gemm_common_text);
    src.writeline("");
    src.write_verbatim(mc ? detail::gemm_matrix_core_text : detail::gemm_simt_text);
    src.writeline("");

    // Kernel parameters: the tensors, the split-K partials, every size symbol, split_k.
    const auto tensors = tensor_params(v, true);
    std::string params = tensors.first + (split ? ", float* __restrict__ Partial" : "");
    std::string args = tensors.second + (split ? ", Partial" : "");
    std::string sym_params;
    std::string sym_args;
    for (const auto& s : symbols) {
      sym_params += ", int64_t " + s;
      sym_args += (sym_args.empty() ? "" : ", ") + s;
    }
    params += sym_params + (split ? ", int32_t split_k" : "");
    args += (symbols.empty() ? "" : ", " + sym_args) + (split ? ", split_k" : "");
    const std::string pointers = pointer_init(v, split ? "Partial" : "nullptr");

    // NVIDIA: blocks per SM the register budget must allow. Matrix cores: 1, so ptxas uses what
    // the accumulators need (with the thread count alone it capped small tiles at 72 registers and
    // spilled; CUDA 13.0, sm_90). SIMT: 2 when the estimate leaves room (ptxas then keeps 128x128
    // 8x8 tiles at 128 registers, two blocks per SM), else 1. AMD: the thread count only (a
    // minimum there halves the VGPR budget of one-wave blocks).
    const int min_blocks =
        mc ? 1 : std::clamp(65536 / (std::max(config.threads(), 32) * config.register_estimate()), 1, 2);
    src.writeline("#if defined(ROCMTPL_PLATFORM_NVIDIA)");
    src.writeline("#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads, " + std::to_string(min_blocks) + ")");
    src.writeline("#else");
    src.writeline("#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads)");
    src.writeline("#endif");
    src.writeline("template <int VecA, int VecB>");
    src.writeline("__global__ void ROCMTPL_GEMM_LAUNCH_BOUNDS gemm_kernel(" + params + ") {");
    src.writeline("    const gemm_problem p = make_problem(" + sym_args + ");");
    src.writeline("    const gemm_pointers t" + pointers + ";");
    src.writeline(std::string("    gemm_mainloop<VecA, VecB>(p, t, ") + (split ? "split_k" : "1") + ");");
    src.writeline("}");
    src.writeline("");
    if (split) {
      src.writeline("// Split-K: sums the fp32 partials of every slice and applies the epilogue.");
      src.writeline("__global__ void __launch_bounds__(256) gemm_split_k_reduce(" + params + ") {");
      // Pre-indented fragment (written verbatim: rendering speed).
src.write_verbatim(R"(    const gemm_problem p = make_problem()" + sym_args + R"();
    const gemm_pointers t)" + pointers + R"(;
    const int64_t mn = p.m_size * p.n_size;
    const int64_t total = p.batch * mn;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += step) {
        float sum = 0.0f;
        for (int z = 0; z < split_k; ++z) sum += Partial[z * total + idx];
        const int64_t rest = idx % mn;
        store_output(p, t, idx / mn, rest / p.n_size, rest % p.n_size, sum);
    }
}
)");
      src.writeline("");
    }
    src.writeline("template <int VecA, int VecB>");
    src.writeline("hipError_t gemm_launch(dim3 grid, hipStream_t stream, " + params + ") {");
    {
      auto body = src.indent();
      // Pre-indented fragment (written verbatim: rendering speed).
src.write_verbatim(R"(    #if defined(ROCMTPL_PLATFORM_NVIDIA)
    // Above 48 KiB of dynamic shared memory a kernel must opt in.
    if (gemm_dynamic_shared > 48 * 1024) {
        const hipError_t e = hipFuncSetAttribute(reinterpret_cast<const void*>(&gemm_kernel<VecA, VecB>),
                                                 hipFuncAttributeMaxDynamicSharedMemorySize, gemm_dynamic_shared);
        if (e != hipSuccess) return e;
    }
    #endif
)");
    }
    src.writeline("    gemm_kernel<VecA, VecB><<<grid, dim3(block_threads), gemm_dynamic_shared, stream>>>(" + args + ");");
    src.writeline("    return hipGetLastError();");
    src.writeline("}");
    src.writeline("");
    // Pre-indented fragment (written verbatim: rendering speed).
src.write_verbatim(R"(// Fast-path alignment: pointer (with its offset) and strides are multiples of the vector width.
template <class T>
bool gemm_aligned(const T* ptr, int64_t vec, int64_t a, int64_t b, int64_t c) {
    return reinterpret_cast<uintptr_t>(ptr) % (static_cast<uintptr_t>(vec) * sizeof(T)) == 0 && a % vec == 0 &&
           b % vec == 0 && c % vec == 0;
}
)");
    src.writeline("");
    src.writeline("}  // namespace");
    src.writeline("");

    src.writeline(signature + " {");
    {
      auto body = src.indent();
      for (const auto& s : symbols) src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
      if (split) {
        src.writeline("if (split_k < 1 || split_k > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
      } else {
        src.writeline("constexpr int32_t split_k = 1;");
      }
      src.writeline("const gemm_problem p = make_problem(" + sym_args + ");");
      // Pre-indented fragment (written verbatim: rendering speed).
src.write_verbatim(R"(    const size_t partial_bytes =
        split_k > 1 ? static_cast<size_t>(split_k) * static_cast<size_t>(p.batch * p.m_size * p.n_size) * sizeof(float) : 0;
    if (workspace_size) {
        *workspace_size = partial_bytes;
        return ROCMTPL_STATUS_OK;
    }
)");
      for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) src.write_lines(kernel.check_not_null(op->node));
      // Pre-indented fragment (written verbatim: rendering speed).
src.write_verbatim(R"(    if (p.m_size == 0 || p.n_size == 0 || p.batch == 0) return ROCMTPL_STATUS_OK;
    if (partial_bytes > 0 && workspace == nullptr) return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;
    const int64_t tiles = gemm_cdiv(p.m_size, block_m) * gemm_cdiv(p.n_size, block_n);
    if (tiles > 2147483647 || p.batch > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(p.batch), static_cast<unsigned>(split_k));
)");
      if (split) {
        src.writeline("float* const Partial = reinterpret_cast<float*>(workspace);");
      } else {
        src.writeline("(void)workspace;");
      }
      const std::string launch_args = "grid, stream, " + args;
      const auto launch = [&](int a, int b) {
        return "gemm_launch<" + std::to_string(a) + ", " + std::to_string(b) + ">(" + launch_args + ")";
      };
      if (!fast) {
        src.writeline("const hipError_t err = " + launch(1, 1) + ";");
      } else {
        std::string cond;
        auto add = [&](const std::string& ptr, const detail::gemm_copy_facts& f, const std::string& prefix, int vec) {
          if (vec == 1) return;
          const std::string other = f.k_major ? (prefix == "x" ? "p.x_stride_m" : "p.w_stride_n")
                                              : (prefix == "x" ? "p.x_stride_k" : "p.w_stride_k");
          cond += std::string(cond.empty() ? "" : " && ") + "gemm_aligned(" + ptr + ", " + std::to_string(vec) +
                  ", p." + prefix + "_offset, " + other + ", p." + prefix + "_stride_b)";
        };
        add("X", fx, "x", va);
        add("W", fw, "w", vb);
        src.writeline("const bool fast = " + cond + ";");
        if (needs_fallback) {
          src.writeline("const hipError_t err = fast ? " + launch(va, vb) + " : " + launch(1, 1) + ";");
        } else {
          src.writeline("// Static strides are aligned; only a misaligned pointer misses the fast path.");
          src.writeline("if (!fast) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
          src.writeline("const hipError_t err = " + launch(va, vb) + ";");
        }
      }
      src.writeline("if (err != hipSuccess) return ROCMTPL_STATUS_LAUNCH_FAILED;");
      if (split) {
        // Pre-indented fragment (written verbatim: rendering speed).
src.write_verbatim(R"(    if (split_k > 1) {
        const int64_t total = p.batch * p.m_size * p.n_size;
        const int64_t blocks = gemm_cdiv(total, 256) < 65536 ? gemm_cdiv(total, 256) : 65536;
        gemm_split_k_reduce<<<dim3(static_cast<unsigned>(blocks)), dim3(256), 0, stream>>>()" + args + R"();
    }
)");
      }
      src.writeline("return hipGetLastError() == hipSuccess ? ROCMTPL_STATUS_OK : ROCMTPL_STATUS_LAUNCH_FAILED;");
    }
    src.writeline("}");
    return std::move(src).str();
  }

  /// @brief The reference kernel: one thread per output, double accumulation, the same entry point
  /// (no runtime arguments) and epilogue. Trusted because it is simple; the autotuner verifies
  /// every candidate against it.
  [[nodiscard]] std::string render_reference(rocm_template_kernel& kernel, const template_context& ctx) const {
    const auto v = view(ctx);
    const std::string signature = bind(kernel, ctx, v);
    const auto symbols = kernel.args().size_params();
    const auto tensors = tensor_params(v, false);
    std::string params = tensors.first;
    std::string args = tensors.second;
    for (const auto& s : symbols) {
      params += ", int64_t " + s;
      args += ", " + s;
    }
    indented_buffer src;
    src.write_verbatim(ctx.header());
    src.writeline("");
    src.write_verbatim(ctx.globals());
    src.writeline("");
    src.writeline("// gemm reference: one thread per output, double accumulation; " + formula(v));
    src.writeline("namespace {");
    src.writeline(activation_function());
    src.writeline("__global__ void gemm_reference_kernel(" + params + ") {");
    {
      auto body = src.indent();
      auto line = [&](const std::string& n, const sym_expr& e) { src.writeline("const int64_t " + n + " = " + e.to_cpp() + ";"); };
      line("m_size", v.m);
      line("n_size", v.n);
      line("k_size", v.k);
      line("batch", v.batch);
      src.writeline("const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;");
      src.writeline("if (idx >= batch * m_size * n_size) return;");
      src.writeline("const int64_t b = idx / (m_size * n_size);");
      src.writeline("const int64_t gm = (idx / n_size) % m_size;");
      src.writeline("const int64_t gn = idx % n_size;");
      src.writeline("double acc = 0.0;");
      src.writeline("for (int64_t k = 0; k < k_size; ++k) {");
      src.writeline("    acc += static_cast<double>(" + ref_load(v.x, "X", "gm", "k") + ") * static_cast<double>(" +
                    ref_load(v.w, "W", "k", "gn") + ");");
      src.writeline("}");
      src.writeline("double d = " + double_literal(options_.alpha) + " * acc;");
      if (v.bias.node != nullptr) {
        src.writeline("d += " + double_literal(options_.beta) + " * static_cast<double>(" + ref_load(v.bias, "Bias", "gm", "gn") + ");");
      }
      src.writeline("float r = apply_activation(static_cast<float>(d));");
      if (v.residual.node != nullptr) src.writeline("r += " + ref_load(v.residual, "Residual", "gm", "gn") + ";");
      src.writeline(ref_index(v.y, "gm", "gn", "Y") + " = " + ref_store(v.y.node->type(), "r") + ";");
    }
    src.writeline("}");
    src.writeline("}  // namespace");
    src.writeline(signature + " {");
    {
      auto body = src.indent();
      src.writeline("if (workspace_size) { *workspace_size = 0; return ROCMTPL_STATUS_OK; }");
      src.writeline("(void)workspace;");
      for (const auto& s : symbols) src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
      for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) src.write_lines(kernel.check_not_null(op->node));
      src.writeline("const int64_t total = (" + v.batch.to_cpp() + ") * (" + v.m.to_cpp() + ") * (" + v.n.to_cpp() + ");");
      src.writeline("if (total == 0) return ROCMTPL_STATUS_OK;");
      src.writeline("gemm_reference_kernel<<<dim3(static_cast<unsigned>((total + 255) / 256)), dim3(256), 0, stream>>>(" +
                    args + ");");
      src.writeline("return hipGetLastError() == hipSuccess ? ROCMTPL_STATUS_OK : ROCMTPL_STATUS_LAUNCH_FAILED;");
    }
    src.writeline("}");
    return std::move(src).str();
  }

  /// @brief The checked problem of a template context: operands as (batch, rows, cols) with
  /// broadcast strides, and M, N, K, batch.
  /// @throws invalid_argument_error naming the offending tensor and values.
  [[nodiscard]] detail::gemm_view view(const template_context& ctx) const {
    const buffer* x = ctx.input(0);
    const buffer* w = ctx.input(1);
    if (x == nullptr || w == nullptr) {
      throw invalid_argument_error("rocmtpl: gemm: needs inputs X and W, got " + std::to_string(x == nullptr ? 0 : 1) +
                                   " input(s)");
    }
    const std::size_t extra = ctx.input_nodes().size() - 2;
    const std::size_t wanted = options_.residual ? 1 : 0;
    if (extra < wanted || extra > wanted + 1) {
      throw invalid_argument_error("rocmtpl: gemm: got " + std::to_string(ctx.input_nodes().size()) +
                                   " inputs; expected X, W, an optional Bias" +
                                   (options_.residual ? std::string(" and Residual") : std::string()));
    }
    const buffer* bias = extra > wanted ? ctx.input(2) : nullptr;
    const buffer* residual = options_.residual ? ctx.input(ctx.input_nodes().size() - 1) : nullptr;
    const buffer& y = ctx.output_node();
    for (const buffer* b : {x, w, bias, residual, &y}) {
      if (b == nullptr) continue;
      const auto t = b->type();
      if (t != dtype::f32 && t != dtype::f16 && t != dtype::bf16) {
        throw invalid_argument_error("rocmtpl: gemm: " + b->name() + " has dtype " + std::string(rocmtpl::name(t)) +
                                     "; supported: float32, float16, bfloat16");
      }
    }
    const auto rank = [](const buffer& b) { return b.get_layout().rank(); };
    if (rank(y) != 2 && rank(y) != 3) {
      throw invalid_argument_error("rocmtpl: gemm: " + y.name() + " must have rank 2 or 3, got " + y.get_layout().to_string());
    }
    const bool batched = rank(y) == 3;
    for (const buffer* b : {x, w}) {
      if (rank(*b) != 2 && !(batched && rank(*b) == 3)) {
        throw invalid_argument_error("rocmtpl: gemm: " + b->name() + " must have rank " +
                                     (batched ? std::string("2 or 3") : std::string("2")) + ", got " +
                                     b->get_layout().to_string());
      }
    }
    detail::gemm_view v;
    v.batch = batched ? y.sizes()[0] : sym_expr(1);
    const auto& xs = x->sizes();
    const auto& ws = w->sizes();
    v.m = xs[rank(*x) - 2];
    v.k = xs[rank(*x) - 1];
    v.n = ws[rank(*w) - 1];
    if (!(ws[rank(*w) - 2] == v.k)) {
      throw invalid_argument_error("rocmtpl: gemm: K of X (" + v.k.to_string() + ") differs from K of W (" +
                                   ws[rank(*w) - 2].to_string() + ")");
    }
    const auto& ys = y.sizes();
    if (!(ys[rank(y) - 2] == v.m) || !(ys[rank(y) - 1] == v.n)) {
      throw invalid_argument_error("rocmtpl: gemm: output " + y.get_layout().to_string() + " is not [" +
                                   (batched ? v.batch.to_string() + ", " : std::string()) + v.m.to_string() + ", " +
                                   v.n.to_string() + "]");
    }
    v.x = operand(*x, v.batch, v.m, v.k, false);
    v.w = operand(*w, v.batch, v.k, v.n, false);
    v.y = operand(y, v.batch, v.m, v.n, false);
    if (bias != nullptr) v.bias = operand(*bias, v.batch, v.m, v.n, true);
    if (residual != nullptr) v.residual = operand(*residual, v.batch, v.m, v.n, true);
    return v;
  }

 private:
  // Maps a tensor onto (batch, rows, cols); size-1 dimensions and missing ones broadcast.
  [[nodiscard]] detail::gemm_operand operand(const buffer& b, const sym_expr& batch, const sym_expr& rows,
                                             const sym_expr& cols, bool epilogue) const {
    detail::gemm_operand op;
    op.node = &b;
    op.offset = b.get_layout().offset();
    const auto& sizes = b.sizes();
    const auto& strides = b.strides();
    const auto r = sizes.size();
    auto fail = [&](const std::string& why) {
      throw invalid_argument_error("rocmtpl: gemm: " + b.name() + " " + b.get_layout().to_string() + " " + why);
    };
    auto pick = [&](std::size_t i, const sym_expr& want, const char* what) {
      if (sizes[i] == want) return strides[i];
      if (sizes[i] == sym_expr(1)) return sym_expr(0);
      fail("does not match " + std::string(what) + " = " + want.to_string());
      return sym_expr(0);
    };
    if (epilogue && r == 1) {
      if (options_.bias_along == bias_dim::n) {
        op.stride_c = pick(0, cols, "N");
      } else {
        op.stride_r = pick(0, rows, "M");
      }
      return op;
    }
    if (r < 2 || r > 3) fail("must have rank " + std::string(epilogue ? "1, 2 or 3" : "2 or 3"));
    op.stride_r = pick(r - 2, rows, "rows");
    op.stride_c = pick(r - 1, cols, "columns");
    if (r == 3) op.stride_b = pick(0, batch, "the batch");
    return op;
  }

  // Binds the tensors to names and returns the entry point's signature.
  std::string bind(rocm_template_kernel& kernel, const template_context& ctx, const detail::gemm_view& v) const {
    std::vector<const buffer*> inputs{v.x.node, v.w.node};
    std::string names = "X, W, ";
    if (v.bias.node != nullptr) {
      inputs.push_back(v.bias.node);
      names += "Bias, ";
    }
    if (v.residual.node != nullptr) {
      inputs.push_back(v.residual.node);
      names += "Residual, ";
    }
    names += "Y";
    return kernel.def_kernel(inputs, {v.y.node}, names, ctx.input_reorder());
  }

  // Kernel parameter list and argument list of the tensors.
  [[nodiscard]] static std::pair<std::string, std::string> tensor_params(const detail::gemm_view& v, bool restrict) {
    const std::string r = restrict ? " __restrict__ " : " ";
    std::string params = "const " + storage(*v.x.node) + "*" + r + "X, const " + storage(*v.w.node) + "*" + r + "W";
    std::string args = "X, W";
    if (v.bias.node != nullptr) {
      params += ", const " + storage(*v.bias.node) + "*" + r + "Bias";
      args += ", Bias";
    }
    if (v.residual.node != nullptr) {
      params += ", const " + storage(*v.residual.node) + "*" + r + "Residual";
      args += ", Residual";
    }
    params += ", " + storage(*v.y.node) + "*" + r + "Y";
    args += ", Y";
    return {params, args};
  }

  [[nodiscard]] static std::string pointer_init(const detail::gemm_view& v, const std::string& partial) {
    std::string s = "{X, W";
    if (v.bias.node != nullptr) s += ", Bias";
    if (v.residual.node != nullptr) s += ", Residual";
    return s + ", Y, " + partial + "}";
  }

  // Operand types, problem struct and make_problem(), pointers, the activation and store_output().
  void write_prelude(indented_buffer& src, const detail::gemm_view& v, const std::vector<std::string>& symbols) const {
    src.write_verbatim(detail::gemm_dtype_text);
    std::vector<int> kinds;
    for (const auto* op : {&v.x, &v.w, &v.bias, &v.residual, &v.y}) {
      if (op->node != nullptr) kinds.push_back(detail::dtype_kind(op->node->type()));
    }
    std::sort(kinds.begin(), kinds.end());
    kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
    for (int kind : kinds) src.write_verbatim(detail::gemm_dtype_kind_text[kind]);
    src.write_verbatim(detail::gemm_vector_text);
    src.writeline("");
    const auto kind = [](const detail::gemm_operand& op) { return std::to_string(detail::dtype_kind(op.node->type())); };
    src.writeline("using x_type = gemm_dtype<" + kind(v.x) + ">;");
    src.writeline("using w_type = gemm_dtype<" + kind(v.w) + ">;");
    if (v.bias.node != nullptr) src.writeline("using bias_type = gemm_dtype<" + kind(v.bias) + ">;");
    if (v.residual.node != nullptr) src.writeline("using residual_type = gemm_dtype<" + kind(v.residual) + ">;");
    src.writeline("using y_type = gemm_dtype<" + kind(v.y) + ">;");
    src.writeline("[[maybe_unused]] constexpr int x_kind = " + kind(v.x) + ";");
    src.writeline("");
    src.writeline(activation_function());
    src.writeline("");
    std::vector<std::pair<std::string, const detail::gemm_operand*>> ops{{"x", &v.x}, {"w", &v.w}};
    if (v.bias.node != nullptr) ops.emplace_back("bias", &v.bias);
    if (v.residual.node != nullptr) ops.emplace_back("residual", &v.residual);
    ops.emplace_back("y", &v.y);
    src.writeline("// Sizes, strides (0 where a tensor broadcasts) and offsets, in elements.");
    src.writeline("struct gemm_problem {");
    src.writeline("    int64_t m_size, n_size, k_size, batch;");
    for (const auto& [n, op] : ops) {
      const bool rk = n == "w";
      const std::string rows = n == "x" ? "m" : (rk ? "k" : "m");
      const std::string cols = n == "x" ? "k" : "n";
      src.writeline("    int64_t " + n + "_stride_b, " + n + "_stride_" + rows + ", " + n + "_stride_" + cols + ", " + n +
                    "_offset;");
    }
    src.writeline("};");
    src.writeline("");
    std::string sym_params;
    for (const auto& s : symbols) sym_params += (sym_params.empty() ? "" : ", ") + std::string("int64_t ") + s;
    src.writeline("__host__ __device__ __forceinline__ gemm_problem make_problem(" + sym_params + ") {");
    src.writeline("    gemm_problem problem_{};");
    auto set = [&](const std::string& field, const sym_expr& e) {
      src.writeline("    problem_." + field + " = " + e.to_cpp() + ";");
    };
    set("m_size", v.m);
    set("n_size", v.n);
    set("k_size", v.k);
    set("batch", v.batch);
    for (const auto& [n, op] : ops) {
      const bool rk = n == "w";
      const std::string rows = n == "x" ? "m" : (rk ? "k" : "m");
      const std::string cols = n == "x" ? "k" : "n";
      set(n + "_stride_b", op->stride_b);
      set(n + "_stride_" + rows, op->stride_r);
      set(n + "_stride_" + cols, op->stride_c);
      set(n + "_offset", op->offset);
    }
    src.writeline("    return problem_;");
    src.writeline("}");
    src.writeline("");
    src.writeline("struct gemm_pointers {");
    src.writeline("    const x_type::storage* X;");
    src.writeline("    const w_type::storage* W;");
    if (v.bias.node != nullptr) src.writeline("    const bias_type::storage* Bias;");
    if (v.residual.node != nullptr) src.writeline("    const residual_type::storage* Residual;");
    src.writeline("    y_type::storage* Y;");
    src.writeline("    float* Partial;  // split-K slices");
    src.writeline("};");
    src.writeline("");
    src.writeline("// The fused epilogue of one output element.");
    src.writeline("__device__ __forceinline__ void store_output(const gemm_problem& p, const gemm_pointers& t, int64_t batch,");
    src.writeline("                                             int64_t gm, int64_t gn, float acc) {");
    src.writeline(options_.alpha == 1.0F ? "    float v = acc;" : "    float v = " + float_literal(options_.alpha) + " * acc;");
    if (v.bias.node != nullptr) {
      const std::string load =
          "bias_type::to_float(t.Bias[p.bias_offset + batch * p.bias_stride_b + gm * p.bias_stride_m + gn * p.bias_stride_n])";
      src.writeline("    v += " + (options_.beta == 1.0F ? load : float_literal(options_.beta) + " * " + load) + ";");
    }
    src.writeline("    v = apply_activation(v);");
    if (v.residual.node != nullptr) {
      src.writeline(
          "    v += residual_type::to_float(t.Residual[p.residual_offset + batch * p.residual_stride_b + gm * "
          "p.residual_stride_m + gn * p.residual_stride_n]);");
    }
    src.writeline("    t.Y[p.y_offset + batch * p.y_stride_b + gm * p.y_stride_m + gn * p.y_stride_n] = y_type::from_float(v);");
    src.writeline("}");
  }

  [[nodiscard]] std::string formula(const detail::gemm_view& v) const {
    std::string s = "Y = " + std::string(to_string(options_.act)) + "(" +
                    (options_.alpha == 1.0F ? std::string() : float_literal(options_.alpha) + " * ") + "X @ W";
    if (v.bias.node != nullptr) {
      s += " + " + (options_.beta == 1.0F ? std::string() : float_literal(options_.beta) + " * ") + "Bias";
    }
    s += ")";
    if (v.residual.node != nullptr) s += " + Residual";
    return s;
  }

  // Reference-kernel element access of an operand at (b, row, col) with the operand's own strides.
  [[nodiscard]] static std::string ref_index(const detail::gemm_operand& op, const std::string& row,
                                             const std::string& col, const std::string& name) {
    return name + "[(" + op.offset.to_cpp() + ") + b * (" + op.stride_b.to_cpp() + ") + " + row + " * (" +
           op.stride_r.to_cpp() + ") + " + col + " * (" + op.stride_c.to_cpp() + ")]";
  }
  [[nodiscard]] static std::string ref_load(const detail::gemm_operand& op, const std::string& name,
                                            const std::string& row, const std::string& col) {
    return load(op.node->type(), ref_index(op, row, col, name));
  }

  [[nodiscard]] std::string activation_function() const { return activation_device_function(options_.act); }

  static std::string storage(const buffer& b) { return std::string(storage_type(b.type())); }
  static std::string bool_text(bool b) { return b ? "true" : "false"; }

  static std::string load(dtype t, const std::string& expr) {
    switch (t) {
      case dtype::f16: return "rocmtpl_dev::half_bits_to_float(" + expr + ")";
      case dtype::bf16: return "rocmtpl_dev::bf16_bits_to_float(" + expr + ")";
      default: return "static_cast<float>(" + expr + ")";
    }
  }

  static std::string ref_store(dtype t, const std::string& expr) {
    switch (t) {
      case dtype::f16: return "rocmtpl_dev::float_to_half_bits(" + expr + ")";
      case dtype::bf16: return "rocmtpl_dev::float_to_bf16_bits(" + expr + ")";
      default: return expr;
    }
  }

  // Shortest text that reads back as the same float ("%.9g" round-trips every float).
  static std::string float_literal(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s + "f";
  }
  static std::string double_literal(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
  }

  gemm_options options_;
};

static_assert(kernel_template<gemm_policy>);

}  // namespace rocmtpl::templates

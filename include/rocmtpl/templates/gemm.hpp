// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief gemm_policy: a tiled SIMT GEMM template, Y = act(alpha * X @ W + bias), fp32 accumulation.
///
/// Inputs in template order: X [M, K], W [K, N], optional Bias (rank 1 [N] broadcast along rows, or
/// rank 2 [M, N] with any strides, stride 0 to broadcast). Any strides and offsets, static or
/// symbolic sizes; f32, f16 and bf16 operands and output. The addmm order [Bias, X, W] is
/// input_reorder {2, 0, 1}.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/cartesian_product.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/error.hpp>
#include <rocmtpl/rocm_kernel.hpp>

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

/// @brief Parses an activation name.
/// @throws invalid_argument_error naming the text and the accepted names.
[[nodiscard]] inline activation parse_activation(std::string_view text) {
  for (auto a : {activation::none, activation::relu, activation::gelu, activation::silu, activation::sigmoid}) {
    if (to_string(a) == text) return a;
  }
  throw invalid_argument_error("rocmtpl: gemm: unknown activation '" + std::string(text) +
                               "'; expected none, relu, gelu, silu or sigmoid");
}

/// @brief Tunable tiling of the SIMT GEMM: a structural aggregate usable as an NTTP and as a value.
struct gemm_config {
  int block_m = 64;   ///< rows of Y per block
  int block_n = 64;   ///< columns of Y per block
  int block_k = 16;   ///< K step held in shared memory
  int thread_m = 4;   ///< rows of Y per thread
  int thread_n = 4;   ///< columns of Y per thread
  int group_m = 8;    ///< blocks grouped along M for L2 reuse (1: row-major block order)

  /// @brief Threads per block.
  [[nodiscard]] constexpr int threads() const noexcept {
    return thread_m > 0 && thread_n > 0 ? (block_m / thread_m) * (block_n / thread_n) : 0;
  }
  /// @brief Static shared memory bytes (A and B tiles of fp32, A padded by one column).
  [[nodiscard]] constexpr int shared_bytes() const noexcept { return 4 * block_k * (block_m + 4 + block_n); }

  /// @brief Designated-initializer text: `{.block_m = 64, .block_n = 64, ...}`.
  [[nodiscard]] std::string to_string() const {
    return "{.block_m = " + std::to_string(block_m) + ", .block_n = " + std::to_string(block_n) +
           ", .block_k = " + std::to_string(block_k) + ", .thread_m = " + std::to_string(thread_m) +
           ", .thread_n = " + std::to_string(thread_n) + ", .group_m = " + std::to_string(group_m) + "}";
  }
  /// @brief Short deterministic identifier: `bm64_bn64_bk16_tm4_tn4_g8`.
  [[nodiscard]] std::string name() const {
    return "bm" + std::to_string(block_m) + "_bn" + std::to_string(block_n) + "_bk" + std::to_string(block_k) +
           "_tm" + std::to_string(thread_m) + "_tn" + std::to_string(thread_n) + "_g" + std::to_string(group_m);
  }

  friend constexpr bool operator==(const gemm_config&, const gemm_config&) = default;
  friend constexpr auto operator<=>(const gemm_config&, const gemm_config&) = default;
};

/// @brief (field, value) pairs of a configuration, for info_dict and reports.
[[nodiscard]] inline std::vector<std::pair<std::string, std::string>> describe(const gemm_config& c) {
  return {{"block_m", std::to_string(c.block_m)},   {"block_n", std::to_string(c.block_n)},
          {"block_k", std::to_string(c.block_k)},   {"thread_m", std::to_string(c.thread_m)},
          {"thread_n", std::to_string(c.thread_n)}, {"group_m", std::to_string(c.group_m)}};
}

/// @brief Why a configuration is invalid, or empty when it is valid. Value rules, checked before rendering.
[[nodiscard]] inline std::string validate(const gemm_config& c) {
  auto positive = c.block_m > 0 && c.block_n > 0 && c.block_k > 0 && c.thread_m > 0 && c.thread_n > 0 && c.group_m > 0;
  if (!positive) return "every field must be positive";
  if (c.block_m % c.thread_m != 0) return "block_m must be a multiple of thread_m";
  if (c.block_n % c.thread_n != 0) return "block_n must be a multiple of thread_n";
  if (c.threads() % 64 != 0 || c.threads() > 1024) return "threads per block must be a multiple of 64, at most 1024";
  if (c.shared_bytes() > 48 * 1024) return "shared memory above 48 KiB";
  if (c.thread_m * c.thread_n > 128) return "more than 128 accumulators per thread would spill";
  return {};
}

/// @brief Problem-level options of the GEMM (baked into the source, not tuned).
struct gemm_options {
  activation act = activation::none;
  float alpha = 1.0F;
};

/// @brief The SIMT GEMM kernel_template policy.
class gemm_policy {
 public:
  using policy_concept = kernel_template_tag;
  using config_type = gemm_config;

  explicit gemm_policy(gemm_options options = {}) : options_(options) {}

  [[nodiscard]] static std::string_view name() noexcept { return "gemm"; }
  [[nodiscard]] const gemm_options& options() const noexcept { return options_; }

  /// @brief The search space: every valid combination of the tile values below.
  [[nodiscard]] std::vector<gemm_config> configs() const {
    static constexpr int blocks[] = {32, 64, 128};
    static constexpr int ks[] = {8, 16, 32};
    static constexpr int per_thread[] = {4, 8};
    static constexpr int groups[] = {1, 8};
    namespace rv = ranges::views;
    auto space = rv::cartesian_product(blocks, blocks, ks, per_thread, per_thread, groups) |
                 rv::transform([](const auto& t) {
                   const auto& [bm, bn, bk, tm, tn, g] = t;
                   return gemm_config{bm, bn, bk, tm, tn, g};
                 }) |
                 rv::filter([](const gemm_config& c) { return validate(c).empty(); });
    return space | ranges::to<std::vector>();
  }

  /// @brief Renders the complete translation unit for one configuration.
  /// @throws invalid_argument_error for an invalid configuration, inputs of the wrong rank,
  /// mismatched K or output shape, or an unsupported dtype.
  [[nodiscard]] std::string render(rocm_template_kernel& kernel, const template_context& ctx,
                                   const gemm_config& config) const {
    if (auto why = validate(config); !why.empty()) {
      throw invalid_argument_error("rocmtpl: gemm: invalid config " + config.to_string() + ": " + why);
    }
    const buffer* x = ctx.input(0);
    const buffer* w = ctx.input(1);
    const buffer* bias = ctx.input(2);
    const buffer& y = ctx.output_node();
    check_problem(x, w, bias, y);

    const bool has_bias = bias != nullptr;
    std::vector<const buffer*> inputs{x, w};
    std::string names = "X, W, ";
    if (has_bias) {
      inputs.push_back(bias);
      names += "Bias, ";
    }
    names += "Y";
    const std::string signature = kernel.def_kernel(inputs, {&y}, names, ctx.input_reorder());
    const auto symbols = kernel.args().size_symbols();

    indented_buffer src;
    src.reserve(12 * 1024);
    src.write_verbatim(ctx.header());
    src.writeline("");
    src.write_verbatim(ctx.globals());
    src.writeline("");
    src.writeline("// gemm " + config.name() + ": Y = " + std::string(to_string(options_.act)) + "(" +
                  float_literal(options_.alpha) + " * X @ W" + (has_bias ? " + Bias" : "") + ")");
    src.writeline("// X " + x->get_layout().to_string());
    src.writeline("// W " + w->get_layout().to_string());
    if (has_bias) src.writeline("// Bias " + bias->get_layout().to_string());
    src.writeline("// Y " + y.get_layout().to_string());
    src.writeline("namespace {");
    src.writeline("");
    src.writeline("constexpr int block_m = " + std::to_string(config.block_m) + ";");
    src.writeline("constexpr int block_n = " + std::to_string(config.block_n) + ";");
    src.writeline("constexpr int block_k = " + std::to_string(config.block_k) + ";");
    src.writeline("constexpr int thread_m = " + std::to_string(config.thread_m) + ";");
    src.writeline("constexpr int thread_n = " + std::to_string(config.thread_n) + ";");
    src.writeline("constexpr int group_m = " + std::to_string(config.group_m) + ";");
    src.writeline("constexpr int threads_m = block_m / thread_m;");
    src.writeline("constexpr int threads_n = block_n / thread_n;");
    src.writeline("constexpr int block_threads = threads_m * threads_n;");
    src.writeline("");
    src.writeline(activation_function());
    src.writeline("");

    // Kernel parameters: the tensors, then every size symbol (sizes, strides and offsets use them).
    std::string params = "const " + storage(*x) + "* __restrict__ X, const " + storage(*w) + "* __restrict__ W, ";
    params += has_bias ? "const " + storage(*bias) + "* __restrict__ Bias, " : std::string();
    params += storage(y) + "* __restrict__ Y";
    std::string args = has_bias ? "X, W, Bias, Y" : "X, W, Y";
    for (const auto& s : symbols) {
      params += ", int64_t " + s;
      args += ", " + s;
    }

    src.writeline("__global__ void __launch_bounds__(block_threads) gemm_kernel(" + params + ") {");
    {
      auto body = src.indent();
      write_problem_constants(src, kernel, x, w, bias, y);
      src.write_verbatim(R"(    __shared__ float a_tile[block_k][block_m + 4];
    __shared__ float b_tile[block_k][block_n];
    const int tid = static_cast<int>(threadIdx.x);
    const int tx = tid % threads_n;
    const int ty = tid / threads_n;
    // Grouped block order: group_m block rows share the same W columns in L2.
    const int64_t grid_m = (m_size + block_m - 1) / block_m;
    const int64_t grid_n = (n_size + block_n - 1) / block_n;
    const int64_t pid = static_cast<int64_t>(blockIdx.x);
    const int64_t blocks_in_group = static_cast<int64_t>(group_m) * grid_n;
    const int64_t first_m = (pid / blocks_in_group) * group_m;
    const int64_t group_rows = (grid_m - first_m) < group_m ? (grid_m - first_m) : group_m;
    const int64_t block_row = (first_m + (pid % blocks_in_group) % group_rows) * block_m;
    const int64_t block_col = ((pid % blocks_in_group) / group_rows) * block_n;
    float acc[thread_m][thread_n];
    #pragma unroll
    for (int i = 0; i < thread_m; ++i) {
        #pragma unroll
        for (int j = 0; j < thread_n; ++j) acc[i][j] = 0.0f;
    }
    for (int64_t k0 = 0; k0 < k_size; k0 += block_k) {
)");
      {
        auto loop = src.indent();
        // Walk the tile along the operand's unit-stride dimension so global loads coalesce.
        const bool x_k_contiguous = !x->get_layout().is_col_major() || x->get_layout().is_row_major();
        const bool w_n_contiguous = w->get_layout().is_row_major() || !w->get_layout().is_col_major();
        src.writeline("for (int e = tid; e < block_m * block_k; e += block_threads) {");
        {
          auto s = src.indent();
          src.writeline(x_k_contiguous ? "const int mm = e / block_k, kk = e % block_k;"
                                       : "const int kk = e / block_m, mm = e % block_m;");
          src.writeline("const int64_t gm = block_row + mm, gk = k0 + kk;");
          src.writeline("a_tile[kk][mm] = (gm < m_size && gk < k_size) ? " +
                        load(x->type(), "X[x_offset + gm * x_stride_m + gk * x_stride_k]") + " : 0.0f;");
        }
        src.writeline("}");
        src.writeline("for (int e = tid; e < block_k * block_n; e += block_threads) {");
        {
          auto s = src.indent();
          src.writeline(w_n_contiguous ? "const int kk = e / block_n, nn = e % block_n;"
                                       : "const int nn = e / block_k, kk = e % block_k;");
          src.writeline("const int64_t gk = k0 + kk, gn = block_col + nn;");
          src.writeline("b_tile[kk][nn] = (gk < k_size && gn < n_size) ? " +
                        load(w->type(), "W[w_offset + gk * w_stride_k + gn * w_stride_n]") + " : 0.0f;");
        }
        src.writeline("}");
        src.write_verbatim(R"(        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < block_k; ++kk) {
            float a[thread_m];
            float b[thread_n];
            #pragma unroll
            for (int i = 0; i < thread_m; ++i) a[i] = a_tile[kk][ty + i * threads_m];
            #pragma unroll
            for (int j = 0; j < thread_n; ++j) b[j] = b_tile[kk][tx + j * threads_n];
            #pragma unroll
            for (int i = 0; i < thread_m; ++i) {
                #pragma unroll
                for (int j = 0; j < thread_n; ++j) acc[i][j] += a[i] * b[j];
            }
        }
        __syncthreads();
)");
      }
      src.writeline("}");
      src.writeline("#pragma unroll");
      src.writeline("for (int i = 0; i < thread_m; ++i) {");
      {
        auto si = src.indent();
        src.writeline("const int64_t gm = block_row + ty + i * threads_m;");
        src.writeline("if (gm >= m_size) continue;");
        src.writeline("#pragma unroll");
        src.writeline("for (int j = 0; j < thread_n; ++j) {");
        {
          auto sj = src.indent();
          src.writeline("const int64_t gn = block_col + tx + j * threads_n;");
          src.writeline("if (gn >= n_size) continue;");
          src.writeline("float v = " + float_literal(options_.alpha) + " * acc[i][j];");
          if (has_bias) {
            src.writeline("v += " + load(bias->type(), "Bias[bias_offset + gm * bias_stride_m + gn * bias_stride_n]") +
                          ";");
          }
          src.writeline("Y[y_offset + gm * y_stride_m + gn * y_stride_n] = " + store(y.type(), "apply_activation(v)") +
                        ";");
        }
        src.writeline("}");
      }
      src.writeline("}");
    }
    src.writeline("}");
    src.writeline("");
    src.writeline("}  // namespace");
    src.writeline("");

    src.writeline(signature + " {");
    {
      auto body = src.indent();
      src.write_verbatim(R"(    if (workspace_size) {
        *workspace_size = 0;
        return ROCMTPL_STATUS_OK;
    }
    (void)workspace;
)");
      for (const auto& s : symbols) {
        src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
      }
      for (const auto* node : {x, w, bias, &y}) src.write_lines(kernel.check_not_null(node));
      src.writeline("const int64_t m_size = " + kernel.size(x, 0) + ";");
      src.writeline("const int64_t n_size = " + kernel.size(w, 1) + ";");
      src.write_verbatim(R"(    if (m_size == 0 || n_size == 0) return ROCMTPL_STATUS_OK;
    const int64_t blocks = ((m_size + block_m - 1) / block_m) * ((n_size + block_n - 1) / block_n);
    if (blocks > 2147483647) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
)");
      src.writeline("gemm_kernel<<<dim3(static_cast<unsigned>(blocks)), dim3(block_threads), 0, stream>>>(" + args +
                    ");");
      src.writeline("return hipGetLastError() == hipSuccess ? ROCMTPL_STATUS_OK : ROCMTPL_STATUS_LAUNCH_FAILED;");
    }
    src.writeline("}");
    return std::move(src).str();
  }

  /// @brief The reference kernel: one thread per output, double accumulation, same entry point
  /// and epilogue. Trusted because it is simple; the autotuner verifies every candidate against it.
  [[nodiscard]] std::string render_reference(rocm_template_kernel& kernel, const template_context& ctx) const {
    const buffer* x = ctx.input(0);
    const buffer* w = ctx.input(1);
    const buffer* bias = ctx.input(2);
    const buffer& y = ctx.output_node();
    check_problem(x, w, bias, y);
    const bool has_bias = bias != nullptr;
    std::vector<const buffer*> inputs{x, w};
    if (has_bias) inputs.push_back(bias);
    const std::string signature =
        kernel.def_kernel(inputs, {&y}, has_bias ? "X, W, Bias, Y" : "X, W, Y", ctx.input_reorder());
    std::string params = "const " + storage(*x) + "* X, const " + storage(*w) + "* W, ";
    params += has_bias ? "const " + storage(*bias) + "* Bias, " : std::string();
    params += storage(y) + "* Y";
    std::string args = has_bias ? "X, W, Bias, Y" : "X, W, Y";
    for (const auto& s : kernel.args().size_symbols()) {
      params += ", int64_t " + s;
      args += ", " + s;
    }
    indented_buffer src;
    src.write_verbatim(ctx.header());
    src.writeline("");
    src.write_verbatim(ctx.globals());
    src.writeline("");
    src.writeline("// gemm reference: one thread per output, double accumulation");
    src.writeline("namespace {");
    src.writeline(activation_function());
    src.writeline("__global__ void gemm_reference_kernel(" + params + ") {");
    {
      auto body = src.indent();
      write_problem_constants(src, kernel, x, w, bias, y);
      src.writeline("const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;");
      src.writeline("if (idx >= m_size * n_size) return;");
      src.writeline("const int64_t gm = idx / n_size, gn = idx % n_size;");
      src.writeline("double acc = 0.0;");
      src.writeline("for (int64_t k = 0; k < k_size; ++k) {");
      {
        auto loop = src.indent();
        src.writeline("acc += static_cast<double>(" + load(x->type(), "X[x_offset + gm * x_stride_m + k * x_stride_k]") +
                      ") * static_cast<double>(" + load(w->type(), "W[w_offset + k * w_stride_k + gn * w_stride_n]") +
                      ");");
      }
      src.writeline("}");
      src.writeline("float v = static_cast<float>(" + float_literal(options_.alpha) + " * acc);");
      if (has_bias) {
        src.writeline("v += " + load(bias->type(), "Bias[bias_offset + gm * bias_stride_m + gn * bias_stride_n]") + ";");
      }
      src.writeline("Y[y_offset + gm * y_stride_m + gn * y_stride_n] = " + store(y.type(), "apply_activation(v)") + ";");
    }
    src.writeline("}");
    src.writeline("}  // namespace");
    src.writeline(signature + " {");
    {
      auto body = src.indent();
      src.writeline("if (workspace_size) { *workspace_size = 0; return ROCMTPL_STATUS_OK; }");
      src.writeline("(void)workspace;");
      for (const auto* node : {x, w, bias, &y}) src.write_lines(kernel.check_not_null(node));
      src.writeline("const int64_t total = (" + kernel.size(x, 0) + ") * (" + kernel.size(w, 1) + ");");
      src.writeline("if (total == 0) return ROCMTPL_STATUS_OK;");
      src.writeline("gemm_reference_kernel<<<dim3(static_cast<unsigned>((total + 255) / 256)), dim3(256), 0, stream>>>(" +
                    args + ");");
      src.writeline("return hipGetLastError() == hipSuccess ? ROCMTPL_STATUS_OK : ROCMTPL_STATUS_LAUNCH_FAILED;");
    }
    src.writeline("}");
    return std::move(src).str();
  }

 private:
  static void check_problem(const buffer* x, const buffer* w, const buffer* bias, const buffer& y) {
    if (x == nullptr || w == nullptr) {
      throw invalid_argument_error("rocmtpl: gemm: needs inputs X and W, got " +
                                   std::to_string(x == nullptr ? 0 : 1) + " input(s)");
    }
    auto need_rank = [](const buffer& b, std::size_t rank) {
      if (b.get_layout().rank() != rank) {
        throw invalid_argument_error("rocmtpl: gemm: " + b.name() + " must have rank " + std::to_string(rank) +
                                     ", got " + b.get_layout().to_string());
      }
    };
    need_rank(*x, 2);
    need_rank(*w, 2);
    need_rank(y, 2);
    if (!(x->sizes()[1] == w->sizes()[0])) {
      throw invalid_argument_error("rocmtpl: gemm: K of X (" + x->sizes()[1].to_cpp() + ") differs from K of W (" +
                                   w->sizes()[0].to_cpp() + ")");
    }
    if (!(y.sizes()[0] == x->sizes()[0]) || !(y.sizes()[1] == w->sizes()[1])) {
      throw invalid_argument_error("rocmtpl: gemm: output " + y.get_layout().to_string() + " is not [" +
                                   x->sizes()[0].to_cpp() + ", " + w->sizes()[1].to_cpp() + "]");
    }
    if (bias != nullptr && bias->get_layout().rank() != 1 && bias->get_layout().rank() != 2) {
      throw invalid_argument_error("rocmtpl: gemm: Bias must have rank 1 or 2, got " + bias->get_layout().to_string());
    }
    for (const buffer* b : {x, w, bias, &y}) {
      if (b == nullptr) continue;
      const auto t = b->type();
      if (t != dtype::f32 && t != dtype::f16 && t != dtype::bf16) {
        throw invalid_argument_error("rocmtpl: gemm: " + b->name() + " has dtype " + std::string(rocmtpl::name(t)) +
                                     "; supported: float32, float16, bfloat16");
      }
    }
  }

  static void write_problem_constants(indented_buffer& src, const rocm_template_kernel& kernel, const buffer* x,
                                      const buffer* w, const buffer* bias, const buffer& y) {
    auto line = [&](const std::string& n, const std::string& e) { src.writeline("const int64_t " + n + " = " + e + ";"); };
    line("m_size", kernel.size(x, 0));
    line("n_size", kernel.size(w, 1));
    line("k_size", kernel.size(x, 1));
    line("x_stride_m", kernel.stride(x, 0));
    line("x_stride_k", kernel.stride(x, 1));
    line("x_offset", kernel.offset(x));
    line("w_stride_k", kernel.stride(w, 0));
    line("w_stride_n", kernel.stride(w, 1));
    line("w_offset", kernel.offset(w));
    if (bias != nullptr) {
      const bool rank1 = bias->get_layout().rank() == 1;
      line("bias_stride_m", rank1 ? "0" : kernel.stride(bias, 0));
      line("bias_stride_n", rank1 ? kernel.stride(bias, 0) : kernel.stride(bias, 1));
      line("bias_offset", kernel.offset(bias));
    }
    line("y_stride_m", kernel.stride(&y, 0));
    line("y_stride_n", kernel.stride(&y, 1));
    line("y_offset", kernel.offset(&y));
  }

  [[nodiscard]] std::string activation_function() const {
    std::string body;
    switch (options_.act) {
      case activation::none: body = "return v;"; break;
      case activation::relu: body = "return v > 0.0f ? v : 0.0f;"; break;
      case activation::gelu: body = "return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));"; break;
      case activation::silu: body = "return v / (1.0f + expf(-v));"; break;
      case activation::sigmoid: body = "return 1.0f / (1.0f + expf(-v));"; break;
    }
    return "__device__ __forceinline__ float apply_activation(float v) { " + body + " }";
  }

  static std::string storage(const buffer& b) { return std::string(storage_type(b.type())); }

  static std::string load(dtype t, const std::string& expr) {
    switch (t) {
      case dtype::f16: return "rocmtpl_dev::half_bits_to_float(" + expr + ")";
      case dtype::bf16: return "rocmtpl_dev::bf16_bits_to_float(" + expr + ")";
      default: return "static_cast<float>(" + expr + ")";
    }
  }

  static std::string store(dtype t, const std::string& expr) {
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

  gemm_options options_;
};

static_assert(kernel_template<gemm_policy>);

}  // namespace rocmtpl::templates

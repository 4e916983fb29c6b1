// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief gemm_policy: the GEMM kernel_template policy, Y = act(alpha * X @ W + beta * Bias) + Residual.
///
/// Inputs in template order: X [M, K] or [B, M, K], W [K, N] or [B, K, N], then optionally Bias and
/// Residual (see gemm_options). Any strides and offsets, static or symbolic sizes, fp32
/// accumulation; f32, f16 and bf16 operands, epilogue inputs and output (the output dtype is a
/// free cast). Five math paths (gemm_path_list; one unit each, a folder under templates/gemm/):
/// - SIMT (`simt_config`): fp32 FMA register tiles, any dtypes (the fp32 path; no TF32);
/// - matrix cores (`mma_config`): X and W both f16 or both bf16, on mma.sync (NVIDIA sm_80+, cp.async
///   multi-stage pipeline, ldmatrix) or MFMA (AMD gfx90a, gfx940), chosen in the rendered source by
///   `ROCMTPL_PLATFORM_NVIDIA` / `ROCMTPL_PLATFORM_AMD`;
/// - Hopper (`wgmma_config`): the Hopper path for f16/bf16 (sm_90a: TMA-fed ring of shared-memory stages,
///   producer/consumer warpgroups on wgmma, runtime split-K through the workspace;
///   templates/gemm/wgmma/), for row-major problems whose batch is 1 or folds into M
///   (W shared by the batches, X and Y batches back to back); its entry point refuses other
///   devices, batches that do not fold, N or row pitches that are not multiples of 8 and
///   misaligned pointers with ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT, and on AMD builds it refuses
///   every call;
/// - skinny (`skinny_config`, `skinny_mma_config`; side m or n): matrix-vector kernels for few
///   rows or few columns (any dtypes and layouts; templates/gemm/skinny/), ranked first when M or N
///   is at most 64; they split K statically (config.split_k, reduced through the workspace in a second
///   pass), and with gemm_options::runtime_split_k their entry point refuses another split_k; the
///   skinny_mma ones run on NVIDIA matrix cores (mma.sync, sm_80 and later; f16/bf16 with the
///   large operand contiguous along its large dimension: few rows of a row-major W), lead the
///   ranking there, and refuse every call on AMD builds.
/// The addmm order [Bias, X, W] is input_reorder {2, 0, 1}. With gemm_options::runtime_split_k the
/// entry point takes `int32_t split_k` and asks for an fp32 workspace when it is above 1; without
/// it a SIMT configuration with split_k above 1 splits K statically (its own workspace and
/// reduction), as the skinny ones do.
///
/// The policy only gathers its parts: configuration and constraints (gemm/config.hpp), the problem
/// view (gemm/problem.hpp), the search space (gemm/search_space.hpp), the cost model
/// (gemm/cost_model.hpp), the kernel renderer (gemm/render.hpp) and the reference renderer
/// (gemm/reference.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/signature_rule.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/descriptor.hpp>
#include <rocmtpl/templates/gemm/paths.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>
#include <rocmtpl/templates/gemm/reference.hpp>
#include <rocmtpl/templates/gemm/render.hpp>
#include <rocmtpl/templates/gemm/search_space.hpp>

namespace rocmtpl::templates {

/// @brief The GEMM kernel_template policy (SIMT, matrix-core, Hopper wgmma and skinny paths, fused epilogues).
class gemm_policy {
 public:
  using policy_concept = kernel_template_tag;  ///< opts in to kernel_template
  using config_type = gemm_config;             ///< one configuration, for every math path
  /// @brief A reference kernel, the runtime argument split_k, per-problem search spaces, the
  /// workspace known at code generation, launch descriptions of the candidates and the reference
  /// (device-only tuning through the module API), fused epilogue chains (render_epilogue()) and
  /// the typed route's signature rule (typed_signature()).
  static constexpr kernel_capabilities capabilities{.reference = true,
                                                    .runtime_args = true,
                                                    .problem_configs = true,
                                                    .workspace = true,
                                                    .launch = true,
                                                    .reference_launch = true,
                                                    .epilogue = true,
                                                    .typed_signature = true};

  /// @param options the problem-level options (activation, alpha, beta, bias dimension, residual, runtime split-K)
  /// @throws config_error when alpha or beta is NaN or an infinity (see validate(const gemm_options&)).
  explicit gemm_policy(gemm_options options = {}) : options_(options) { validate(options_); }

  /// @brief "gemm".
  [[nodiscard]] static constexpr std::string_view name() noexcept { return "gemm"; }
  /// @brief The options it was made with.
  [[nodiscard]] const gemm_options& options() const noexcept { return options_; }

  /// @brief The entry point's parameters for the typed route (kernel_capabilities::typed_signature):
  /// X, W (rank 2 or 3), then Bias (or Residual with gemm_options::residual), then Residual (rank 1 to
  /// 3), output Y (rank 2 or 3), all float32, float16 or bfloat16; `int32_t split_k` with
  /// gemm_options::runtime_split_k (checked when the typed template is made).
  [[nodiscard]] static constexpr signature_rule typed_signature(std::size_t inputs) noexcept {
    signature_rule r;
    if (inputs < 2 || inputs > 4) return r.refuse("gemm takes X, W, an optional Bias and an optional Residual");
    r.inputs[0] = {.name = "X", .dtypes = float_dtypes, .min_rank = 2, .max_rank = 3};
    r.inputs[1] = {.name = "W", .dtypes = float_dtypes, .min_rank = 2, .max_rank = 3};
    if (inputs >= 3) {
      r.inputs[2] = {.name = "Bias",
                     .other_name = inputs == 3 ? "Residual" : "",
                     .dtypes = float_dtypes,
                     .min_rank = 1,
                     .max_rank = 3};
    }
    if (inputs == 4) r.inputs[3] = {.name = "Residual", .dtypes = float_dtypes, .min_rank = 1, .max_rank = 3};
    r.output = {.name = "Y", .dtypes = float_dtypes, .min_rank = 2, .max_rank = 3};
    r.runtime_args[0] = {.name = "split_k", .c_type = "int32_t"};
    r.runtime_arg_count = 1;
    r.runtime_args_optional = true;
    return r;
  }

  /// @brief Every configuration, without problem knowledge: the SIMT space, then the matrix-core
  /// one (the Hopper configurations come only with a problem, see configs(ctx, hints)).
  [[nodiscard]] std::vector<gemm_config> configs() const;

  /// @brief The search space for one problem, best first (see gemm_problem_configs()): the path
  /// the dtypes call for, vector widths the layouts allow, split-K variants when
  /// gemm_options::runtime_split_k is on, ordered by gemm_estimate_cost(); the skinny
  /// configurations (static K slices) first when M or N is at most 64, with static split-K SIMT
  /// tiles among them for f32 problems of 32 to 64 rows (columns).
  /// @param ctx the template's inputs and output
  /// @param hints values of size symbols (missing ones count as 1024)
  /// @throws invalid_argument_error when the problem is malformed (see view()).
  [[nodiscard]] std::vector<gemm_config> configs(const template_context& ctx, const size_hints& hints) const {
    return gemm_problem_configs(view(ctx), options_.runtime_split_k, hints);
  }

  /// @brief Estimated time of a configuration (see gemm_estimate_cost()). Public for tests and tools.
  [[nodiscard]] static double estimate_cost(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                            std::int64_t batch) {
    return gemm_estimate_cost(c, m, n, k, batch);
  }

  /// @brief Runtime arguments: `int32_t split_k` with gemm_options::runtime_split_k, else none.
  [[nodiscard]] std::vector<arg_info> runtime_arg_info() const;

  /// @brief The configuration's split_k when it is a runtime argument.
  [[nodiscard]] std::vector<runtime_arg_value> runtime_arg_values(const gemm_config& config) const;

  /// @brief The workspace of a configuration's entry point in bytes, as its workspace query answers:
  /// split-K's fp32 partials, `split_k * batch * M * N * sizeof(float)`, when the configuration
  /// splits K: at run time (gemm_options::runtime_split_k and split_k above 1, on the mma, SIMT
  /// and Hopper paths) or statically (a skinny configuration's split_k above 1, whether or not
  /// runtime split-K is on, and a SIMT one's without it); else 0.
  /// @throws invalid_argument_error when the problem is malformed (see view()).
  [[nodiscard]] sym_expr workspace_bytes(const template_context& ctx, const gemm_config& config) const {
    return detail::gemm_workspace_bytes(view(ctx), config, options_);
  }

  /// @brief Renders the complete translation unit for one configuration.
  /// @throws config_error for an invalid configuration (see validate()); invalid_argument_error for
  /// a matrix-core configuration on dtypes other than f16/bf16 X and W, split_k above 1 without
  /// runtime split-K (skinny configurations excepted: their K slices are static), inputs of the wrong rank, mismatched
  /// K, batch or output shape, or an unsupported dtype.
  [[nodiscard]] rendered_source render(rocm_template_kernel& kernel, const template_context& ctx,
                                       const gemm_config& config) const {
    return detail::render_gemm(kernel, ctx, config, options_);
  }

  /// @brief render() with an epilogue chain fused after the GEMM's own epilogue (codegen/epilogue.hpp),
  /// on every path: SIMT, mma.sync, MFMA and the split-K reduction through store_output(), the
  /// Hopper path on its staged rows (8 columns at a time: `rocmtpl_epilogue8()`); all apply the same
  /// statements as the one `rocmtpl_epilogue(args, batch, row, col, v)`.
  /// The kernel writes `e.output` (parameter Y) and reads the chain's operands as E0, E1, ... after
  /// the GEMM's inputs.
  /// @throws what render() throws; invalid_argument_error when the chain's operands do not fit the
  /// output, or (wgmma) the epilogue's output dtype differs from the GEMM's.
  [[nodiscard]] rendered_source render_epilogue(rocm_template_kernel& kernel, const template_context& ctx,
                                                const gemm_config& config, const fused_epilogue& e) const {
    return detail::render_gemm(kernel, ctx, config, options_, &e);
  }

  /// @brief The reference kernel with the same epilogue chain fused (see render_reference()), so that
  /// fused kernels are verified as the others are.
  [[nodiscard]] rendered_source render_epilogue_reference(rocm_template_kernel& kernel, const template_context& ctx,
                                                          const fused_epilogue& e) const {
    return detail::render_gemm_reference(kernel, ctx, options_, &e);
  }

  /// @brief The launches of render()'s entry for a configuration (codegen/launch.hpp): the kernel
  /// symbols, grids, blocks, shared memory, parameters, workspace and the vectorised/scalar choice.
  /// @throws what render() throws for the configuration.
  [[nodiscard]] launch_description describe_launch(rocm_template_kernel& kernel, const template_context& ctx,
                                                   const gemm_config& config) const {
    return detail::describe_gemm_launch(kernel, ctx, config, options_);
  }

  /// @brief The reference kernel: one thread per output, double accumulation, the same entry point
  /// (no runtime arguments) and epilogue. Trusted because it is simple; the autotuner verifies
  /// every candidate against it.
  [[nodiscard]] rendered_source render_reference(rocm_template_kernel& kernel, const template_context& ctx) const {
    return detail::render_gemm_reference(kernel, ctx, options_);
  }

  /// @brief The launch of render_reference()'s entry (one kernel, one thread per output), so that
  /// the autotuner compiles the reference device-only like the candidates.
  [[nodiscard]] launch_description describe_reference_launch(rocm_template_kernel& kernel,
                                                             const template_context& ctx) const {
    return detail::describe_gemm_reference_launch(kernel, ctx, options_);
  }

  /// @brief The checked problem of a template context: operands as (batch, rows, cols) with
  /// broadcast strides, and M, N, K, batch.
  /// @throws invalid_argument_error naming the offending tensor and values.
  [[nodiscard]] detail::gemm_view view(const template_context& ctx) const {
    return detail::make_gemm_view(ctx, options_);
  }

 private:
  gemm_options options_;
};

static_assert(kernel_template<gemm_policy>);

/// @brief The GEMM template of a problem descriptor: inputs `x`, `w` and, with a bias, `bias`.
/// @throws invalid_argument_error for a layout other than two of 'r' and 'c', or a bad size.
[[nodiscard]] rocm_template<gemm_policy> make_template(const gemm_problem& p);

/// @brief The gemm_problem that @p t is at these size hints, or nullopt when none is: a template
/// is one when make_template() gives back its inputs, output and options (symbolic sizes named M,
/// N, K and B, each with a hint; no beta, residual, runtime split-K or input reorder). The
/// autotuner stores it beside the tuning key (found by argument-dependent lookup).
[[nodiscard]] std::optional<gemm_problem> describe_problem(const rocm_template<gemm_policy>& t,
                                                           const size_hints& hints);

}  // namespace rocmtpl::templates

#ifdef ROCMTPL_COMPILED_LIBRARY
namespace rocmtpl {
// The stock policy's rocm_template, instantiated once by src/templates.cpp.
extern template class rocm_template<templates::gemm_policy>;
}  // namespace rocmtpl
#endif

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/policy-inl.hpp>
#endif

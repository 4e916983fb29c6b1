// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The problem a GEMM template context describes: each operand seen as (batch, rows, cols)
/// with broadcast strides, M, N, K and batch, checked (make_gemm_view()); the copy facts of an
/// operand's layout; and the entry point's tensors (binding, parameter lists, the formula), which
/// the kernel and the reference renderers share.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/gemm/config.hpp>

namespace rocmtpl::templates::detail {

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
  // A fused epilogue chain (render_epilogue): the caller's, alive while rendering; its operands.
  const fused_epilogue* fused = nullptr;
  std::vector<epilogue_operand> epi;

  [[nodiscard]] bool matrix_core_eligible() const;
};

// Operand facts for the copy paths: the stride along M/N and along K, which is statically 1,
// and the values that must be multiples of the vector width for the fast path.
struct gemm_copy_facts {
  sym_expr mn_stride{0};
  sym_expr k_stride{0};
  bool k_contiguous = false;
  bool mn_contiguous = false;
  bool k_major = true;                    // tile order: along K unless only M/N is contiguous
  bool fast_copy = false;                 // a contiguous axis exists
  std::vector<sym_expr> alignment_terms;  // other stride, batch stride, offset

  [[nodiscard]] std::optional<bool> statically_aligned(std::int64_t vec) const;
  [[nodiscard]] bool aligned_with(std::int64_t vec, const size_hints& hints) const;
};

gemm_copy_facts copy_facts(const gemm_operand& op, bool rows_are_k);

int dtype_kind(dtype t);

// Best-effort value of a size for ranking: static value, else the hint, else `fallback`.
std::int64_t size_value(const sym_expr& e, const size_hints& hints, std::int64_t fallback);

// Widest vector (at most `limit` elements, 16 bytes) an operand's layout and the hints allow;
// operands without a contiguous axis always copy element by element and do not limit the other one.
[[nodiscard]] int widest_vector(int limit, const gemm_copy_facts& f, std::size_t esize, const size_hints& hints);

// The widest vector (at most `limit`) both X and W allow (the block-tiled paths' fitted width).
[[nodiscard]] int fit_vector(int limit, const gemm_view& v, const size_hints& hints);

// Maps a tensor onto (batch, rows, cols); size-1 dimensions and missing ones broadcast. A rank-1
// epilogue input runs along `bias_along`.
[[nodiscard]] gemm_operand make_gemm_operand(const buffer& b, const sym_expr& batch, const sym_expr& rows,
                                             const sym_expr& cols, bool epilogue, bias_dim bias_along);

// Dtypes and ranks of the operands (bias and residual may be null); true when the output is batched.
bool check_gemm_operands(const buffer& x, const buffer& w, const buffer* bias, const buffer* residual, const buffer& y);

// The checked problem of a template context (see gemm_policy::view()); with `fused`, the problem
// of the kernel that fuses its chain: the output is the epilogue's, the chain's operands are checked.
[[nodiscard]] gemm_view make_gemm_view(const template_context& ctx, const gemm_options& options,
                                       const fused_epilogue* fused = nullptr);

// Binds the tensors to names and returns the entry point's signature.
std::string bind_gemm_tensors(rocm_template_kernel& kernel, const template_context& ctx, const gemm_view& v);

// Hopper path (wgmma_path): which way Bias runs in its epilogue. 0: no Bias; 1: along N (its
// stride along M is statically 0: one value per column, prefetched as 16-bit pairs); 2: along M
// (its stride along N is statically 0); -1: a Bias that varies along both (not served).
[[nodiscard]] int wgmma_bias_mode(const gemm_view& v);

// Hopper path, batched problems: the batch folds into M (row b * M + m of one [batch * M, K] by
// [K, N] product) when W is shared by the batches (batch stride 0) and X, Y, a Residual and a Bias
// along M hold their batches back to back (batch stride = M rows); a Bias along N is shared. The
// expressions that must be 0 for that (the renderer checks the symbolic ones at run time, unless
// the batch is 1).
[[nodiscard]] std::vector<sym_expr> wgmma_fold_conditions(const gemm_view& v);

// Why the Hopper path cannot render this problem, or nothing: f16/bf16 X and W of one dtype, a
// 16-bit Y, unit column strides of X (along K), W (along N) and Y (TMA rows, 16-byte stores), a
// Bias along M or N (16-bit when along N), and a batch that is statically 1 or folds into M (see
// wgmma_fold_conditions(): no condition statically non-zero).
[[nodiscard]] std::optional<std::string> wgmma_static_reason(const gemm_view& v);

// Whether the sizes and strides, static or given by the hints, meet the Hopper path's run-time
// rules (batch 1 or a batch that folds into M, N and the row pitches of X, W and Y multiples of 8). A value neither
// static nor hinted counts as not met: without hints a symbolic problem keeps to the paths that serve every size (the
// entry point still checks every value at run time).
[[nodiscard]] bool wgmma_fits_hints(const gemm_view& v, const size_hints& hints);

// Kernel parameter list and argument list of the tensors.
[[nodiscard]] std::pair<std::string, std::string> gemm_tensor_params(const gemm_view& v, bool restrict);

// `{X, W, ..., Y, <partial>}`: the initializer of gemm_pointers (with a fused epilogue, its
// arguments made from E0.. and the size symbols last).
[[nodiscard]] std::string gemm_pointer_init(const gemm_view& v, const std::string& partial,
                                            const std::vector<std::string>& symbols = {});

// `Y = act(alpha * X @ W + beta * Bias) + Residual`, as the options and the view have it.
[[nodiscard]] std::string gemm_formula(const gemm_view& v, const gemm_options& options);

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/problem-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/problem.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/gemm/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE bool gemm_view::matrix_core_eligible() const {
  const auto t = x.node->type();
  return t == w.node->type() && (t == dtype::f16 || t == dtype::bf16);
}

ROCMTPL_INLINE std::optional<bool> gemm_copy_facts::statically_aligned(std::int64_t vec) const {
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

ROCMTPL_INLINE bool gemm_copy_facts::aligned_with(std::int64_t vec, const size_hints& hints) const {
  for (const auto& t : alignment_terms) {
    try {
      if (t.evaluate(hints) % vec != 0) return false;
    } catch (const evaluation_error&) {
      // unknown value: the entry point checks at run time
    }
  }
  return true;
}

ROCMTPL_INLINE gemm_copy_facts copy_facts(const gemm_operand& op, bool rows_are_k) {
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

ROCMTPL_INLINE int dtype_kind(dtype t) { return t == dtype::f32 ? 0 : (t == dtype::f16 ? 1 : 2); }

ROCMTPL_INLINE int widest_vector(int limit, const gemm_copy_facts& f, std::size_t esize, const size_hints& hints) {
  const int cap = std::min<int>(limit, static_cast<int>(16 / esize));
  if (!f.fast_copy) return cap;
  for (int vec = cap; vec > 1; vec /= 2) {
    const auto s = f.statically_aligned(vec);
    if ((!s.has_value() || *s) && f.aligned_with(vec, hints)) return vec;
  }
  return 1;
}

ROCMTPL_INLINE int fit_vector(int limit, const gemm_view& v, const size_hints& hints) {
  const int vx = widest_vector(limit, copy_facts(v.x, false), element_size(v.x.node->type()), hints);
  const int vw = widest_vector(limit, copy_facts(v.w, true), element_size(v.w.node->type()), hints);
  return std::min(vx, vw);
}

ROCMTPL_INLINE std::int64_t size_value(const sym_expr& e, const size_hints& hints, std::int64_t fallback) {
  if (auto c = e.constant()) return *c;
  try {
    return e.evaluate(hints);
  } catch (const evaluation_error&) {
    return fallback;
  }
}

ROCMTPL_INLINE gemm_operand make_gemm_operand(const buffer& b, const sym_expr& batch, const sym_expr& rows,
                                              const sym_expr& cols, bool epilogue, bias_dim bias_along) {
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
    if (bias_along == bias_dim::n) {
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

ROCMTPL_INLINE bool check_gemm_operands(const buffer& x, const buffer& w, const buffer* bias, const buffer* residual,
                                        const buffer& y) {
  for (const buffer* b : {&x, &w, bias, residual, &y}) {
    if (b == nullptr) continue;
    const auto t = b->type();
    if (t != dtype::f32 && t != dtype::f16 && t != dtype::bf16) {
      throw invalid_argument_error("rocmtpl: gemm: " + b->name() + " has dtype " + std::string(rocmtpl::name(t)) +
                                   "; supported: float32, float16, bfloat16");
    }
  }
  const auto rank = [](const buffer& b) { return b.get_layout().rank(); };
  if (rank(y) != 2 && rank(y) != 3) {
    throw invalid_argument_error("rocmtpl: gemm: " + y.name() + " must have rank 2 or 3, got " +
                                 y.get_layout().to_string());
  }
  const bool batched = rank(y) == 3;
  for (const buffer* b : {&x, &w}) {
    if (rank(*b) != 2 && !(batched && rank(*b) == 3)) {
      throw invalid_argument_error("rocmtpl: gemm: " + b->name() + " must have rank " +
                                   (batched ? std::string("2 or 3") : std::string("2")) + ", got " +
                                   b->get_layout().to_string());
    }
  }
  return batched;
}

ROCMTPL_INLINE gemm_view make_gemm_view(const template_context& ctx, const gemm_options& options,
                                        const fused_epilogue* fused) {
  const buffer* x = ctx.input(0);
  const buffer* w = ctx.input(1);
  if (x == nullptr || w == nullptr) {
    throw invalid_argument_error("rocmtpl: gemm: needs inputs X and W, got " + std::to_string(x == nullptr ? 0 : 1) +
                                 " input(s)");
  }
  const std::size_t extra = ctx.input_nodes().size() - 2;
  const std::size_t wanted = options.residual ? 1 : 0;
  if (extra < wanted || extra > wanted + 1) {
    throw invalid_argument_error("rocmtpl: gemm: got " + std::to_string(ctx.input_nodes().size()) +
                                 " inputs; expected X, W, an optional Bias" +
                                 (options.residual ? std::string(" and Residual") : std::string()));
  }
  const buffer* bias = extra > wanted ? ctx.input(2) : nullptr;
  const buffer* residual = options.residual ? ctx.input(ctx.input_nodes().size() - 1) : nullptr;
  const buffer& y = fused != nullptr ? fused->output : ctx.output_node();
  if (fused != nullptr && !(fused->output.sizes() == ctx.output_node().sizes())) {
    throw invalid_argument_error(
        "rocmtpl: gemm: the fused epilogue's output " + fused->output.get_layout().to_string() +
        " does not have the sizes of the GEMM's output " + ctx.output_node().get_layout().to_string());
  }
  const bool batched = check_gemm_operands(*x, *w, bias, residual, y);
  const auto rank = [](const buffer& b) { return b.get_layout().rank(); };
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
  const auto along = options.bias_along;
  v.x = make_gemm_operand(*x, v.batch, v.m, v.k, false, along);
  v.w = make_gemm_operand(*w, v.batch, v.k, v.n, false, along);
  v.y = make_gemm_operand(y, v.batch, v.m, v.n, false, along);
  if (bias != nullptr) v.bias = make_gemm_operand(*bias, v.batch, v.m, v.n, true, along);
  if (residual != nullptr) v.residual = make_gemm_operand(*residual, v.batch, v.m, v.n, true, along);
  if (fused != nullptr) {
    v.fused = fused;
    v.epi = epilogue_operands(*fused, v.batch, v.m, v.n);
  }
  return v;
}

ROCMTPL_INLINE std::string bind_gemm_tensors(rocm_template_kernel& kernel, const template_context& ctx,
                                             const gemm_view& v) {
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
  for (std::size_t i = 0; i < v.epi.size(); ++i) {
    inputs.push_back(v.epi[i].node);
    names += rocmtpl::detail::indexed_name("E", i) + ", ";
  }
  names += "Y";
  // The epilogue's operands follow the template's inputs (input_reorder covers those only).
  auto reorder = ctx.input_reorder();
  if (reorder && !v.epi.empty()) {
    for (std::size_t i = 0; i < v.epi.size(); ++i)
      reorder->push_back(static_cast<int>(inputs.size() - v.epi.size() + i));
  }
  return kernel.def_kernel(inputs, {v.y.node}, names, reorder);
}

ROCMTPL_INLINE int wgmma_bias_mode(const gemm_view& v) {
  if (v.bias.node == nullptr) return 0;
  if (v.bias.stride_r == sym_expr(0)) return 1;
  if (v.bias.stride_c == sym_expr(0)) return 2;
  return -1;
}

ROCMTPL_INLINE std::vector<sym_expr> wgmma_fold_conditions(const gemm_view& v) {
  std::vector<sym_expr> c{v.w.stride_b, v.x.stride_b - v.m * v.x.stride_r, v.y.stride_b - v.m * v.y.stride_r};
  if (v.residual.node != nullptr) c.push_back(v.residual.stride_b - v.m * v.residual.stride_r);
  if (v.bias.node != nullptr) {
    c.push_back(wgmma_bias_mode(v) == 2 ? v.bias.stride_b - v.m * v.bias.stride_r : v.bias.stride_b);
  }
  return c;
}

ROCMTPL_INLINE std::optional<std::string> wgmma_static_reason(const gemm_view& v) {
  if (!v.matrix_core_eligible()) return "X and W must be float16 or both bfloat16";
  if (element_size(v.y.node->type()) != 2) return "Y must be float16 or bfloat16";
  if (!(v.x.stride_c == sym_expr(1)) || !(v.w.stride_c == sym_expr(1)) || !(v.y.stride_c == sym_expr(1))) {
    return "X, W and Y must be row-major (unit stride along K, N and N)";
  }
  const int mode = wgmma_bias_mode(v);
  if (mode < 0) return "Bias must run along M or along N";
  if (mode == 1 && element_size(v.bias.node->type()) != 2) return "a Bias along N must be float16 or bfloat16";
  if (const auto b = v.batch.constant(); b.has_value() && *b == 1) return std::nullopt;
  // A W with its own batches (bmm) would need a batch coordinate in the TMA loads.
  if (!(v.w.stride_b == sym_expr(0))) return "batched problems need a W shared by the batches (batch stride 0)";
  for (const auto& c : wgmma_fold_conditions(v)) {
    if (const auto value = c.constant(); value.has_value() && *value != 0) {
      return "batched problems need X, Y (and Residual, a Bias along M) with their batches back to back and a Bias "
             "along N shared by the batches";
    }
  }
  return std::nullopt;
}

ROCMTPL_INLINE bool wgmma_fits_hints(const gemm_view& v, const size_hints& hints) {
  const auto value = [&](const sym_expr& e) -> std::optional<std::int64_t> {
    if (auto c = e.constant()) return c;
    try {
      return e.evaluate(hints);
    } catch (const evaluation_error&) {
      return std::nullopt;
    }
  };
  const auto multiple_of_8 = [&](const sym_expr& e) {
    const auto x = value(e);
    return x.has_value() && *x % 8 == 0;
  };
  const auto batch = value(v.batch);
  if (!batch.has_value()) return false;
  if (*batch != 1) {
    for (const auto& c : wgmma_fold_conditions(v)) {
      const auto x = value(c);
      if (!x.has_value() || *x != 0) return false;
    }
  }
  return multiple_of_8(v.n) && multiple_of_8(v.x.stride_r) && multiple_of_8(v.w.stride_r) &&
         multiple_of_8(v.y.stride_r);
}

ROCMTPL_INLINE std::pair<std::string, std::string> gemm_tensor_params(const gemm_view& v, bool restrict) {
  const std::string r = restrict ? " __restrict__ " : " ";
  std::string params =
      "const " + storage_text(*v.x.node) + "*" + r + "X, const " + storage_text(*v.w.node) + "*" + r + "W";
  std::string args = "X, W";
  if (v.bias.node != nullptr) {
    params += ", const " + storage_text(*v.bias.node) + "*" + r + "Bias";
    args += ", Bias";
  }
  if (v.residual.node != nullptr) {
    params += ", const " + storage_text(*v.residual.node) + "*" + r + "Residual";
    args += ", Residual";
  }
  params += epilogue_params(v.epi, "E", restrict);
  for (std::size_t i = 0; i < v.epi.size(); ++i) args += ", " + rocmtpl::detail::indexed_name("E", i);
  params += ", " + storage_text(*v.y.node) + "*" + r + "Y";
  args += ", Y";
  return {params, args};
}

ROCMTPL_INLINE std::string gemm_pointer_init(const gemm_view& v, const std::string& partial,
                                             const std::vector<std::string>& symbols) {
  std::string s = "{X, W";
  if (v.bias.node != nullptr) s += ", Bias";
  if (v.residual.node != nullptr) s += ", Residual";
  s += ", Y, " + partial;
  if (v.fused != nullptr) s += ", " + epilogue_make_call(v.epi.size(), "E", symbols);
  return s + "}";
}

ROCMTPL_INLINE std::string gemm_formula(const gemm_view& v, const gemm_options& options) {
  std::string s = "Y = " + std::string(to_string(options.act)) + "(" +
                  (options.alpha == 1.0F ? std::string() : float_literal(options.alpha) + " * ") + "X @ W";
  if (v.bias.node != nullptr) {
    s += " + " + (options.beta == 1.0F ? std::string() : float_literal(options.beta) + " * ") + "Bias";
  }
  s += ")";
  if (v.residual.node != nullptr) s += " + Residual";
  if (v.fused != nullptr) s += ", then " + v.fused->chain.to_string();
  return s;
}

}  // namespace rocmtpl::templates::detail

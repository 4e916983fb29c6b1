// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/descriptor.hpp: included by it (header-only) or compiled once
// by src/templates.cpp.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/templates/gemm/descriptor.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE bool gemm_problem::is_symbolic(std::string_view role) const {
  return std::find(symbolic.begin(), symbolic.end(), role) != symbolic.end();
}

ROCMTPL_INLINE size_hints gemm_problem::hints() const {
  size_hints h;
  for (const auto& [role, value] :
       std::vector<std::pair<std::string, std::int64_t>>{{"M", m}, {"N", n}, {"K", k}, {"B", batch}}) {
    if (is_symbolic(role)) h[role] = value;
  }
  return h;
}

ROCMTPL_INLINE rocm_template<gemm_policy> gemm_problem::make_template() const {
  if (layout.size() != 2 || layout.find_first_not_of("rc") != std::string::npos) {
    throw invalid_argument_error("rocmtpl: gemm_problem: layout '" + layout +
                                 "' is not two of 'r' (row-major) and 'c' (column-major)");
  }
  auto dim = [&](const char* role, std::int64_t value) {
    return is_symbolic(role) ? sym_expr::symbol(role) : sym_expr(value);
  };
  const sym_expr b = batched() ? dim("B", batch) : sym_expr(1);
  auto shape = [&](const sym_expr& rows, const sym_expr& cols) {
    std::vector<sym_expr> s;
    if (batched()) s.push_back(b);
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  auto operand = [&](char order, const sym_expr& rows, const sym_expr& cols) {
    return order == 'r' ? rocmtpl::layout::row_major(type, shape(rows, cols))
                        : rocmtpl::layout::col_major(type, shape(rows, cols));
  };
  const sym_expr sm = dim("M", m);
  const sym_expr sn = dim("N", n);
  const sym_expr sk = dim("K", k);
  std::vector<buffer> inputs{buffer("x", operand(layout[0], sm, sk)), buffer("w", operand(layout[1], sk, sn))};
  if (bias) inputs.emplace_back("bias", rocmtpl::layout::row_major(type, {sn}));
  return {gemm_policy(gemm_options{act, alpha}), std::move(inputs), rocmtpl::layout::row_major(type, shape(sm, sn))};
}

ROCMTPL_INLINE std::optional<gemm_problem> describe_problem(const rocm_template<gemm_policy>& t,
                                                            const size_hints& hints) {
  const auto& inputs = t.context().input_nodes();
  if (inputs.size() != 2 && inputs.size() != 3) return std::nullopt;
  const auto& x = inputs[0].get_layout();
  const auto& w = inputs[1].get_layout();
  if ((x.rank() != 2 && x.rank() != 3) || w.rank() != x.rank()) return std::nullopt;
  gemm_problem p;
  p.type = x.type();
  // A size is a constant, or the symbol of its role with a hint.
  auto size = [&](const sym_expr& e, const char* role, std::int64_t& out) {
    if (const auto c = e.constant()) {
      out = *c;
      return true;
    }
    const auto hint = hints.find(role);
    if (e != sym_expr::symbol(role) || hint == hints.end()) return false;
    out = hint->second;
    p.symbolic.emplace_back(role);
    return true;
  };
  if (!size(x.size(-2), "M", p.m) || !size(x.size(-1), "K", p.k) || !size(w.size(-1), "N", p.n)) return std::nullopt;
  if (x.rank() == 3 && !size(x.size(0), "B", p.batch)) return std::nullopt;
  std::sort(p.symbolic.begin(), p.symbolic.end());
  p.layout = {x.is_row_major() ? 'r' : 'c', w.is_row_major() ? 'r' : 'c'};
  const auto& o = t.policy().options();
  p.act = o.act;
  p.alpha = o.alpha;
  p.bias = inputs.size() == 3;
  // What make_template() gives back must be this template: its buffers, output and options.
  const gemm_options plain{o.act, o.alpha};
  if (o.beta != plain.beta || o.bias_along != plain.bias_along || o.residual != plain.residual ||
      o.runtime_split_k != plain.runtime_split_k || t.context().input_reorder()) {
    return std::nullopt;
  }
  const auto again = p.make_template();
  if (again.context().input_nodes() != inputs || again.output_node() != t.output_node()) return std::nullopt;
  return p;
}

}  // namespace rocmtpl::templates

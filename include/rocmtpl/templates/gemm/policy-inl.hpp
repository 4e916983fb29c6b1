// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/policy.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/paths.hpp>
#include <rocmtpl/templates/gemm/search_space.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<gemm_config> gemm_policy::configs() const {
  std::vector<gemm_config> out;
  for (const auto& c : simt_path::search_space()) out.emplace_back(c);
  for (const auto& c : mma_path::search_space()) out.emplace_back(c);
  return out;
}

ROCMTPL_INLINE std::vector<arg_info> gemm_policy::runtime_arg_info() const {
  if (!options_.runtime_split_k) return {};
  return {arg_info{"split_k", "int32_t"}};
}

ROCMTPL_INLINE std::vector<runtime_arg_value> gemm_policy::runtime_arg_values(const gemm_config& config) const {
  if (!options_.runtime_split_k) return {};
  return {config.split_k()};
}

ROCMTPL_INLINE rocm_template<gemm_policy> make_template(const gemm_problem& p) {
  if (p.layout.size() != 2 || p.layout.find_first_not_of("rc") != std::string::npos) {
    throw invalid_argument_error("rocmtpl: gemm_problem: layout '" + p.layout +
                                 "' is not two of 'r' (row-major) and 'c' (column-major)");
  }
  auto dim = [&](const char* role, std::int64_t value) {
    return p.is_symbolic(role) ? sym_expr::symbol(role) : sym_expr(value);
  };
  const sym_expr b = p.batched() ? dim("B", p.batch) : sym_expr(1);
  auto shape = [&](const sym_expr& rows, const sym_expr& cols) {
    std::vector<sym_expr> s;
    if (p.batched()) s.push_back(b);
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  auto operand = [&](char order, const sym_expr& rows, const sym_expr& cols) {
    return order == 'r' ? layout::row_major(p.type, shape(rows, cols)) : layout::col_major(p.type, shape(rows, cols));
  };
  const sym_expr sm = dim("M", p.m);
  const sym_expr sn = dim("N", p.n);
  const sym_expr sk = dim("K", p.k);
  std::vector<buffer> inputs{buffer("x", operand(p.layout[0], sm, sk)), buffer("w", operand(p.layout[1], sk, sn))};
  if (p.bias) inputs.emplace_back("bias", layout::row_major(p.type, {sn}));
  return {gemm_policy(gemm_options{p.act, p.alpha}), std::move(inputs), layout::row_major(p.type, shape(sm, sn))};
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
  const auto again = make_template(p);
  if (again.context().input_nodes() != inputs || again.output_node() != t.output_node()) return std::nullopt;
  return p;
}

}  // namespace rocmtpl::templates

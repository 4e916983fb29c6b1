// SPDX-License-Identifier: MIT
// Shared by the hygiene tests (issue 8): a small C++ tokenizer for generated sources, and
// problems (GEMM, elementwise, modules of both) whose every user name comes from a list, so that
// the same problem renders with harmless names and with names that an unhygienic generator would
// capture.
#pragma once

#include <rocmtpl/rocm_template.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rocmtpl::test {

/// One token of a generated source (comments, whitespace and the inside of string and character
/// literals dropped; a literal is one token).
struct token {
  std::string text;
  bool identifier = false;
};

inline bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

// Skips a comment or a string/character literal starting at i; returns its end, or i when none starts there.
inline std::size_t skip_non_code(std::string_view s, std::size_t i) {
  if (s.compare(i, 2, "//") == 0) {
    const auto nl = s.find('\n', i);
    return nl == std::string_view::npos ? s.size() : nl;
  }
  if (s.compare(i, 2, "/*") == 0) {
    const auto end = s.find("*/", i + 2);
    return end == std::string_view::npos ? s.size() : end + 2;
  }
  if (s[i] == '"' || s[i] == '\'') {
    std::size_t j = i + 1;
    while (j < s.size() && s[j] != s[i]) j += s[j] == '\\' ? 2 : 1;
    return std::min(j + 1, s.size());
  }
  return i;
}

/// Tokens of a C++ source: identifiers, numbers (with suffixes), literals, single punctuation characters.
inline std::vector<token> tokenize(std::string_view s) {
  std::vector<token> out;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (const auto end = skip_non_code(s, i); end != i) {
      if (c == '"' || c == '\'') out.push_back({"<literal>", false});
      i = end;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (ident_char(c)) {  // identifiers and numbers (a number never starts an identifier)
      std::size_t j = i;
      while (j < s.size() && (ident_char(s[j]) || (s[j] == '.' && !ident_start(c)))) ++j;
      out.push_back({std::string(s.substr(i, j - i)), ident_start(c)});
      i = j;
    } else {
      out.push_back({std::string(1, c), false});
      ++i;
    }
  }
  return out;
}

/// Every identifier of a source outside comments and literals, unique, in order of first appearance.
inline std::vector<std::string> identifiers_of(std::string_view source) {
  std::vector<std::string> out;
  for (auto& t : tokenize(source)) {
    if (t.identifier && std::find(out.begin(), out.end(), t.text) == out.end()) out.push_back(std::move(t.text));
  }
  return out;
}

/// Hands out the next names of a list, one at a time.
class name_pool {
 public:
  explicit name_pool(std::vector<std::string> names) : names_(std::move(names)) {}
  [[nodiscard]] std::size_t left() const { return names_.size() - next_; }
  std::string take() { return names_.at(next_++); }
  sym_expr sym() { return sym_expr::symbol(take()); }

 private:
  std::vector<std::string> names_;
  std::size_t next_ = 0;
};

/// Names a GEMM problem consumes: 15 size symbols, then the X, W and Y buffer names.
inline constexpr std::size_t gemm_names = 18;
/// Names an elementwise problem consumes: 8 size symbols, then the X, Bias and Y buffer names.
inline constexpr std::size_t elementwise_names = 11;

/// A problem rendered from a template: its buffers (inputs first) and a value for every symbol.
template <class Policy>
struct problem {
  rocm_template<Policy> tmpl;
  std::vector<buffer> inputs;
  buffer output;
  size_hints hints;
};

inline void hint_all(size_hints& hints, const std::vector<buffer>& buffers, std::int64_t value) {
  for (const auto& b : buffers) {
    for (const auto& s : b.get_layout().free_symbols()) hints.emplace(s, value);
  }
}

/// Y[b, m, n] = act(X[b, m, k] @ W[k, n] + Bias[n]) with every size, stride and offset a symbol.
inline problem<templates::gemm_policy> make_gemm(name_pool& names) {
  const sym_expr b = names.sym(), m = names.sym(), n = names.sym(), k = names.sym();
  const sym_expr xs0 = names.sym(), xs1 = names.sym(), xs2 = names.sym(), xo = names.sym();
  const sym_expr ws0 = names.sym(), ws1 = names.sym(), wo = names.sym();
  const sym_expr ys0 = names.sym(), ys1 = names.sym(), ys2 = names.sym(), yo = names.sym();
  buffer x(names.take(), layout(dtype::f16, {b, m, k}, {xs0, xs1, xs2}, xo));
  buffer w(names.take(), layout(dtype::f16, {k, n}, {ws0, ws1}, wo));
  buffer y(names.take(), layout(dtype::f32, {b, m, n}, {ys0, ys1, ys2}, yo));
  templates::gemm_options o{.act = templates::activation::relu, .runtime_split_k = true};
  problem<templates::gemm_policy> p{{templates::gemm_policy(o), {x, w}, y.get_layout()}, {x, w}, y, {}};
  hint_all(p.hints, {x, w, y}, 64);
  return p;
}

/// Y[m, n] = gelu(X[m, n] + Bias[n]) with every size, stride and offset a symbol.
inline problem<templates::elementwise_policy> make_elementwise(name_pool& names) {
  const sym_expr m = names.sym(), n = names.sym(), xs0 = names.sym(), xs1 = names.sym(), xo = names.sym();
  const sym_expr bs = names.sym(), ys0 = names.sym(), ys1 = names.sym();
  buffer x(names.take(), layout(dtype::f32, {m, n}, {xs0, xs1}, xo));
  buffer bias(names.take(), layout(dtype::f32, {n}, {bs}));
  buffer y(names.take(), layout(dtype::f32, {m, n}, {ys0, ys1}));
  problem<templates::elementwise_policy> p{
      {templates::elementwise_policy({templates::activation::gelu}), {x, bias}, y.get_layout()}, {x, bias}, y, {}};
  hint_all(p.hints, {x, bias, y}, 64);
  return p;
}

/// The source of one problem, rendered with its first configuration.
template <class Policy>
std::string render(const problem<Policy>& p) {
  return p.tmpl.generate(typename Policy::config_type{}, p.hints).source();
}

/// A module of GEMM nodes (and elementwise nodes where `elementwise`) that takes its names from
/// the pool while enough are left for one more node; every node's output is a module output.
inline module_graph make_module(const std::string& module_name, name_pool& names, bool elementwise,
                                std::size_t max_nodes = 1000) {
  module_graph g(module_name);
  const std::size_t need = elementwise ? elementwise_names : gemm_names;
  for (std::size_t i = 0; i < max_nodes && names.left() >= need; ++i) {
    auto add = [&](auto p) {
      for (const auto& in : p.inputs) g.add_input(in);
      g.add_node(p.output.name(), p.tmpl.generate({}, p.hints).output_node());
      g.add_output(p.output.name());
    };
    if (elementwise) {
      add(make_elementwise(names));
    } else {
      add(make_gemm(names));
    }
  }
  return g;
}

/// Module options for hygiene checks: no fusion (every node keeps its own kernel).
inline module_options hygiene_module_options(bool runner) {
  module_options o;
  o.fuse_epilogues = false;
  o.standalone_runner = runner;
  return o;
}

}  // namespace rocmtpl::test

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

bool ident_start(char c);
bool ident_char(char c);

// Skips a comment or a string/character literal starting at i; returns its end, or i when none starts there.
std::size_t skip_non_code(std::string_view s, std::size_t i);

/// Tokens of a C++ source: identifiers, numbers (with suffixes), literals, single punctuation characters.
std::vector<token> tokenize(std::string_view s);

/// Every identifier of a source outside comments and literals, unique, in order of first appearance.
std::vector<std::string> identifiers_of(std::string_view source);

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

void hint_all(size_hints& hints, const std::vector<buffer>& buffers, std::int64_t value);

/// Y[b, m, n] = act(X[b, m, k] @ W[k, n] + Bias[n]) with every size, stride and offset a symbol.
problem<templates::gemm_policy> make_gemm(name_pool& names);

/// Y[m, n] = gelu(X[m, n] + Bias[n]) with every size, stride and offset a symbol.
problem<templates::elementwise_policy> make_elementwise(name_pool& names);

/// The source of one problem, rendered with its first configuration.
template <class Policy>
std::string render(const problem<Policy>& p) {
  return p.tmpl.generate(typename Policy::config_type{}, p.hints).source();
}

/// A module of GEMM nodes (and elementwise nodes where `elementwise`) that takes its names from
/// the pool while enough are left for one more node; every node's output is a module output.
module_graph make_module(const std::string& module_name, name_pool& names, bool elementwise,
                         std::size_t max_nodes = 1000);

/// Module options for hygiene checks: no fusion (every node keeps its own kernel).
module_options hygiene_module_options(bool runner);

}  // namespace rocmtpl::test

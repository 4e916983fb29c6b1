// SPDX-License-Identifier: MIT
#include "support/hygiene.hpp"

namespace rocmtpl::test {

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

std::size_t skip_non_code(std::string_view s, std::size_t i) {
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

std::vector<token> tokenize(std::string_view s) {
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

std::vector<std::string> identifiers_of(std::string_view source) {
  std::vector<std::string> out;
  for (auto& t : tokenize(source)) {
    if (t.identifier && std::find(out.begin(), out.end(), t.text) == out.end()) out.push_back(std::move(t.text));
  }
  return out;
}

void hint_all(size_hints& hints, const std::vector<buffer>& buffers, std::int64_t value) {
  for (const auto& b : buffers) {
    for (const auto& s : b.get_layout().free_symbols()) hints.emplace(s, value);
  }
}

problem<templates::gemm_policy> make_gemm(name_pool& names) {
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

problem<templates::elementwise_policy> make_elementwise(name_pool& names) {
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

module_graph make_module(const std::string& module_name, name_pool& names, bool elementwise, std::size_t max_nodes) {
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

module_options hygiene_module_options(bool runner) {
  module_options o;
  o.fuse_epilogues = false;
  o.standalone_runner = runner;
  return o;
}

}  // namespace rocmtpl::test

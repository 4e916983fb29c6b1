// SPDX-License-Identifier: MIT
#pragma once

// The implementation of ir/sym_expr.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

ROCMTPL_INLINE sym_expr product(std::span<const sym_expr> factors) {
  sym_expr out = 1;
  for (const auto& f : factors) out *= f;
  return out;
}

namespace detail {

// ---- checked int64 arithmetic -------------------------------------------------------------------

ROCMTPL_INLINE void sym_overflow(std::int64_t a, const char* op, std::int64_t b) {
  throw evaluation_error("rocmtpl: sym_expr: int64_t overflow in " + std::to_string(a) + " " + op + " " +
                         std::to_string(b) + "; the value does not fit in int64_t");
}

ROCMTPL_INLINE std::int64_t sym_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) sym_overflow(a, "+", b);
  return r;
}

ROCMTPL_INLINE std::int64_t sym_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) sym_overflow(a, "-", b);
  return r;
}

ROCMTPL_INLINE std::int64_t sym_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) sym_overflow(a, "*", b);
  return r;
}

// Python a // b, b != 0.
ROCMTPL_INLINE std::int64_t sym_floordiv(std::int64_t a, std::int64_t b) {
  if (b == -1) return sym_sub(0, a);  // INT64_MIN // -1 overflows
  const std::int64_t q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Python a % b, b != 0.
ROCMTPL_INLINE std::int64_t sym_mod(std::int64_t a, std::int64_t b) {
  if (b == -1) return 0;
  const std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

ROCMTPL_INLINE std::uint64_t sym_abs(std::int64_t v) noexcept {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

ROCMTPL_INLINE std::string sym_literal(std::int64_t v) {
  // 9223372036854775808 is not an int64 literal, so INT64_MIN is written as an expression.
  if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return std::to_string(v);
}

// ---- monomials ----------------------------------------------------------------------------------

ROCMTPL_INLINE std::int64_t sym_degree(const sym_monomial& m) noexcept {
  std::int64_t d = 0;
  for (const auto& f : m) d += f.exponent;  // kept in range by sym_mul_monomials
  return d;
}

ROCMTPL_INLINE sym_monomial sym_mul_monomials(const sym_monomial& a, const sym_monomial& b) {
  sym_monomial out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() || j < b.size()) {
    const int c = i == a.size() ? 1 : j == b.size() ? -1 : sym_ops::compare_atom(*a[i].atom, *b[j].atom);
    if (c < 0) {
      out.push_back(a[i++]);
    } else if (c > 0) {
      out.push_back(b[j++]);
    } else {
      out.push_back({a[i].atom, sym_add(a[i].exponent, b[j].exponent)});
      ++i;
      ++j;
    }
  }
  // Keep every monomial's degree in range, so that comparisons can add exponents unchecked.
  std::int64_t degree = 0;
  for (const auto& f : out) degree = sym_add(degree, f.exponent);
  (void)degree;
  return out;
}

// Common part of two monomials (minimum exponents).
ROCMTPL_INLINE sym_monomial sym_gcd_monomials(const sym_monomial& a, const sym_monomial& b) {
  sym_monomial out;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const int c = sym_ops::compare_atom(*a[i].atom, *b[j].atom);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      out.push_back({a[i].atom, std::min(a[i].exponent, b[j].exponent)});
      ++i;
      ++j;
    }
  }
  return out;
}

// True when d divides m.
ROCMTPL_INLINE bool sym_monomial_divides(const sym_monomial& d, const sym_monomial& m) {
  std::size_t j = 0;
  for (const auto& f : d) {
    while (j < m.size() && sym_ops::compare_atom(*m[j].atom, *f.atom) < 0) ++j;
    if (j == m.size() || sym_ops::compare_atom(*m[j].atom, *f.atom) != 0 || m[j].exponent < f.exponent) {
      return false;
    }
    ++j;
  }
  return true;
}

// m / d, where d divides m.
ROCMTPL_INLINE sym_monomial sym_div_monomials(const sym_monomial& m, const sym_monomial& d) {
  sym_monomial out;
  std::size_t j = 0;
  for (const auto& f : m) {
    if (j < d.size() && sym_ops::compare_atom(*f.atom, *d[j].atom) == 0) {
      if (f.exponent > d[j].exponent) out.push_back({f.atom, f.exponent - d[j].exponent});
      ++j;
    } else {
      out.push_back(f);
    }
  }
  return out;
}

ROCMTPL_INLINE void sym_hash_mix(std::size_t& seed, std::size_t v) noexcept {
  seed ^= v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

// ---- sym_ops ------------------------------------------------------------------------------------

ROCMTPL_INLINE const std::vector<sym_term>& sym_ops::terms(const sym_expr& e) noexcept {
  static const std::vector<sym_term> empty;
  return e.poly_ ? e.poly_->terms : empty;
}

ROCMTPL_INLINE sym_expr sym_ops::from_terms(std::vector<sym_term> terms) {
  if (terms.empty()) return sym_expr();
  return sym_expr(std::make_shared<const sym_poly>(sym_poly{std::move(terms)}));
}

ROCMTPL_INLINE sym_expr sym_ops::normalize(std::vector<sym_term> terms) {
  std::stable_sort(terms.begin(), terms.end(),
                   [](const sym_term& a, const sym_term& b) { return compare_monomial(a.monomial, b.monomial) < 0; });
  std::vector<sym_term> out;
  out.reserve(terms.size());
  for (auto& t : terms) {
    if (!out.empty() && compare_monomial(out.back().monomial, t.monomial) == 0) {
      out.back().coeff = sym_add(out.back().coeff, t.coeff);
    } else {
      out.push_back(std::move(t));
    }
  }
  std::erase_if(out, [](const sym_term& t) { return t.coeff == 0; });
  return from_terms(std::move(out));
}

ROCMTPL_INLINE sym_expr sym_ops::make_atom(sym_atom_kind kind, const sym_expr& lhs, const sym_expr& rhs) {
  auto atom = std::make_shared<const sym_atom>(sym_atom{kind, {}, lhs, rhs});
  return from_terms({sym_term{1, {sym_factor{std::move(atom), 1}}}});
}

ROCMTPL_INLINE int sym_ops::compare_atom(const sym_atom& a, const sym_atom& b) noexcept {
  if (&a == &b) return 0;
  if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
  if (a.kind == sym_atom_kind::symbol) {
    const int c = a.name.compare(b.name);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (const int c = compare(a.lhs, b.lhs); c != 0) return c;
  return compare(a.rhs, b.rhs);
}

// Degree first, then atoms lexicographically (a lower power first), then length.
ROCMTPL_INLINE int sym_ops::compare_monomial(const sym_monomial& a, const sym_monomial& b) noexcept {
  const std::int64_t da = sym_degree(a);
  const std::int64_t db = sym_degree(b);
  if (da != db) return da < db ? -1 : 1;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (const int c = compare_atom(*a[i].atom, *b[i].atom); c != 0) return c;
    if (a[i].exponent != b[i].exponent) return a[i].exponent < b[i].exponent ? -1 : 1;
  }
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return 0;
}

ROCMTPL_INLINE int sym_ops::compare(const sym_expr& a, const sym_expr& b) noexcept {
  if (a.poly_ == b.poly_) return 0;
  const auto& ta = terms(a);
  const auto& tb = terms(b);
  for (std::size_t i = 0; i < ta.size() && i < tb.size(); ++i) {
    if (const int c = compare_monomial(ta[i].monomial, tb[i].monomial); c != 0) return c;
    if (ta[i].coeff != tb[i].coeff) return ta[i].coeff < tb[i].coeff ? -1 : 1;
  }
  if (ta.size() != tb.size()) return ta.size() < tb.size() ? -1 : 1;
  return 0;
}

ROCMTPL_INLINE sym_expr sym_ops::add(const sym_expr& a, const sym_expr& b, bool subtract) {
  const auto& ta = terms(a);
  const auto& tb = terms(b);
  if (tb.empty()) return a;
  if (ta.empty() && !subtract) return b;
  std::vector<sym_term> out;
  out.reserve(ta.size() + tb.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < ta.size() || j < tb.size()) {
    const int c = i == ta.size() ? 1 : j == tb.size() ? -1 : compare_monomial(ta[i].monomial, tb[j].monomial);
    if (c < 0) {
      out.push_back(ta[i++]);
    } else if (c > 0) {
      out.push_back({subtract ? sym_sub(0, tb[j].coeff) : tb[j].coeff, tb[j].monomial});
      ++j;
    } else {
      const std::int64_t coeff = subtract ? sym_sub(ta[i].coeff, tb[j].coeff) : sym_add(ta[i].coeff, tb[j].coeff);
      if (coeff != 0) out.push_back({coeff, ta[i].monomial});
      ++i;
      ++j;
    }
  }
  return from_terms(std::move(out));
}

ROCMTPL_INLINE sym_expr sym_ops::negate(const sym_expr& a) { return add(sym_expr(), a, true); }

ROCMTPL_INLINE sym_expr sym_ops::mul(const sym_expr& a, const sym_expr& b) {
  const auto& ta = terms(a);
  const auto& tb = terms(b);
  if (ta.empty() || tb.empty()) return sym_expr();
  if (auto c = a.constant(); c && *c == 1) return b;
  if (auto c = b.constant(); c && *c == 1) return a;
  std::vector<sym_term> out;
  out.reserve(ta.size() * tb.size());
  for (const auto& x : ta) {
    for (const auto& y : tb) out.push_back({sym_mul(x.coeff, y.coeff), sym_mul_monomials(x.monomial, y.monomial)});
  }
  return normalize(std::move(out));
}

ROCMTPL_INLINE sym_expr sym_ops::power(const sym_expr& a, std::int64_t exponent) {
  sym_expr out = 1;
  sym_expr base = a;
  while (exponent > 0) {
    if (exponent & 1) out = mul(out, base);
    exponent >>= 1;
    if (exponent > 0) base = mul(base, base);
  }
  return out;
}

namespace sym_division {

ROCMTPL_INLINE cancelled cancel_common_factor(const sym_expr& a, const sym_expr& b) {
  const auto& ta = sym_ops::terms(a);
  const auto& tb = sym_ops::terms(b);
  std::uint64_t g = 0;
  sym_monomial m = ta.front().monomial;
  for (const auto& t : ta) {
    g = std::gcd(g, sym_abs(t.coeff));
    m = sym_gcd_monomials(m, t.monomial);
  }
  for (const auto& t : tb) {
    g = std::gcd(g, sym_abs(t.coeff));
    m = sym_gcd_monomials(m, t.monomial);
  }
  // Only when every coefficient is INT64_MIN is g = 2^63, which is no int64; half of it also divides.
  if (g > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) g /= 2;
  const auto gi = static_cast<std::int64_t>(g);
  if (gi == 1 && m.empty()) return {a, b, sym_expr(1)};
  auto divide = [&](const std::vector<sym_term>& terms) {
    std::vector<sym_term> out;
    out.reserve(terms.size());
    for (const auto& t : terms) out.push_back({t.coeff / gi, sym_div_monomials(t.monomial, m)});
    return sym_ops::normalize(std::move(out));
  };
  return {divide(ta), divide(tb), sym_ops::from_terms({sym_term{gi, m}})};
}

// True when a == -b (compared without negating, which could overflow).
ROCMTPL_INLINE bool is_negation(const sym_expr& a, const sym_expr& b) {
  const auto& ta = sym_ops::terms(a);
  const auto& tb = sym_ops::terms(b);
  if (ta.size() != tb.size()) return false;
  for (std::size_t i = 0; i < ta.size(); ++i) {
    if (sym_ops::compare_monomial(ta[i].monomial, tb[i].monomial) != 0) return false;
    if (tb[i].coeff == std::numeric_limits<std::int64_t>::min() || ta[i].coeff != -tb[i].coeff) return false;
  }
  return true;
}

// The only atom of e when e is exactly one atom (coefficient 1, power 1) of the given kind.
ROCMTPL_INLINE const sym_atom* single_atom(const sym_expr& e, sym_atom_kind kind) {
  const auto& t = sym_ops::terms(e);
  if (t.size() != 1 || t.front().coeff != 1 || t.front().monomial.size() != 1) return nullptr;
  const auto& f = t.front().monomial.front();
  return f.exponent == 1 && f.atom->kind == kind ? f.atom.get() : nullptr;
}

// Positive constant divisor of a mod atom, if it has one.
ROCMTPL_INLINE std::optional<std::int64_t> positive_constant(const sym_expr& e) {
  auto c = e.constant();
  if (c && *c > 0) return c;
  return std::nullopt;
}

ROCMTPL_INLINE void division_by_zero(const char* function, const sym_expr& a) {
  throw evaluation_error(std::string("rocmtpl: sym_expr: division by zero in ") + function + "(" + a.to_string() +
                         ", 0); the divisor must be non-zero");
}

}  // namespace sym_division

ROCMTPL_INLINE sym_expr sym_ops::floor_div(const sym_expr& a_in, const sym_expr& b_in) {
  using namespace sym_division;
  const auto cb_in = b_in.constant();
  if (cb_in && *cb_in == 0) division_by_zero("floor_div", a_in);
  if (terms(a_in).empty()) return sym_expr();
  if (auto ca = a_in.constant(); ca && cb_in) return sym_floordiv(*ca, *cb_in);

  auto [a, b, g] = cancel_common_factor(a_in, b_in);
  (void)g;                          // floor(g*a / (g*b)) = floor(a / b)
  if (terms(b).back().coeff < 0) {  // floor(a / -b) = floor(-a / b)
    a = negate(a);
    b = negate(b);
  }
  if (auto cb = b.constant(); cb && *cb == 1) return a;
  if (a == b) return 1;
  if (is_negation(a, b)) return -1;
  if (terms(b).size() != 1) return make_atom(sym_atom_kind::floor_div, a, b);

  // One-term divisor d = c*m: floor((q*d + r) / d) = q + floor(r / d) for integer q.
  const sym_term& d = terms(b).front();
  std::vector<sym_term> quotient;
  std::vector<sym_term> rest;
  for (const auto& t : terms(a)) {
    if (t.coeff % d.coeff == 0 && sym_monomial_divides(d.monomial, t.monomial)) {
      quotient.push_back({t.coeff / d.coeff, sym_div_monomials(t.monomial, d.monomial)});
    } else {
      rest.push_back(t);
    }
  }
  const sym_expr q = normalize(std::move(quotient));
  const sym_expr r = from_terms(std::move(rest));  // order kept: monomials unchanged
  if (terms(r).empty()) return q;
  const auto cb = b.constant();
  if (auto cr = r.constant(); cr && cb) return q + sym_floordiv(*cr, *cb);
  if (cb) {  // c > 0 here
    if (const sym_atom* inner = single_atom(r, sym_atom_kind::floor_div)) {
      return q + floor_div(inner->lhs, inner->rhs * b);  // floor(floor(x) / c) = floor(x / c)
    }
    if (const sym_atom* inner = single_atom(r, sym_atom_kind::mod)) {
      if (auto c1 = positive_constant(inner->rhs); c1 && *c1 <= *cb) return q;  // 0 <= mod(x, c1) < c
    }
  }
  return q + make_atom(sym_atom_kind::floor_div, r, b);
}

ROCMTPL_INLINE sym_expr sym_ops::mod(const sym_expr& a_in, const sym_expr& b_in) {
  using namespace sym_division;
  const auto cb_in = b_in.constant();
  if (cb_in && *cb_in == 0) division_by_zero("mod", a_in);
  if (terms(a_in).empty()) return sym_expr();
  if (auto ca = a_in.constant(); ca && cb_in) return sym_mod(*ca, *cb_in);

  auto [a, b, g] = cancel_common_factor(a_in, b_in);  // mod(g*a, g*b) = g*mod(a, b)
  if (terms(b).back().coeff < 0) {                    // mod(a, -b) = -mod(-a, b)
    a = negate(a);
    b = negate(b);
    g = negate(g);
  }
  if (auto cb = b.constant(); cb && *cb == 1) return sym_expr();
  if (a == b || is_negation(a, b)) return sym_expr();
  if (terms(b).size() == 1) {
    // One-term divisor d = c*m: a term k*m*x is (k mod c)*m*x plus a multiple of d.
    const sym_term& d = terms(b).front();
    std::vector<sym_term> rest;
    for (const auto& t : terms(a)) {
      if (sym_monomial_divides(d.monomial, t.monomial)) {
        if (const std::int64_t k = sym_mod(t.coeff, d.coeff); k != 0) rest.push_back({k, t.monomial});
      } else {
        rest.push_back(t);
      }
    }
    a = from_terms(std::move(rest));  // order kept: monomials unchanged
    if (terms(a).empty()) return sym_expr();
    const auto cb = b.constant();
    if (auto ca = a.constant(); ca && cb) return g * sym_mod(*ca, *cb);
    if (cb) {  // c > 0 here
      if (const sym_atom* inner = single_atom(a, sym_atom_kind::mod)) {
        if (auto c1 = positive_constant(inner->rhs)) {
          if (*c1 % *cb == 0) return g * mod(inner->lhs, b);  // mod(mod(x, k*c), c) = mod(x, c)
          if (*c1 <= *cb) return g * a;                       // 0 <= mod(x, c1) < c
        }
      }
    }
  }
  return g * make_atom(sym_atom_kind::mod, a, b);
}

ROCMTPL_INLINE std::string sym_ops::print(const sym_expr& e, sym_print mode, std::string_view ok_flag) {
  const auto& ts = terms(e);
  if (ts.empty()) return "0";
  const bool checked = mode == sym_print::checked;
  const std::string flag = ", &" + std::string(ok_flag) + ")";
  // A checked operation: rocmtpl_size_<op>(a, b, &ok).
  auto op = [&](const char* name, const std::string& a, const std::string& b) {
    return "rocmtpl_size_" + std::string(name) + "(" + a + ", " + b + flag;
  };
  auto atom_text = [&](const sym_atom& atom) -> std::string {
    switch (atom.kind) {
      case sym_atom_kind::symbol: return mode == sym_print::plain ? atom.name : user_identifier(atom.name);
      case sym_atom_kind::floor_div:
        if (checked) return op("floordiv", print(atom.lhs, mode, ok_flag), print(atom.rhs, mode, ok_flag));
        return "rocmtpl_floordiv(" + print(atom.lhs, mode) + ", " + print(atom.rhs, mode) + ")";
      case sym_atom_kind::mod: break;
    }
    if (checked) return op("mod", print(atom.lhs, mode, ok_flag), print(atom.rhs, mode, ok_flag));
    return "rocmtpl_mod(" + print(atom.lhs, mode) + ", " + print(atom.rhs, mode) + ")";
  };
  // coeff*A*A*B, "A*B" for 1, "-A*B" for -1; checked: the products of evaluate(), left to right.
  auto term_text = [&](std::int64_t coeff, const sym_monomial& m) {
    if (m.empty()) return sym_literal(coeff);
    std::string s = checked ? std::string() : coeff == 1 ? "" : coeff == -1 ? "-" : sym_literal(coeff) + "*";
    bool first_factor = true;
    if (checked && coeff != 1 && coeff != -1) {
      s = sym_literal(coeff);
      first_factor = false;
    }
    for (const auto& f : m) {
      const std::string a = atom_text(*f.atom);
      for (std::int64_t k = 0; k < f.exponent; ++k) {
        if (!checked) {
          s += (first_factor ? "" : "*") + a;
        } else if (first_factor) {
          s = coeff == -1 ? op("sub", "0", a) : a;
        } else {
          s = op("mul", s, a);
        }
        first_factor = false;
      }
    }
    return s;
  };
  std::string out;
  sym_for_each_in_print_order(ts, [&](const sym_term& t, bool first) {
    const bool minus = !first && t.coeff < 0 && t.coeff != std::numeric_limits<std::int64_t>::min();
    const std::string term = term_text(minus ? -t.coeff : t.coeff, t.monomial);
    if (first) {
      out = term;
    } else if (checked) {
      out = op(minus ? "sub" : "add", out, term);
    } else {
      out += (minus ? " - " : " + ") + term;
    }
  });
  return out;
}

// Mirrors print() operation by operation, so that overflow is detected where the C++ text overflows.
ROCMTPL_INLINE std::int64_t sym_ops::evaluate(const sym_expr& e, const size_hints& hints, const sym_expr& root) {
  auto atom_value = [&](const sym_atom& atom) -> std::int64_t {
    if (atom.kind == sym_atom_kind::symbol) {
      const auto it = hints.find(atom.name);
      if (it == hints.end()) {
        throw evaluation_error("rocmtpl: sym_expr: no value for symbol '" + atom.name + "' in " + root.to_string() +
                               "; add it to the size hints");
      }
      return it->second;
    }
    const std::int64_t a = evaluate(atom.lhs, hints, root);
    const std::int64_t b = evaluate(atom.rhs, hints, root);
    const bool is_floor = atom.kind == sym_atom_kind::floor_div;
    if (b == 0) {
      throw evaluation_error(std::string("rocmtpl: sym_expr: division by zero in ") +
                             (is_floor ? "rocmtpl_floordiv(" : "rocmtpl_mod(") + atom.lhs.to_string() + ", " +
                             atom.rhs.to_string() + ") while evaluating " + root.to_string() + ": the divisor is 0");
    }
    return is_floor ? sym_floordiv(a, b) : sym_mod(a, b);
  };
  auto term_value = [&](std::int64_t coeff, const sym_monomial& m) -> std::int64_t {
    if (m.empty()) return coeff;
    std::optional<std::int64_t> acc;
    if (coeff != 1 && coeff != -1) acc = coeff;
    for (const auto& f : m) {
      const std::int64_t v = atom_value(*f.atom);
      for (std::int64_t k = 0; k < f.exponent; ++k) {
        if (!acc) {
          acc = coeff == -1 ? sym_sub(0, v) : v;
        } else {
          acc = sym_mul(*acc, v);
        }
      }
    }
    return *acc;
  };
  std::int64_t acc = 0;
  sym_for_each_in_print_order(terms(e), [&](const sym_term& t, bool first) {
    if (first) {
      acc = term_value(t.coeff, t.monomial);
    } else if (t.coeff < 0 && t.coeff != std::numeric_limits<std::int64_t>::min()) {
      acc = sym_sub(acc, term_value(-t.coeff, t.monomial));
    } else {
      acc = sym_add(acc, term_value(t.coeff, t.monomial));
    }
  });
  return acc;
}

ROCMTPL_INLINE void sym_ops::collect_symbols(const sym_expr& e, std::set<std::string, std::less<>>& out) {
  for (const auto& t : terms(e)) {
    for (const auto& f : t.monomial) {
      if (f.atom->kind == sym_atom_kind::symbol) {
        out.insert(f.atom->name);
      } else {
        collect_symbols(f.atom->lhs, out);
        collect_symbols(f.atom->rhs, out);
      }
    }
  }
}

ROCMTPL_INLINE std::size_t sym_ops::hash(const sym_expr& e) noexcept {
  std::size_t seed = terms(e).size();
  for (const auto& t : terms(e)) {
    sym_hash_mix(seed, static_cast<std::size_t>(t.coeff));
    for (const auto& f : t.monomial) {
      sym_hash_mix(seed, static_cast<std::size_t>(f.atom->kind));
      if (f.atom->kind == sym_atom_kind::symbol) {
        sym_hash_mix(seed, std::hash<std::string_view>{}(f.atom->name));
      } else {
        sym_hash_mix(seed, hash(f.atom->lhs));
        sym_hash_mix(seed, hash(f.atom->rhs));
      }
      sym_hash_mix(seed, static_cast<std::size_t>(f.exponent));
    }
  }
  return seed;
}

}  // namespace detail

// ---- sym_expr members ---------------------------------------------------------------------------

ROCMTPL_INLINE sym_expr::sym_expr(std::int64_t value) {
  if (value != 0) {
    poly_ = std::make_shared<const detail::sym_poly>(detail::sym_poly{{detail::sym_term{value, {}}}});
  }
}

ROCMTPL_INLINE sym_expr sym_expr::symbol(std::string_view name) {
  check_name("sym_expr: symbol name", name);
  auto atom = std::make_shared<const detail::sym_atom>(
      detail::sym_atom{detail::sym_atom_kind::symbol, std::string(name), {}, {}});
  return detail::sym_ops::from_terms({detail::sym_term{1, {detail::sym_factor{std::move(atom), 1}}}});
}

ROCMTPL_INLINE bool sym_expr::is_constant() const noexcept {
  const auto& t = detail::sym_ops::terms(*this);
  return t.empty() || (t.size() == 1 && t.front().monomial.empty());
}

ROCMTPL_INLINE std::optional<std::int64_t> sym_expr::constant() const noexcept {
  const auto& t = detail::sym_ops::terms(*this);
  if (t.empty()) return std::int64_t{0};
  if (t.size() == 1 && t.front().monomial.empty()) return t.front().coeff;
  return std::nullopt;
}

ROCMTPL_INLINE bool sym_expr::is_symbol() const noexcept {
  const auto& t = detail::sym_ops::terms(*this);
  return t.size() == 1 && t.front().coeff == 1 && t.front().monomial.size() == 1 &&
         t.front().monomial.front().exponent == 1 &&
         t.front().monomial.front().atom->kind == detail::sym_atom_kind::symbol;
}

ROCMTPL_INLINE std::optional<std::string> sym_expr::symbol_name() const {
  if (!is_symbol()) return std::nullopt;
  return detail::sym_ops::terms(*this).front().monomial.front().atom->name;
}

ROCMTPL_INLINE std::vector<std::string> sym_expr::free_symbols() const {
  std::set<std::string, std::less<>> names;
  detail::sym_ops::collect_symbols(*this, names);
  return {names.begin(), names.end()};
}

ROCMTPL_INLINE sym_expr sym_expr::substitute(const size_hints& values) const {
  return detail::sym_ops::map_atoms(*this, [&](const detail::sym_atom& atom, const sym_expr& self) -> sym_expr {
    switch (atom.kind) {
      case detail::sym_atom_kind::symbol: {
        const auto it = values.find(atom.name);
        return it == values.end() ? self : sym_expr(it->second);
      }
      case detail::sym_atom_kind::floor_div:
        return rocmtpl::floor_div(atom.lhs.substitute(values), atom.rhs.substitute(values));
      case detail::sym_atom_kind::mod: break;
    }
    return rocmtpl::mod(atom.lhs.substitute(values), atom.rhs.substitute(values));
  });
}

ROCMTPL_INLINE sym_expr sym_expr::substitute_symbols(const sym_bindings& replacements) const {
  return detail::sym_ops::map_atoms(*this, [&](const detail::sym_atom& atom, const sym_expr& self) -> sym_expr {
    switch (atom.kind) {
      case detail::sym_atom_kind::symbol: {
        const auto it = replacements.find(atom.name);
        return it == replacements.end() ? self : it->second;
      }
      case detail::sym_atom_kind::floor_div:
        return rocmtpl::floor_div(atom.lhs.substitute_symbols(replacements), atom.rhs.substitute_symbols(replacements));
      case detail::sym_atom_kind::mod: break;
    }
    return rocmtpl::mod(atom.lhs.substitute_symbols(replacements), atom.rhs.substitute_symbols(replacements));
  });
}

ROCMTPL_INLINE std::string sym_expr::to_cpp_checked(std::string_view ok_flag) const {
  if (!is_identifier(ok_flag)) {
    throw invalid_argument_error("rocmtpl: sym_expr: to_cpp_checked flag '" + std::string(ok_flag) +
                                 "' is not a C identifier; name a bool variable");
  }
  return detail::sym_ops::print(*this, detail::sym_print::checked, ok_flag);
}

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief sym_expr: symbolic int64 size expressions (Inductor's sympy sizes) in a canonical form,
/// with exact evaluation and a C++ printer for generated kernels.
///
/// Canonical form: a sum of terms `coefficient * monomial`, where a monomial is a product of
/// atoms raised to positive powers and an atom is a symbol, `floor_div(a, b)` or `mod(a, b)`
/// (with canonical arguments). Like terms are combined, zero terms dropped, and terms sorted by
/// a total order on monomials (degree, then atoms: symbols by name, then floor_div, then mod).
/// Two expressions that are equal as polynomials over their atoms compare equal and print the same.
///
/// Simplifications of floor_div / mod (all exact for integer symbols):
/// - constants are folded with Python semantics (`//` rounds toward negative infinity, `%` takes
///   the sign of the divisor);
/// - a common factor of dividend and divisor is cancelled (`floor_div(2*N, 4) -> floor_div(N, 2)`,
///   `mod(2*N, 4) -> 2*mod(N, 2)`, `floor_div(M*N, N) -> M`); like sympy, this assumes that a
///   cancelled symbolic factor is non-zero;
/// - the divisor is made to have a positive leading coefficient;
/// - for a one-term divisor d, dividend terms that are multiples of d leave the division
///   (`floor_div(4*M + N, 2) -> 2*M + floor_div(N, 2)`, `mod(4*M + 3, 2) -> 1`);
/// - `floor_div(x, 1) = x`, `mod(x, 1) = 0`, `floor_div(0, b) = 0`, `mod(0, b) = 0`, `floor_div(x, x) = 1`,
///   `mod(x, x) = 0`; nested `floor_div(floor_div(x, a), c) = floor_div(x, a*c)` for constant c > 0;
///   `mod(mod(x, c1), c2) = mod(x, c2)` when c2 divides c1 and `= mod(x, c1)` when c1 <= c2;
///   `floor_div(mod(x, c1), c2) = 0` when c1 <= c2.
///
/// Overflow: every coefficient and every folded constant is an exact int64_t; an operation whose
/// result does not fit throws evaluation_error (checked with `__builtin_*_overflow`), as does a
/// division by the constant 0.

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

class sym_expr;

/// @brief Values of symbols (symbol name -> value), used to evaluate or specialise expressions.
using size_hints = std::map<std::string, std::int64_t, std::less<>>;

/// @brief Replacement expressions for symbols (symbol name -> expression), see sym_expr::substitute_symbols().
using sym_bindings = std::map<std::string, sym_expr, std::less<>>;

/// @brief C++ source defining `rocmtpl_floordiv(a, b)` and `rocmtpl_mod(a, b)` on `int64_t`, the two
/// functions that sym_expr::to_cpp() emits, and the checked `rocmtpl_size_add/sub/mul/floordiv/mod(a, b, &ok)`
/// that sym_expr::to_cpp_checked() emits. Paste it once into a generated source before the first
/// printed expression; it is guarded, so pasting it twice is harmless. Under hipcc or nvcc the
/// functions are `__host__ __device__`; they need only `int64_t` and compile as C++11 or later.
/// Both follow Python semantics (floor; remainder with the sign of the divisor);
/// `rocmtpl_mod(x, -1)` is 0 for every x, `rocmtpl_floordiv(INT64_MIN, -1)` overflows as in any
/// int64 arithmetic.
inline constexpr std::string_view sym_expr_cpp_helpers = R"src(#ifndef ROCMTPL_SYM_EXPR_HELPERS
#define ROCMTPL_SYM_EXPR_HELPERS
#include <cstdint>
#if defined(__HIPCC__) || defined(__CUDACC__)
#define ROCMTPL_SYM_HOST_DEVICE __host__ __device__
#else
#define ROCMTPL_SYM_HOST_DEVICE
#endif
// Python floor division: rounds toward negative infinity (C++ '/' truncates toward zero).
// One return statement each, so that the functions are constexpr under C++11 too (hipcc's default).
ROCMTPL_SYM_HOST_DEVICE inline constexpr int64_t rocmtpl_floordiv(int64_t a, int64_t b) {
  return (a / b) * b != a && ((a < 0) != (b < 0)) ? a / b - 1 : a / b;
}
// Python modulo: the result has the sign of the divisor (C++ '%' has the sign of the dividend).
// b == -1 is answered first because INT64_MIN % -1 traps on x86.
ROCMTPL_SYM_HOST_DEVICE inline constexpr int64_t rocmtpl_mod(int64_t a, int64_t b) {
  return b == -1 ? 0 : (a % b != 0 && ((a % b < 0) != (b < 0))) ? a % b + b : a % b;
}
// Checked size arithmetic (sym_expr::to_cpp_checked()): on int64 overflow or a zero divisor the
// result is 0 and *ok becomes false, so an entry point refuses the sizes instead of wrapping.
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_add(int64_t a, int64_t b, bool* ok) {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) {
    *ok = false;
    return 0;
  }
  return a + b;
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_sub(int64_t a, int64_t b, bool* ok) {
  if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) {
    *ok = false;
    return 0;
  }
  return a - b;
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_mul(int64_t a, int64_t b, bool* ok) {
  if (a == 0 || b == 0) return 0;
  const bool fits = a > 0 ? (b > 0 ? a <= INT64_MAX / b : b >= INT64_MIN / a)
                          : (b > 0 ? a >= INT64_MIN / b : a >= INT64_MAX / b);
  if (!fits) {
    *ok = false;
    return 0;
  }
  return a * b;
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_floordiv(int64_t a, int64_t b, bool* ok) {
  if (b == 0 || (a == INT64_MIN && b == -1)) {
    *ok = false;
    return 0;
  }
  return rocmtpl_floordiv(a, b);
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_mod(int64_t a, int64_t b, bool* ok) {
  if (b == 0) {
    *ok = false;
    return 0;
  }
  return rocmtpl_mod(a, b);
}
#endif  // ROCMTPL_SYM_EXPR_HELPERS
)src";

namespace detail {

enum class sym_atom_kind : std::uint8_t { symbol = 0, floor_div = 1, mod = 2 };

// How sym_ops::print writes an expression: symbols by their user names (human text), as
// user_identifier() (generated code), or as generated code with checked arithmetic.
enum class sym_print : std::uint8_t { plain, cpp, checked };

struct sym_atom;
using sym_atom_ptr = std::shared_ptr<const sym_atom>;

// One atom to a positive power.
struct sym_factor {
  sym_atom_ptr atom;
  std::int64_t exponent;
};

// Factors sorted by atom order, each atom once. Empty for the constant term.
using sym_monomial = std::vector<sym_factor>;

struct sym_term {
  std::int64_t coeff;  // never 0
  sym_monomial monomial;
};

// Terms sorted by monomial order, monomials unique.
struct sym_poly {
  std::vector<sym_term> terms;
};

// The algorithms, kept out of the class so that it reads as its API. Friend of sym_expr.
struct sym_ops {
  static const std::vector<sym_term>& terms(const sym_expr& e) noexcept;
  static sym_expr from_terms(std::vector<sym_term> terms);
  static sym_expr normalize(std::vector<sym_term> terms);
  static sym_expr make_atom(sym_atom_kind kind, const sym_expr& lhs, const sym_expr& rhs);
  static int compare(const sym_expr& a, const sym_expr& b) noexcept;
  static int compare_atom(const sym_atom& a, const sym_atom& b) noexcept;
  static int compare_monomial(const sym_monomial& a, const sym_monomial& b) noexcept;
  static sym_expr add(const sym_expr& a, const sym_expr& b, bool subtract);
  static sym_expr negate(const sym_expr& a);
  static sym_expr mul(const sym_expr& a, const sym_expr& b);
  static sym_expr power(const sym_expr& a, std::int64_t exponent);
  static sym_expr floor_div(const sym_expr& a, const sym_expr& b);
  static sym_expr mod(const sym_expr& a, const sym_expr& b);
  static std::string print(const sym_expr& e, sym_print mode, std::string_view ok_flag = {});
  static std::int64_t evaluate(const sym_expr& e, const size_hints& hints, const sym_expr& root);
  static void collect_symbols(const sym_expr& e, std::set<std::string, std::less<>>& out);
  static std::size_t hash(const sym_expr& e) noexcept;
  template <class AtomMap>
  static sym_expr map_atoms(const sym_expr& e, const AtomMap& f);
};

}  // namespace detail

/// @brief A symbolic integer expression over int64 symbols: an immutable value in canonical form.
///
/// Copies share immutable nodes, so copying is cheap. Build expressions from integer constants,
/// symbol(), the arithmetic operators, floor_div(), mod(), ceil_div() and product().
/// @code{.cpp}
/// using rocmtpl::sym_expr;
/// const sym_expr m = sym_expr::symbol("M"), n = sym_expr::symbol("N");
/// const sym_expr e = m * n + 1;
/// assert(e == 1 + n * m);                               // canonical equality
/// assert(e.to_string() == "M*N + 1");                   // deterministic text
/// assert(e.to_cpp() == "u_M*u_N + 1");                  // the same for generated code
/// assert(e.evaluate({{"M", 3}, {"N", 4}}) == 13);
/// assert(rocmtpl::floor_div(4 * m, 2) == 2 * m);
/// @endcode
class sym_expr {
 public:
  /// @brief The constant 0.
  sym_expr() noexcept = default;

  /// @brief An integer constant.
  sym_expr(std::int64_t value);  // NOLINT(google-explicit-constructor): sizes mix constants and symbols

  /// @brief An integer constant from any other integer type (not bool).
  /// @throws invalid_argument_error when an unsigned value exceeds INT64_MAX.
  template <std::integral I>
  requires(!std::same_as<I, bool> && !std::same_as<I, std::int64_t>)
      sym_expr(I value)  // NOLINT(google-explicit-constructor)
      : sym_expr(checked_integer(value)) {}

  /// @brief The symbol named `name`.
  /// @param name a C identifier ([A-Za-z_][A-Za-z0-9_]*), not a C/C++ keyword and not an ABI name
  /// of the entry point (see is_valid_name()); generated code calls it `u_<name>`.
  /// @throws invalid_argument_error naming the text and what is wrong with it otherwise.
  [[nodiscard]] static sym_expr symbol(std::string_view name);

  /// @brief True for a constant (no symbols).
  [[nodiscard]] bool is_constant() const noexcept;

  /// @brief The value of a constant, nothing for an expression with symbols.
  [[nodiscard]] std::optional<std::int64_t> constant() const noexcept;

  /// @brief True when the expression is a single symbol (coefficient 1, power 1).
  [[nodiscard]] bool is_symbol() const noexcept;

  /// @brief The name of a single symbol, nothing otherwise.
  [[nodiscard]] std::optional<std::string> symbol_name() const;

  /// @brief Names of all symbols, also those inside floor_div / mod; sorted and unique.
  [[nodiscard]] std::vector<std::string> free_symbols() const;

  /// @brief The value for the given symbol values, computed exactly as to_cpp()'s text computes it.
  /// @param hints a value for every symbol of the expression (extra entries are ignored).
  /// @return the int64_t value.
  /// @throws evaluation_error naming the symbol when a symbol has no value, naming the division for a
  /// division by zero, and naming the operation when an intermediate value overflows int64_t.
  [[nodiscard]] std::int64_t evaluate(const size_hints& hints) const {
    return detail::sym_ops::evaluate(*this, hints, *this);
  }

  /// @brief Replaces the symbols that have a value by that value and simplifies again.
  /// Symbols without a value stay. Substituting every symbol gives the constant that evaluate()
  /// returns for the same values (where neither throws).
  /// @throws evaluation_error when folding divides by zero or overflows int64_t.
  [[nodiscard]] sym_expr substitute(const size_hints& values) const;

  /// @brief Replaces symbols by expressions (sympy `subs` with expressions) and simplifies again.
  /// @throws evaluation_error when folding divides by zero or overflows int64_t.
  [[nodiscard]] sym_expr substitute_symbols(const sym_bindings& replacements) const;

  /// @brief Deterministic C++ text for generated code, computing the value in `int64_t` arithmetic
  /// given `int64_t` variables named `user_identifier(symbol)` (`u_M` for `M`: generated code is
  /// hygienic, see ir/identifier.hpp) and sym_expr_cpp_helpers in scope.
  /// Format: terms joined by " + " / " - ", constant last ("u_M*u_N - 2*u_K + 1"); `c*A*B` products
  /// with powers written out ("u_M*u_M"); floor_div / mod as `rocmtpl_floordiv(a, b)` /
  /// `rocmtpl_mod(a, b)`; INT64_MIN as `(-9223372036854775807LL - 1)`.
  [[nodiscard]] std::string to_cpp() const { return detail::sym_ops::print(*this, detail::sym_print::cpp); }

  /// @brief Like to_cpp(), but every operation is checked: `rocmtpl_size_mul(a, b, &ok)`,
  /// `rocmtpl_size_add`, `rocmtpl_size_sub`, `rocmtpl_size_floordiv`, `rocmtpl_size_mod` (from
  /// sym_expr_cpp_helpers), which set the `bool` named `ok_flag` to false on int64 overflow or a
  /// zero divisor. The operations are those of to_cpp() and evaluate(), in the same order, so the
  /// flag stays true exactly when evaluate() would not throw. A constant or a single symbol is
  /// written as to_cpp() writes it.
  /// @param ok_flag a `bool` variable of the generated code, e.g. `rocmtpl_ok`
  /// @throws invalid_argument_error when ok_flag is not an identifier
  [[nodiscard]] std::string to_cpp_checked(std::string_view ok_flag) const;

  /// @brief Human-readable text with the symbols' own names ("M*N - 2*K + 1"): the format of
  /// to_cpp() without the `u_` prefix. For messages, comments and files that are read back
  /// (sym_expr text parsers accept it); never for generated code.
  [[nodiscard]] std::string to_string() const { return detail::sym_ops::print(*this, detail::sym_print::plain); }

  /// @brief A hash consistent with operator== (same value for equal expressions, stable across runs).
  [[nodiscard]] std::size_t hash() const noexcept { return detail::sym_ops::hash(*this); }

  /// @brief Sum, in canonical form. @throws evaluation_error when a coefficient overflows int64_t.
  friend sym_expr operator+(const sym_expr& a, const sym_expr& b) { return detail::sym_ops::add(a, b, false); }
  /// @brief Difference, in canonical form. @throws evaluation_error when a coefficient overflows int64_t.
  friend sym_expr operator-(const sym_expr& a, const sym_expr& b) { return detail::sym_ops::add(a, b, true); }
  /// @brief Product, expanded to canonical form. @throws evaluation_error when a coefficient overflows int64_t.
  friend sym_expr operator*(const sym_expr& a, const sym_expr& b) { return detail::sym_ops::mul(a, b); }
  /// @brief Negation. @throws evaluation_error when a coefficient is INT64_MIN.
  friend sym_expr operator-(const sym_expr& a) { return detail::sym_ops::negate(a); }
  /// @brief The expression itself.
  friend sym_expr operator+(const sym_expr& a) { return a; }
  /// @brief `*this = *this + b`.
  sym_expr& operator+=(const sym_expr& b) { return *this = *this + b; }
  /// @brief `*this = *this - b`.
  sym_expr& operator-=(const sym_expr& b) { return *this = *this - b; }
  /// @brief `*this = *this * b`.
  sym_expr& operator*=(const sym_expr& b) { return *this = *this * b; }

  /// @brief Equality of canonical forms.
  friend bool operator==(const sym_expr& a, const sym_expr& b) noexcept { return detail::sym_ops::compare(a, b) == 0; }
  /// @brief A total order on canonical forms (structural, stable across runs; not numeric order).
  friend std::strong_ordering operator<=>(const sym_expr& a, const sym_expr& b) noexcept {
    return detail::sym_ops::compare(a, b) <=> 0;
  }
  /// @brief Writes to_string() (the human text, symbols by their own names).
  friend std::ostream& operator<<(std::ostream& os, const sym_expr& e) { return os << e.to_string(); }

 private:
  friend struct detail::sym_ops;

  explicit sym_expr(std::shared_ptr<const detail::sym_poly> poly) noexcept : poly_(std::move(poly)) {}

  template <class I>
  static std::int64_t checked_integer(I value) {
    static_assert(sizeof(I) <= sizeof(std::int64_t),
                  "rocmtpl: sym_expr: integers wider than 64 bits are not sizes; convert to int64_t");
    if constexpr (std::is_unsigned_v<I>) {
      if (static_cast<std::uint64_t>(value) > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        throw invalid_argument_error("rocmtpl: sym_expr: integer " + std::to_string(value) +
                                     " does not fit in int64_t; sizes are int64_t values");
      }
    }
    return static_cast<std::int64_t>(value);
  }

  std::shared_ptr<const detail::sym_poly> poly_;  // null for 0
};

/// @brief Python floor division `a // b` (rounds toward negative infinity, also for negatives).
/// @throws evaluation_error when `b` is the constant 0 or folding overflows (INT64_MIN // -1).
[[nodiscard]] inline sym_expr floor_div(const sym_expr& a, const sym_expr& b) {
  return detail::sym_ops::floor_div(a, b);
}

/// @brief Python modulo `a % b` (the result has the sign of the divisor).
/// @throws evaluation_error when `b` is the constant 0.
[[nodiscard]] inline sym_expr mod(const sym_expr& a, const sym_expr& b) { return detail::sym_ops::mod(a, b); }

/// @brief Ceiling division, `-((-a) // b)` (Inductor's CeilDiv); e.g. the number of tiles of size b.
/// @throws evaluation_error when `b` is the constant 0 or folding overflows.
[[nodiscard]] inline sym_expr ceil_div(const sym_expr& a, const sym_expr& b) { return -floor_div(-a, b); }

/// @brief Product of the factors, 1 for none (Inductor's sympy_product).
[[nodiscard]] sym_expr product(std::span<const sym_expr> factors);

/// @brief Product of a braced list of factors, 1 for none.
[[nodiscard]] inline sym_expr product(std::initializer_list<sym_expr> factors) {
  return product(std::span<const sym_expr>(factors.begin(), factors.size()));
}

namespace detail {

struct sym_atom {
  sym_atom_kind kind;
  std::string name;  // symbol only
  sym_expr lhs;      // floor_div / mod only
  sym_expr rhs;
};

// The checked int64 arithmetic and the monomial helpers of sym_ops (defined in sym_expr-inl.hpp).
[[noreturn]] void sym_overflow(std::int64_t a, const char* op, std::int64_t b);
std::int64_t sym_add(std::int64_t a, std::int64_t b);
std::int64_t sym_sub(std::int64_t a, std::int64_t b);
std::int64_t sym_mul(std::int64_t a, std::int64_t b);
std::int64_t sym_floordiv(std::int64_t a, std::int64_t b);
std::int64_t sym_mod(std::int64_t a, std::int64_t b);
std::uint64_t sym_abs(std::int64_t v) noexcept;
std::string sym_literal(std::int64_t v);
std::int64_t sym_degree(const sym_monomial& m) noexcept;
sym_monomial sym_mul_monomials(const sym_monomial& a, const sym_monomial& b);
sym_monomial sym_gcd_monomials(const sym_monomial& a, const sym_monomial& b);
bool sym_monomial_divides(const sym_monomial& d, const sym_monomial& m);
sym_monomial sym_div_monomials(const sym_monomial& m, const sym_monomial& d);
void sym_hash_mix(std::size_t& seed, std::size_t v) noexcept;

namespace sym_division {

// a / g and b / g for the common factor g of a and b (integer gcd of all coefficients times the
// common monomial); g is returned as an expression.
struct cancelled {
  sym_expr a;
  sym_expr b;
  sym_expr factor;
};

cancelled cancel_common_factor(const sym_expr& a, const sym_expr& b);
bool is_negation(const sym_expr& a, const sym_expr& b);
const sym_atom* single_atom(const sym_expr& e, sym_atom_kind kind);
std::optional<std::int64_t> positive_constant(const sym_expr& e);
[[noreturn]] void division_by_zero(const char* function, const sym_expr& a);

}  // namespace sym_division

// Terms in print order: non-constant terms in canonical order, the constant last.
template <class F>
void sym_for_each_in_print_order(const std::vector<sym_term>& terms, F&& f) {
  const sym_term* constant = nullptr;
  bool first = true;
  for (const auto& t : terms) {
    if (t.monomial.empty()) {
      constant = &t;
      continue;
    }
    f(t, first);
    first = false;
  }
  if (constant != nullptr) f(*constant, first);
}

// Rebuilds e with every atom replaced by f(atom, atom_as_expression), simplifying on the way.
template <class AtomMap>
sym_expr sym_ops::map_atoms(const sym_expr& e, const AtomMap& f) {
  sym_expr out;
  for (const auto& t : terms(e)) {
    sym_expr term = t.coeff;
    for (const auto& factor : t.monomial) {
      const sym_expr atom_expr = from_terms({sym_term{1, {sym_factor{factor.atom, 1}}}});
      term = mul(term, power(f(*factor.atom, atom_expr), factor.exponent));
    }
    out = add(out, term, false);
  }
  return out;
}

}  // namespace detail

}  // namespace rocmtpl

/// @brief Hash of a sym_expr (sym_expr::hash()), so it can key unordered containers.
template <>
struct std::hash<rocmtpl::sym_expr> {
  /// @brief e.hash().
  std::size_t operator()(const rocmtpl::sym_expr& e) const noexcept { return e.hash(); }
};

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/ir/sym_expr-inl.hpp>
#endif

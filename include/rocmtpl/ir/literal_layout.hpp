// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Literal layouts and buffers: layouts whose dtype, rank, sizes, strides and offset are known
/// at compile time, as literal (and structural) types whose every query is constexpr (issue 24).
///
/// A dimension value is a literal_dim: an int64 coefficient times a product of at most
/// literal_dim::max_factors symbols (a symbol is a compile-time name, its value comes at run time),
/// so that the row-major strides of symbolic sizes ([B, M, K] -> [M*K, K, 1]) are exact. Queries
/// that add dimensions (storage_size(), storage_bytes()) return a literal_sum, a short polynomial of
/// such terms. The runtime `layout` (ir/layout.hpp) stays for shapes learned at run time; each
/// converts into the other (layout's converting constructor, literal_layout::from()).
///
/// Failures mirror the runtime layout and buffer: in constant evaluation they are compile errors that
/// name the failure (a call to `detail::literal_layout_int64_overflow`, `detail::literal_layout_bad_symbol`,
/// ...), at run time they throw the typed error the runtime layout or buffer throws for the same input.
/// @code{.cpp}
/// constexpr auto l = rocmtpl::layout::row_major(rocmtpl::dtype::f16, {64, 32});
/// static_assert(l.numel() == 2048 && l.storage_bytes() == 4096 && l.is_contiguous());
/// constexpr auto s = rocmtpl::layout::row_major(rocmtpl::dtype::f32, {rocmtpl::literal_dim::symbol("M"), 64});
/// static_assert(s.stride(0) == 64 && s.numel() == 64 * rocmtpl::literal_dim::symbol("M"));
/// static_assert(s.to_string() == "float32[M, 64] strides [64, 1] offset 0");
/// @endcode

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

class layout;
class buffer;

/// @brief Whether distinct indices of a layout can address one element (an output's must not: two
/// threads would write one place). See overlap_of() (ir/layout.hpp) and literal_layout::overlap().
enum class overlap_kind : std::uint8_t {
  disjoint,     ///< no two indices share an element, whatever the values of its symbols
  overlapping,  ///< two indices share an element (a symbolic size counts as more than 1)
  depends,      ///< the values of its symbols decide: generated entry points check them at run time
};

namespace detail {

// The failures of literal layouts and buffers. They are not constexpr on purpose: reached in constant
// evaluation, the call is the compile error and its name says what is wrong; at run time each throws
// the typed error (and message) that layout, sym_expr or buffer throw for the same input.
[[noreturn]] void literal_layout_int64_overflow(std::int64_t a, char op, std::int64_t b);  // evaluation_error
[[noreturn]] void literal_layout_too_many_factors(std::size_t degree);                     // evaluation_error
[[noreturn]] void literal_layout_bad_symbol(std::string_view name);                        // invalid_argument_error
[[noreturn]] void literal_layout_negative_value(const char* what, std::int64_t value,
                                                std::size_t dimension);  // invalid_argument_error
[[noreturn]] void literal_layout_col_major_rank(std::size_t rank);       // invalid_argument_error
[[noreturn]] void literal_layout_index_out_of_range(const char* what, std::int64_t index,
                                                    std::size_t rank);  // out_of_range_error
[[noreturn]] void literal_layout_not_constant(std::string_view text);   // evaluation_error
[[noreturn]] void literal_buffer_bad_name(std::string_view name);       // invalid_argument_error
[[noreturn]] void literal_buffer_sizes_overflow_int64(std::string_view name, std::string_view layout_text,
                                                      std::string_view why);  // evaluation_error

// What a checked operation on literal values ran into; the throwing operations turn it into the
// failures above, literal_buffer into its own message.
struct literal_fault {
  enum class kind : std::uint8_t { none, overflow, too_many_factors } what = kind::none;
  std::int64_t a = 0;  // overflow: the operands; too_many_factors: the degree in a
  char op = '*';
  std::int64_t b = 0;

  [[nodiscard]] constexpr explicit operator bool() const noexcept { return what != kind::none; }
  constexpr void raise() const {
    if (what == kind::overflow) literal_layout_int64_overflow(a, op, b);
    if (what == kind::too_many_factors) literal_layout_too_many_factors(static_cast<std::size_t>(a));
  }
};

constexpr std::int64_t literal_add(std::int64_t a, std::int64_t b, literal_fault& f) noexcept {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r) && !f) f = {literal_fault::kind::overflow, a, '+', b};
  return r;
}
constexpr std::int64_t literal_mul(std::int64_t a, std::int64_t b, literal_fault& f) noexcept {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) && !f) f = {literal_fault::kind::overflow, a, '*', b};
  return r;
}

// The element size and name of a dtype in constant evaluation (element_size() and name() are not
// constexpr; a value outside the enumeration takes their path, which throws).
constexpr std::int64_t literal_element_size(dtype d) {
  const auto i = static_cast<std::size_t>(d);
  return static_cast<std::int64_t>(i < dtype_table.size() ? dtype_table[i].size : element_size(d));
}
constexpr std::string_view literal_dtype_name(dtype d) {
  const auto i = static_cast<std::size_t>(d);
  return i < dtype_table.size() ? dtype_table[i].name : name(d);
}

}  // namespace detail

/// @brief Fixed-capacity text (to_string() of the literal types): usable in constant evaluation,
/// where std::string is not (under clang 15 with libstdc++ 12).
/// @tparam Cap the most characters it can hold.
template <std::size_t Cap>
struct literal_text {
  char chars_[Cap + 1]{};  ///< the characters and a terminating zero (public: a structural type)
  std::size_t size_ = 0;   ///< how many characters are used

  /// @brief The text.
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars_, size_}; }
  /// @brief view(), implicitly.
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT: implicit by design
  /// @brief Number of characters.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }

  /// @brief Appends `text`; what does not fit is left out (the capacities are bounds on what is written).
  constexpr literal_text& append(std::string_view text) noexcept {
    for (char c : text) {
      if (size_ < Cap) chars_[size_++] = c;
    }
    return *this;
  }
  /// @brief Appends `v` in decimal; INT64_MIN as `(-9223372036854775807LL - 1)`, as sym_expr prints it.
  constexpr literal_text& append(std::int64_t v) noexcept {
    if (v == std::numeric_limits<std::int64_t>::min()) return append("(-9223372036854775807LL - 1)");
    char digits[20]{};
    std::size_t n = 0;
    std::uint64_t u = v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (v < 0) append("-");
    while (n > 0) append(std::string_view(&digits[--n], 1));
    return *this;
  }

  /// @brief Same characters.
  friend constexpr bool operator==(const literal_text& a, std::string_view b) noexcept { return a.view() == b; }
  /// @brief Same characters.
  friend constexpr bool operator==(const literal_text& a, const literal_text& b) noexcept {
    return a.view() == b.view();
  }
  /// @brief Writes the text.
  friend std::ostream& operator<<(std::ostream& os, const literal_text& t) { return os << t.view(); }
};

/// @brief A dimension value known at compile time: an int64 coefficient times a product of at most
/// max_factors symbols (a monomial such as `64`, `M`, `2*M*N`, `K*K`), in canonical form, so that
/// equal values compare equal (also as template arguments).
///
/// A literal and structural type: its members are public only for that; read them through the
/// accessors. Symbols are valid names (is_valid_name()) of at most max_name characters.
struct literal_dim {
  /// @brief The most symbol factors (counted with their powers) of one value.
  static constexpr std::size_t max_factors = 6;
  /// @brief The longest symbol name.
  static constexpr std::size_t max_name = 31;
  /// @brief The longest to_string().
  static constexpr std::size_t max_text = 28 + 1 + max_factors * (max_name + 1);

  std::int64_t coeff_ = 0;                   ///< the coefficient; 0 means no factors
  std::size_t degree_ = 0;                   ///< how many factors are used
  char names_[max_factors][max_name + 1]{};  ///< factor names, sorted, a power repeats a name; unused zero

  /// @brief The constant 0.
  constexpr literal_dim() noexcept = default;
  /// @brief An integer constant.
  constexpr literal_dim(std::int64_t value) noexcept : coeff_(value) {}  // NOLINT: sizes mix constants and symbols

  /// @brief The symbol `name`.
  /// @throws invalid_argument_error (a compile error in constant evaluation) unless `name` is a valid
  /// name (is_valid_name()) of at most max_name characters.
  [[nodiscard]] static constexpr literal_dim symbol(std::string_view name) {
    if (!is_valid_name(name) || name.size() > max_name) detail::literal_layout_bad_symbol(name);
    literal_dim d(1);
    d.degree_ = 1;
    std::copy(name.begin(), name.end(), d.names_[0]);
    return d;
  }

  /// @brief The coefficient (the value of a constant).
  [[nodiscard]] constexpr std::int64_t coefficient() const noexcept { return coeff_; }
  /// @brief Number of symbol factors, powers counted (0 for a constant).
  [[nodiscard]] constexpr std::size_t degree() const noexcept { return degree_; }
  /// @brief The i-th symbol factor in name order (a power repeats the name); i < degree().
  [[nodiscard]] constexpr std::string_view factor(std::size_t i) const noexcept {
    std::size_t n = 0;
    while (n < max_name && names_[i][n] != '\0') ++n;
    return {names_[i], n};
  }
  /// @brief True for a constant.
  [[nodiscard]] constexpr bool is_constant() const noexcept { return degree_ == 0; }
  /// @brief The value of a constant, nothing for a symbolic value.
  [[nodiscard]] constexpr std::optional<std::int64_t> constant() const noexcept {
    return is_constant() ? std::optional<std::int64_t>(coeff_) : std::nullopt;
  }
  /// @brief The value of a constant.
  /// @throws evaluation_error (a compile error in constant evaluation) for a symbolic value.
  [[nodiscard]] constexpr std::int64_t value() const {
    if (!is_constant()) detail::literal_layout_not_constant(to_string());
    return coeff_;
  }
  /// @brief True for a single symbol (coefficient 1, one factor).
  [[nodiscard]] constexpr bool is_symbol() const noexcept { return coeff_ == 1 && degree_ == 1; }

  /// @brief The text sym_expr::to_string() gives for the same value (`64`, `M`, `-M`, `2*M*N`, `K*K`).
  [[nodiscard]] constexpr literal_text<max_text> to_string() const noexcept {
    literal_text<max_text> t;
    if (degree_ == 0) return t.append(coeff_), t;
    if (coeff_ == -1) {
      t.append("-");
    } else if (coeff_ != 1) {
      t.append(coeff_).append("*");
    }
    for (std::size_t i = 0; i < degree_; ++i) t.append(i == 0 ? "" : "*").append(factor(i));
    return t;
  }

  /// @brief The product; `fault` records an int64 overflow or more than max_factors factors (then the result is 0).
  [[nodiscard]] static constexpr literal_dim multiply(const literal_dim& a, const literal_dim& b,
                                                      detail::literal_fault& fault) noexcept {
    literal_dim r(detail::literal_mul(a.coeff_, b.coeff_, fault));
    if (fault || r.coeff_ == 0) return fault ? literal_dim() : r;
    if (a.degree_ + b.degree_ > max_factors) {
      fault = {detail::literal_fault::kind::too_many_factors, static_cast<std::int64_t>(a.degree_ + b.degree_)};
      return {};
    }
    std::size_t i = 0, j = 0;  // merge the sorted names
    while (i < a.degree_ || j < b.degree_) {
      const bool take_a = j == b.degree_ || (i < a.degree_ && a.factor(i) <= b.factor(j));
      const std::string_view n = take_a ? a.factor(i++) : b.factor(j++);
      std::copy(n.begin(), n.end(), r.names_[r.degree_++]);
    }
    return r;
  }

  /// @brief The product.
  /// @throws evaluation_error (a compile error in constant evaluation) on int64 overflow or more than max_factors
  /// factors.
  friend constexpr literal_dim operator*(const literal_dim& a, const literal_dim& b) {
    detail::literal_fault fault;
    const literal_dim r = multiply(a, b, fault);
    fault.raise();
    return r;
  }

  /// @brief Same value (canonical form: same coefficient and factors).
  friend constexpr bool operator==(const literal_dim&, const literal_dim&) noexcept = default;
  /// @brief Writes to_string().
  friend std::ostream& operator<<(std::ostream& os, const literal_dim& d) { return os << d.to_string().view(); }
};

namespace detail {

// sym_expr's monomial order (ir/sym_expr-inl.hpp, compare_monomial): degree first, then the factors as
// (symbol, power) runs in order, a lower power first, then the number of runs. Coefficients are ignored.
constexpr int literal_compare_monomial(const literal_dim& a, const literal_dim& b) noexcept {
  if (a.degree_ != b.degree_) return a.degree_ < b.degree_ ? -1 : 1;
  std::size_t i = 0, j = 0;
  while (i < a.degree_ && j < b.degree_) {
    const std::string_view x = a.factor(i), y = b.factor(j);
    if (const int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
    std::size_t pa = 0, pb = 0;
    while (i < a.degree_ && a.factor(i) == x) ++i, ++pa;
    while (j < b.degree_ && b.factor(j) == y) ++j, ++pb;
    if (pa != pb) return pa < pb ? -1 : 1;
  }
  if (i != a.degree_ || j != b.degree_) return i == a.degree_ ? -1 : 1;  // fewer runs first
  return 0;
}

}  // namespace detail

/// @brief A sum of at most N literal_dim terms in sym_expr's canonical form (like terms combined,
/// zero terms dropped, terms in sym_expr's order): what storage_size() and storage_bytes() return.
/// @tparam N the most terms.
template <std::size_t N>
struct literal_sum {
  std::array<literal_dim, N> terms_{};  ///< the terms in order; unused ones 0 (public: a structural type)
  std::size_t count_ = 0;               ///< how many terms are used

  /// @brief 0.
  constexpr literal_sum() noexcept = default;
  /// @brief The one term `d` (none for 0).
  constexpr literal_sum(const literal_dim& d) noexcept {  // NOLINT: a term is a sum
    if (d.coeff_ != 0) terms_[count_++] = d;
  }

  /// @brief Number of terms.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
  /// @brief The i-th term in canonical order; i < size().
  [[nodiscard]] constexpr const literal_dim& term(std::size_t i) const noexcept { return terms_[i]; }
  /// @brief True when no term has a symbol.
  [[nodiscard]] constexpr bool is_constant() const noexcept {
    return count_ == 0 || (count_ == 1 && terms_[0].degree_ == 0);
  }
  /// @brief The value of a constant, nothing otherwise.
  [[nodiscard]] constexpr std::optional<std::int64_t> constant() const noexcept {
    if (!is_constant()) return std::nullopt;
    return count_ == 0 ? 0 : terms_[0].coeff_;
  }
  /// @brief The value of a constant.
  /// @throws evaluation_error (a compile error in constant evaluation) when a term has a symbol.
  [[nodiscard]] constexpr std::int64_t value() const {
    if (!is_constant()) detail::literal_layout_not_constant(to_string());
    return count_ == 0 ? 0 : terms_[0].coeff_;
  }

  /// @brief Adds `t` (checked: `fault` records an int64 overflow of a coefficient).
  constexpr void add(const literal_dim& t, detail::literal_fault& fault) noexcept {
    if (t.coeff_ == 0) return;
    std::size_t at = 0;
    while (at < count_ && detail::literal_compare_monomial(terms_[at], t) < 0) ++at;
    if (at < count_ && detail::literal_compare_monomial(terms_[at], t) == 0) {
      terms_[at].coeff_ = detail::literal_add(terms_[at].coeff_, t.coeff_, fault);
      if (terms_[at].coeff_ == 0) {
        for (std::size_t k = at; k + 1 < count_; ++k) terms_[k] = terms_[k + 1];
        terms_[--count_] = literal_dim();
      }
      return;
    }
    if (count_ == N) return;  // the callers size N to what they add
    for (std::size_t k = count_; k > at; --k) terms_[k] = terms_[k - 1];
    terms_[at] = t;
    ++count_;
  }

  /// @brief The text sym_expr::to_string() gives for the same value (`M*N + 5`, `M - 1`, `0`).
  [[nodiscard]] constexpr literal_text<N*(literal_dim::max_text + 3) + 1> to_string() const noexcept {
    literal_text<N*(literal_dim::max_text + 3) + 1> t;
    if (count_ == 0) return t.append("0"), t;
    bool first = true;
    auto write = [&](const literal_dim& d) {  // sym_expr's sign rule: " - " for a negative coefficient after the first
      const bool minus = !first && d.coeff_ < 0 && d.coeff_ != std::numeric_limits<std::int64_t>::min();
      literal_dim shown = d;
      if (minus) shown.coeff_ = -d.coeff_;
      t.append(first ? "" : minus ? " - " : " + ").append(shown.to_string().view());
      first = false;
    };
    for (std::size_t i = 0; i < count_; ++i) {
      if (terms_[i].degree_ != 0) write(terms_[i]);
    }
    if (terms_[0].degree_ == 0) write(terms_[0]);  // the constant last
    return t;
  }

  /// @brief Same terms.
  friend constexpr bool operator==(const literal_sum&, const literal_sum&) noexcept = default;
  /// @brief Equal to the one term `d`.
  friend constexpr bool operator==(const literal_sum& s, const literal_dim& d) noexcept { return s == literal_sum(d); }
  /// @brief Writes to_string().
  friend std::ostream& operator<<(std::ostream& os, const literal_sum& s) { return os << s.to_string().view(); }
};

/// @brief Sorted, unique symbol names (free_symbols()): at most N.
template <std::size_t N>
struct literal_names {
  char names_[N == 0 ? 1 : N][literal_dim::max_name + 1]{};  ///< the names (public: a structural type)
  std::size_t count_ = 0;                                    ///< how many are used

  /// @brief Number of names.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
  /// @brief The i-th name; i < size().
  [[nodiscard]] constexpr std::string_view operator[](std::size_t i) const noexcept {
    std::size_t n = 0;
    while (n < literal_dim::max_name && names_[i][n] != '\0') ++n;
    return {names_[i], n};
  }
  /// @brief Inserts `name` in order unless present.
  constexpr void insert(std::string_view name) noexcept {
    std::size_t at = 0;
    while (at < count_ && (*this)[at] < name) ++at;
    if ((at < count_ && (*this)[at] == name) || count_ == N) return;
    for (std::size_t k = count_; k > at; --k)
      std::copy(names_[k - 1], names_[k - 1] + literal_dim::max_name + 1, names_[k]);
    std::fill(names_[at], names_[at] + literal_dim::max_name + 1, '\0');
    std::copy(name.begin(), name.end(), names_[at]);
    ++count_;
  }
  /// @brief Same names.
  friend constexpr bool operator==(const literal_names&, const literal_names&) noexcept = default;
};

/// @brief A layout known at compile time: dtype, Rank sizes, Rank strides (in elements) and an offset,
/// each a literal_dim. A literal and structural type (usable as a template argument); every query is
/// constexpr and follows the runtime layout's rules (ir/layout.hpp), to which it converts losslessly.
///
/// The members are public only so that the type is structural; read them through the accessors.
/// @tparam Rank number of dimensions.
/// @code{.cpp}
/// constexpr auto a = rocmtpl::layout::col_major(rocmtpl::dtype::f32, {128, 64});
/// static_assert(a.is_col_major() && a.leading_dimension() == 128 && a.storage_bytes() == 32768);
/// rocmtpl::layout runtime = a;                                   // lossless
/// auto back = rocmtpl::literal_layout<2>::from(runtime);         // == a
/// @endcode
template <std::size_t Rank>
struct literal_layout {
  /// @brief Sizes or strides.
  using dims_type = std::array<literal_dim, Rank>;
  /// @brief The longest to_string().
  static constexpr std::size_t max_text = 16 + 32 + (2 * Rank + 1) * (literal_dim::max_text + 2);

  dtype type_;          ///< the element type
  dims_type sizes_;     ///< the sizes
  dims_type strides_;   ///< the strides, in elements
  literal_dim offset_;  ///< the offset of the first element, in elements

  /// @brief A layout from explicit sizes, strides and offset.
  /// @throws invalid_argument_error (a compile error in constant evaluation) for a dtype outside the
  /// enumeration or a negative constant size, stride or offset, as layout's constructor.
  constexpr literal_layout(dtype type, const dims_type& sizes, const dims_type& strides, const literal_dim& offset = 0)
      : type_(type), sizes_(sizes), strides_(strides), offset_(offset) {
    (void)detail::literal_element_size(type_);
    for (std::size_t i = 0; i < Rank; ++i) {
      if (sizes_[i].is_constant() && sizes_[i].coeff_ < 0)
        detail::literal_layout_negative_value("size", sizes_[i].coeff_, i);
    }
    for (std::size_t i = 0; i < Rank; ++i) {
      if (strides_[i].is_constant() && strides_[i].coeff_ < 0) {
        detail::literal_layout_negative_value("stride", strides_[i].coeff_, i);
      }
    }
    if (offset_.is_constant() && offset_.coeff_ < 0) detail::literal_layout_negative_value("offset", offset_.coeff_, 0);
  }

  /// @brief Contiguous row-major (C order) layout, as layout::row_major().
  /// @throws evaluation_error (a compile error in constant evaluation) when the product of the sizes overflows.
  [[nodiscard]] static constexpr literal_layout row_major(dtype type, const dims_type& sizes,
                                                          const literal_dim& offset = 0) {
    return {type, sizes, row_major_strides(sizes), offset};
  }

  /// @brief Column-major matrices (batch dimensions outermost), as layout::col_major().
  /// @throws invalid_argument_error (a compile error in constant evaluation) for Rank < 2;
  /// evaluation_error when the product of the sizes overflows.
  [[nodiscard]] static constexpr literal_layout col_major(dtype type, const dims_type& sizes,
                                                          const literal_dim& offset = 0) {
    if constexpr (Rank < 2) {
      detail::literal_layout_col_major_rank(Rank);
    } else {
      dims_type strides{};
      strides[Rank - 2] = 1;
      strides[Rank - 1] = sizes[Rank - 2];
      literal_dim running = sizes[Rank - 2] * sizes[Rank - 1];
      for (std::size_t i = Rank - 2; i-- > 0;) {
        strides[i] = running;
        running = running * sizes[i];
      }
      return {type, sizes, strides, offset};
    }
  }

  /// @brief The literal layout of a runtime layout (defined in ir/layout.hpp).
  /// @throws invalid_argument_error naming what cannot be represented: a rank other than Rank, or a size,
  /// stride or offset that is not a literal_dim (not a monomial, a too long symbol name, too many factors).
  [[nodiscard]] static literal_layout from(const layout& l);

  /// @brief The runtime layout (lossless; defined in ir/layout.hpp). `layout` also converts implicitly.
  [[nodiscard]] layout to_value() const;

  /// @brief Element type.
  [[nodiscard]] constexpr dtype type() const noexcept { return type_; }
  /// @brief Number of dimensions.
  [[nodiscard]] static constexpr std::size_t rank() noexcept { return Rank; }
  /// @brief Sizes, one per dimension.
  [[nodiscard]] constexpr const dims_type& sizes() const noexcept { return sizes_; }
  /// @brief Strides in elements, one per dimension.
  [[nodiscard]] constexpr const dims_type& strides() const noexcept { return strides_; }
  /// @brief Offset of the first element, in elements.
  [[nodiscard]] constexpr const literal_dim& offset() const noexcept { return offset_; }
  /// @brief Size of dimension `index`; negative indices count from the end.
  /// @throws out_of_range_error (a compile error in constant evaluation) naming the index and the rank.
  [[nodiscard]] constexpr const literal_dim& size(std::int64_t index) const { return sizes_[normalize(index, "size")]; }
  /// @brief Stride of dimension `index`; negative indices count from the end.
  /// @throws out_of_range_error (a compile error in constant evaluation) naming the index and the rank.
  [[nodiscard]] constexpr const literal_dim& stride(std::int64_t index) const {
    return strides_[normalize(index, "stride")];
  }

  /// @brief Number of elements (product of sizes); exact also for symbolic sizes.
  /// @throws evaluation_error (a compile error in constant evaluation) on int64 overflow or more than
  /// literal_dim::max_factors symbol factors.
  [[nodiscard]] constexpr literal_dim numel() const {
    detail::literal_fault fault;
    const literal_dim n = numel(fault);
    fault.raise();
    return n;
  }
  /// @brief numel(), with an overflow recorded in `fault` instead of thrown.
  [[nodiscard]] constexpr literal_dim numel(detail::literal_fault& fault) const noexcept {
    literal_dim n(1);
    for (const auto& s : sizes_) n = literal_dim::multiply(n, s, fault);
    return n;
  }

  /// @brief Elements spanned from the offset, as layout::storage_size(): offset + 1 + sum((size-1)*stride),
  /// 0 when a size is 0; for symbolic sizes a sum that assumes every size is at least 1.
  /// @throws evaluation_error (a compile error in constant evaluation) on int64 overflow.
  [[nodiscard]] constexpr literal_sum<2 * Rank + 2> storage_size() const {
    detail::literal_fault fault;
    const auto s = storage_size(fault);
    fault.raise();
    return s;
  }
  /// @brief storage_size(), with an overflow recorded in `fault` instead of thrown.
  [[nodiscard]] constexpr literal_sum<2 * Rank + 2> storage_size(detail::literal_fault& fault) const noexcept {
    for (const auto& s : sizes_) {
      if (s.is_constant() && s.coeff_ == 0) return {};
    }
    literal_sum<2 * Rank + 2> span(1);
    for (std::size_t i = 0; i < Rank; ++i) {  // + (size - 1) * stride, as sym_expr expands it
      if (sizes_[i].is_constant()) {
        const std::int64_t less_one = detail::literal_add(sizes_[i].coeff_, -1, fault);
        span.add(literal_dim::multiply(less_one, strides_[i], fault), fault);
      } else {
        span.add(literal_dim::multiply(sizes_[i], strides_[i], fault), fault);
        span.add(literal_dim::multiply(-1, strides_[i], fault), fault);
      }
    }
    literal_sum<2 * Rank + 2> out(offset_);
    for (std::size_t i = 0; i < span.size(); ++i) out.add(span.term(i), fault);
    return out;
  }

  /// @brief Bytes spanned from the offset: storage_size() times the element size.
  /// @throws evaluation_error (a compile error in constant evaluation) on int64 overflow.
  [[nodiscard]] constexpr literal_sum<2 * Rank + 2> storage_bytes() const {
    detail::literal_fault fault;
    auto s = storage_size(fault);
    const literal_dim bytes(detail::literal_element_size(type_));
    for (std::size_t i = 0; i < s.count_; ++i) s.terms_[i] = literal_dim::multiply(s.terms_[i], bytes, fault);
    fault.raise();
    return s;
  }

  /// @brief True when the strides are those of row_major() for these sizes.
  /// @throws evaluation_error (a compile error in constant evaluation) when the product of the sizes
  /// overflows (as layout::is_contiguous(), which builds the row-major layout).
  [[nodiscard]] constexpr bool is_contiguous() const { return strides_ == row_major_strides(sizes_); }
  /// @brief The reference's rule: row-major when `stride[-1] == 1` (false for rank 0).
  [[nodiscard]] constexpr bool is_row_major() const noexcept {
    if constexpr (Rank >= 1) return strides_[Rank - 1] == literal_dim(1);
    return false;
  }
  /// @brief The reference's rule: column-major when `stride[-2] == 1` (false for rank < 2).
  [[nodiscard]] constexpr bool is_col_major() const noexcept {
    if constexpr (Rank >= 2) return strides_[Rank - 2] == literal_dim(1);
    return false;
  }
  /// @brief The reference's LD rule: `stride[-2]` if `stride[-1] == 1` else `stride[-1]`; 0 for rank < 2.
  [[nodiscard]] constexpr literal_dim leading_dimension() const noexcept {
    if constexpr (Rank >= 2) return is_row_major() ? strides_[Rank - 2] : strides_[Rank - 1];
    return 0;
  }

  /// @brief overlap_of()'s verdict (ir/layout.hpp; the reason text is left to the runtime layout): whether two
  /// indices can address one element, by the same sufficient rule.
  /// @throws evaluation_error (a compile error in constant evaluation) where overlap_of() throws (a product of a
  /// stride and a size that overflows while chaining symbolic strides).
  [[nodiscard]] constexpr overlap_kind overlap() const {
    std::array<std::size_t, Rank> dims{};   // the dimensions of more than one element, in order
    std::array<std::size_t, Rank> fixed{};  // those of them whose strides are constants
    std::size_t n = 0, n_fixed = 0;
    for (std::size_t i = 0; i < Rank; ++i) {
      if (sizes_[i].is_constant() && sizes_[i].coeff_ <= 1) continue;  // any stride will do
      dims[n++] = i;
      if (strides_[i].is_constant()) fixed[n_fixed++] = i;
    }
    // The constant strides, stably sorted: each must be at least the previous stride times its size.
    for (std::size_t k = 1; k < n_fixed; ++k) {
      for (std::size_t j = k; j > 0 && strides_[fixed[j]].coeff_ < strides_[fixed[j - 1]].coeff_; --j) {
        std::swap(fixed[j], fixed[j - 1]);
      }
    }
    bool complete = true;
    std::int64_t extent = 1;
    for (std::size_t k = 0; k < n_fixed; ++k) {
      const std::int64_t stride = strides_[fixed[k]].coeff_;
      if (stride < extent) return overlap_kind::overlapping;
      if (k + 1 == n_fixed) break;
      if (!sizes_[fixed[k]].is_constant()) {
        complete = false;  // the next stride is compared with a product of a symbol
        break;
      }
      const std::int64_t size = sizes_[fixed[k]].coeff_;
      extent = stride > std::numeric_limits<std::int64_t>::max() / size ? std::numeric_limits<std::int64_t>::max()
                                                                        : stride * size;
    }
    if (complete && n_fixed == n) return overlap_kind::disjoint;
    return strides_chain(dims, n) ? overlap_kind::disjoint : overlap_kind::depends;
  }

  /// @brief Symbols used by sizes, strides and offset, sorted and unique.
  [[nodiscard]] constexpr literal_names<(2 * Rank + 1) * literal_dim::max_factors> free_symbols() const noexcept {
    literal_names<(2 * Rank + 1) * literal_dim::max_factors> out;
    auto add = [&](const literal_dim& d) {
      for (std::size_t i = 0; i < d.degree_; ++i) out.insert(d.factor(i));
    };
    for (const auto& s : sizes_) add(s);
    for (const auto& s : strides_) add(s);
    add(offset_);
    return out;
  }

  /// @brief True when every size, stride and the offset are constants.
  [[nodiscard]] constexpr bool is_static() const noexcept {
    auto constant = [](const literal_dim& d) { return d.is_constant(); };
    return std::all_of(sizes_.begin(), sizes_.end(), constant) &&
           std::all_of(strides_.begin(), strides_.end(), constant) && offset_.is_constant();
  }

  /// @brief The text of layout::to_string(): `float16[M, 64] strides [64, 1] offset 0`.
  [[nodiscard]] constexpr literal_text<max_text> to_string() const noexcept {
    literal_text<max_text> t;
    auto list = [&](const dims_type& v) {
      for (std::size_t i = 0; i < Rank; ++i) t.append(i ? ", " : "").append(v[i].to_string().view());
    };
    t.append(detail::literal_dtype_name(type_)).append("[");
    list(sizes_);
    t.append("] strides [");
    list(strides_);
    t.append("] offset ").append(offset_.to_string().view());
    return t;
  }

  /// @brief Same dtype, sizes, strides and offset.
  friend constexpr bool operator==(const literal_layout&, const literal_layout&) noexcept = default;
  /// @brief Writes to_string().
  friend std::ostream& operator<<(std::ostream& os, const literal_layout& l) { return os << l.to_string().view(); }

 private:
  // overlap_of()'s chain rule: from the smallest constant stride of at least 1, each next stride is the previous
  // stride times the previous size plus a constant >= 0 (the smallest such gap first).
  [[nodiscard]] constexpr bool strides_chain(std::array<std::size_t, Rank> dims, std::size_t n) const {
    std::size_t start = n;
    for (std::size_t k = 0; k < n; ++k) {
      const literal_dim& s = strides_[dims[k]];
      if (s.is_constant() && s.coeff_ >= 1 && (start == n || s.coeff_ < strides_[dims[start]].coeff_)) start = k;
    }
    if (start == n) return false;
    literal_dim extent = strides_[dims[start]] * sizes_[dims[start]];
    for (std::size_t k = start; k + 1 < n; ++k) dims[k] = dims[k + 1];
    for (--n; n > 0; --n) {
      std::size_t best = n;
      std::int64_t best_gap = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::optional<std::int64_t> gap = constant_gap(strides_[dims[k]], extent);
        if (gap && *gap >= 0 && (best == n || *gap < best_gap)) best = k, best_gap = *gap;
      }
      if (best == n) return false;
      extent = strides_[dims[best]] * sizes_[dims[best]];
      for (std::size_t k = best; k + 1 < n; ++k) dims[k] = dims[k + 1];
    }
    return true;
  }

  // a - b when it is a constant: both constants, or the same monomial with the same coefficient (then 0).
  [[nodiscard]] static constexpr std::optional<std::int64_t> constant_gap(const literal_dim& a, const literal_dim& b) {
    if (a.is_constant() && b.is_constant()) {
      std::int64_t gap = 0;
      if (__builtin_sub_overflow(a.coeff_, b.coeff_, &gap))
        detail::literal_layout_int64_overflow(a.coeff_, '-', b.coeff_);
      return gap;
    }
    if (a == b) return 0;
    return std::nullopt;
  }

  // layout::row_major()'s loop, which also forms the product of all sizes (and fails where it overflows).
  [[nodiscard]] static constexpr dims_type row_major_strides(const dims_type& sizes) {
    dims_type strides{};
    literal_dim running(1);
    for (std::size_t i = Rank; i-- > 0;) {
      strides[i] = running;
      running = running * sizes[i];
    }
    return strides;
  }

  [[nodiscard]] static constexpr std::size_t normalize(std::int64_t index, const char* what) {
    const auto n = static_cast<std::int64_t>(Rank);
    const auto i = index < 0 ? index + n : index;
    if (i < 0 || i >= n) detail::literal_layout_index_out_of_range(what, index, Rank);
    return static_cast<std::size_t>(i);
  }
};

/// @brief A named literal layout: a buffer known at compile time, checked as `buffer` checks (a valid
/// name; element count, storage extent and storage bytes that fit in int64_t), with constexpr queries.
/// A literal and structural type; the members are public only for that.
/// @tparam Rank number of dimensions.
/// @code{.cpp}
/// constexpr rocmtpl::literal_buffer x("x", rocmtpl::layout::row_major(rocmtpl::dtype::f16, {64, 32}));
/// static_assert(x.name() == "x" && x.get_layout().numel() == 2048);
/// rocmtpl::buffer runtime = x;  // lossless
/// @endcode
template <std::size_t Rank>
struct literal_buffer {
  /// @brief The longest name.
  static constexpr std::size_t max_name = 63;

  char name_[max_name + 1]{};    ///< the name and a terminating zero
  literal_layout<Rank> layout_;  ///< the layout

  /// @brief A buffer named `name` with layout `l`.
  /// @throws invalid_argument_error (a compile error in constant evaluation) unless `name` is a valid name
  /// (is_valid_name()) of at most max_name characters; evaluation_error when its element count, storage
  /// extent or storage bytes overflow int64_t (constant parts; symbolic ones are checked where their values
  /// are known), as buffer's constructor.
  constexpr literal_buffer(std::string_view name, const literal_layout<Rank>& l) : layout_(l) {
    if (!is_valid_name(name) || name.size() > max_name) detail::literal_buffer_bad_name(name);
    std::copy(name.begin(), name.end(), name_);
    detail::literal_fault fault;
    (void)layout_.numel(fault);
    const auto storage = fault ? std::nullopt : layout_.storage_size(fault).constant();
    if (!fault && storage) (void)detail::literal_mul(*storage, detail::literal_element_size(layout_.type_), fault);
    if (fault) {
      detail::literal_buffer_sizes_overflow_int64(this->name(), layout_.to_string().view(),
                                                  fault.what == detail::literal_fault::kind::overflow
                                                      ? "int64_t overflow"
                                                      : "more symbol factors than a literal_dim holds");
    }
  }

  /// @brief The literal buffer of a runtime buffer (defined in ir/buffer.hpp).
  /// @throws invalid_argument_error as literal_layout::from(), or for a name longer than max_name.
  [[nodiscard]] static literal_buffer from(const buffer& b);
  /// @brief The runtime buffer (lossless; defined in ir/buffer.hpp). `buffer` also converts implicitly.
  [[nodiscard]] buffer to_value() const;

  /// @brief The buffer's name.
  [[nodiscard]] constexpr std::string_view name() const noexcept {
    std::size_t n = 0;
    while (n < max_name && name_[n] != '\0') ++n;
    return {name_, n};
  }
  /// @brief The layout.
  [[nodiscard]] constexpr const literal_layout<Rank>& get_layout() const noexcept { return layout_; }
  /// @brief The layout's element type.
  [[nodiscard]] constexpr dtype type() const noexcept { return layout_.type(); }
  /// @brief The layout's sizes.
  [[nodiscard]] constexpr const auto& sizes() const noexcept { return layout_.sizes(); }
  /// @brief The layout's strides, in elements.
  [[nodiscard]] constexpr const auto& strides() const noexcept { return layout_.strides(); }

  /// @brief Same name and layout.
  friend constexpr bool operator==(const literal_buffer&, const literal_buffer&) noexcept = default;
};

/// @brief `literal_buffer("x", l)` deduces the rank of `l`.
template <std::size_t Rank>
literal_buffer(std::string_view, const literal_layout<Rank>&) -> literal_buffer<Rank>;

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/ir/literal_layout-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Layout: dtype, sizes, strides and offset of a tensor, static or symbolic.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/dim.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/literal_layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

/// @brief The sym_expr of a literal dimension value (its coefficient times its symbols).
[[nodiscard]] sym_expr to_sym_expr(const literal_dim& d);

/// @brief The sym_expr of a literal sum (storage_size(), storage_bytes()).
template <std::size_t N>
[[nodiscard]] sym_expr to_sym_expr(const literal_sum<N>& s) {
  sym_expr out;
  for (std::size_t i = 0; i < s.size(); ++i) out += to_sym_expr(s.term(i));
  return out;
}

/// @brief The literal dimension value of an expression.
/// @throws invalid_argument_error naming the expression when it is not an integer times a product of at most
/// literal_dim::max_factors symbols (`M + 1`, `floor_div(M, 2)`), or a symbol name is longer than
/// literal_dim::max_name.
[[nodiscard]] literal_dim to_literal_dim(const sym_expr& e);

/// @brief A literal value equals the expression of the same value (code written for the runtime layout, such as
/// `layout::row_major(t, {4, 8}).numel() == sym_expr(32)`, keeps working on the literal layout those calls give).
/// A template taking exactly sym_expr, so that `literal == 4` stays a literal comparison.
template <std::same_as<sym_expr> E>
[[nodiscard]] bool operator==(const literal_dim& a, const E& b) {
  return to_sym_expr(a) == b;
}
/// @brief A literal sum equals the expression of the same value.
template <std::size_t N, std::same_as<sym_expr> E>
[[nodiscard]] bool operator==(const literal_sum<N>& a, const E& b) {
  return to_sym_expr(a) == b;
}
/// @brief Literal sizes or strides equal the expressions of the same values, in order.
template <std::size_t N, std::same_as<sym_expr> E>
[[nodiscard]] bool operator==(const std::array<literal_dim, N>& a, const std::vector<E>& b) {
  return b.size() == N && std::equal(a.begin(), a.end(), b.begin(),
                                     [](const literal_dim& x, const sym_expr& y) { return to_sym_expr(x) == y; });
}
/// @brief Literal free symbols equal the same names, in order.
template <std::size_t N, std::same_as<std::string> S>
[[nodiscard]] bool operator==(const literal_names<N>& a, const std::vector<S>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/// @brief Memory layout of a tensor: element type, sizes, strides (in elements) and offset.
///
/// Sizes and strides are symbolic expressions (constants for static shapes). The queries follow
/// the reference's rules: a matrix is row-major when `stride[-1] == 1`, column-major when
/// `stride[-2] == 1`, and its leading dimension is `stride[-2]` if `stride[-1] == 1` else `stride[-1]`.
/// A layout known at compile time is a literal_layout (ir/literal_layout.hpp), which converts into a
/// layout implicitly and back through literal_layout::from(): row_major() and col_major() of integer
/// sizes (or of literal_dim sizes) give one, so that they are usable in constant expressions.
/// @code{.cpp}
/// auto a = rocmtpl::layout::row_major(rocmtpl::dtype::f16, {sym_expr::symbol("M"), 4096});
/// a.leading_dimension();  // 4096
/// constexpr auto l = rocmtpl::layout::row_major(rocmtpl::dtype::f16, {64, 32});  // a literal_layout<2>
/// static_assert(l.numel() == 2048);
/// @endcode
class layout {
 public:
  /// @brief The runtime value of a literal layout (lossless, implicit).
  template <std::size_t Rank>
  layout(const literal_layout<Rank>& l)  // NOLINT(google-explicit-constructor): a literal layout is a layout
      : layout(l.type(), to_exprs(l.sizes()), to_exprs(l.strides()), to_sym_expr(l.offset())) {}

  /// @brief Row-major layout of integer sizes, as a literal_layout (usable in constant expressions; it
  /// converts into a layout implicitly). Integer lists choose this overload; lists with a sym_expr the one below.
  /// @throws invalid_argument_error or evaluation_error (compile errors in constant evaluation) as row_major() below.
  template <std::size_t N>
  [[nodiscard]] static constexpr literal_layout<N> row_major(dtype type, const std::int64_t (&sizes)[N],
                                                             std::int64_t offset = 0) {
    return literal_layout<N>::row_major(type, to_array(sizes), offset);
  }
  /// @brief Row-major layout of literal_dim sizes (`{literal_dim::symbol("M"), 64}`), as a literal_layout.
  template <std::size_t N>
  [[nodiscard]] static constexpr literal_layout<N> row_major(dtype type, const literal_dim (&sizes)[N],
                                                             const literal_dim& offset = 0) {
    return literal_layout<N>::row_major(type, to_array(sizes), offset);
  }
  /// @brief Column-major layout of integer sizes, as a literal_layout (see row_major()).
  /// @throws invalid_argument_error (a compile error in constant evaluation) for rank < 2.
  template <std::size_t N>
  [[nodiscard]] static constexpr literal_layout<N> col_major(dtype type, const std::int64_t (&sizes)[N],
                                                             std::int64_t offset = 0) {
    return literal_layout<N>::col_major(type, to_array(sizes), offset);
  }
  /// @brief Column-major layout of literal_dim sizes, as a literal_layout.
  template <std::size_t N>
  [[nodiscard]] static constexpr literal_layout<N> col_major(dtype type, const literal_dim (&sizes)[N],
                                                             const literal_dim& offset = 0) {
    return literal_layout<N>::col_major(type, to_array(sizes), offset);
  }

  /// @brief A layout from explicit sizes, strides and offset.
  /// @throws invalid_argument_error if ranks differ or a constant size, stride or offset is negative.
  layout(dtype type, std::vector<sym_expr> sizes, std::vector<sym_expr> strides, sym_expr offset = 0);

  /// @brief Contiguous row-major (C order) layout: the last dimension has stride 1.
  [[nodiscard]] static layout row_major(dtype type, std::vector<sym_expr> sizes, sym_expr offset = 0);

  /// @brief Column-major matrices (batched: batch dimensions outermost): `stride[-2] == 1`.
  /// @throws invalid_argument_error for rank < 2.
  [[nodiscard]] static layout col_major(dtype type, std::vector<sym_expr> sizes, sym_expr offset = 0);

  /// @brief Element type.
  [[nodiscard]] dtype type() const noexcept { return type_; }
  /// @brief Sizes, one per dimension.
  [[nodiscard]] const std::vector<sym_expr>& sizes() const noexcept { return sizes_; }
  /// @brief Strides in elements, one per dimension.
  [[nodiscard]] const std::vector<sym_expr>& strides() const noexcept { return strides_; }
  /// @brief Offset of the first element, in elements.
  [[nodiscard]] const sym_expr& offset() const noexcept { return offset_; }
  /// @brief Number of dimensions.
  [[nodiscard]] std::size_t rank() const noexcept { return sizes_.size(); }

  /// @brief Size of dimension `index`; negative indices count from the end.
  /// @throws out_of_range_error naming the index and the rank.
  [[nodiscard]] const sym_expr& size(std::int64_t index) const { return sizes_[normalize(index, "size")]; }
  /// @brief Stride of dimension `index`; negative indices count from the end.
  /// @throws out_of_range_error naming the index and the rank.
  [[nodiscard]] const sym_expr& stride(std::int64_t index) const { return strides_[normalize(index, "stride")]; }

  /// @brief Number of elements (product of sizes).
  [[nodiscard]] sym_expr numel() const { return product(sizes_); }

  /// @brief Elements spanned from the offset: 1 + sum((size-1)*stride), 0 when empty.
  /// For symbolic sizes the expression assumes every size is at least 1.
  [[nodiscard]] sym_expr storage_size() const;

  /// @brief True when the strides are those of row_major() for these sizes.
  [[nodiscard]] bool is_contiguous() const;

  /// @brief The reference's rule: row-major when `stride[-1] == 1` (false for rank 0).
  [[nodiscard]] bool is_row_major() const { return rank() >= 1 && strides_.back() == sym_expr(1); }

  /// @brief The reference's rule: column-major when `stride[-2] == 1` (false for rank < 2).
  [[nodiscard]] bool is_col_major() const { return rank() >= 2 && strides_[rank() - 2] == sym_expr(1); }

  /// @brief The reference's LD rule: `stride[-2]` if `stride[-1] == 1` else `stride[-1]`; 0 for rank < 2.
  [[nodiscard]] sym_expr leading_dimension() const {
    if (rank() < 2) return 0;
    return is_row_major() ? strides_[rank() - 2] : strides_.back();
  }

  /// @brief Symbols used by sizes, strides and offset, sorted and unique.
  [[nodiscard]] std::vector<std::string> free_symbols() const;

  /// @brief True when every size, stride and the offset are constants.
  [[nodiscard]] bool is_static() const;

  /// @brief Text such as `float16[M, 64] strides [64, 1] offset 0`, stable across runs.
  [[nodiscard]] const std::string& to_string() const noexcept { return text_; }

  /// @brief Same dtype, sizes, strides and offset.
  friend bool operator==(const layout& a, const layout& b);
  /// @brief Prints to_string().
  friend std::ostream& operator<<(std::ostream& os, const layout& l) { return os << l.to_string(); }

 private:
  template <class T, std::size_t N>
  static constexpr std::array<literal_dim, N> to_array(const T (&values)[N]) {
    std::array<literal_dim, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = values[i];
    return out;
  }
  [[nodiscard]] static std::vector<sym_expr> to_exprs(std::span<const literal_dim> values);
  [[nodiscard]] std::string make_text() const;
  static void check_non_negative(const char* what, const std::vector<sym_expr>& values);
  [[nodiscard]] std::size_t normalize(std::int64_t index, const char* what) const;

  dtype type_;
  std::vector<sym_expr> sizes_;
  std::vector<sym_expr> strides_;
  sym_expr offset_;
  std::string text_;
};

// overlap_kind (whether distinct indices of a layout can address one element) is declared in
// ir/literal_layout.hpp, whose literal_layout::overlap() gives it at compile time.

/// @brief What overlap_of() found.
struct layout_overlap {
  overlap_kind kind = overlap_kind::disjoint;  ///< the verdict
  std::string reason;                          ///< overlapping: the dimensions that collide, and why
};

/// @brief Decides whether two indices of `l` can address one element.
///
/// The rule (sufficient, not necessary): leave out the dimensions of at most one element, sort the
/// others by stride; the first stride must be at least 1 and each next one at least the previous
/// stride times the previous size. The dimensions then number the elements in mixed radix: by
/// induction the first i dimensions reach offsets below stride_i * size_i <= stride_(i+1), so a step
/// of a later dimension never lands on an element the earlier ones reach, and distinct indices give
/// distinct offsets. Some interleaved layouts that do not overlap break the rule (sizes [2, 3],
/// strides [3, 2]); they are refused too.
///
/// Statically: the rule is applied to the dimensions whose strides are constants (a symbolic size
/// counts as more than one element, and one that enters a product stops the walk); a layout whose
/// strides are not all constants is disjoint when its dimensions chain, from a constant stride of at
/// least 1, each stride being the previous stride times the previous size plus a constant >= 0
/// (row-major, column-major and batched layouts of symbolic sizes); otherwise the values decide
/// (`depends`) and rocm_template_kernel::check_sizes() renders the same rule for run time.
[[nodiscard]] layout_overlap overlap_of(const layout& l);

namespace detail {
template <class D>
inline constexpr literal_dim literal_dim_of = literal_dim();
template <std::int64_t V>
inline constexpr literal_dim literal_dim_of<ext<V>> = literal_dim(V);
template <fixed_string Name>
inline constexpr literal_dim literal_dim_of<sym<Name>> = literal_dim::symbol(Name.view());

template <class... D>
constexpr std::array<literal_dim, sizeof...(D)> literal_dims_of(dims<D...>*) {
  return {literal_dim_of<D>...};
}

// literal_layout<Rank>::from(): the literal values of `l`'s sizes, strides and offset, or an
// invalid_argument_error naming what cannot be one (the rank, an expression).
void literal_values_of(const layout& l, std::size_t rank, std::span<literal_dim> sizes, std::span<literal_dim> strides,
                       literal_dim& offset);
}  // namespace detail

template <std::size_t Rank>
literal_layout<Rank> literal_layout<Rank>::from(const layout& l) {
  dims_type sizes{}, strides{};
  literal_dim offset;
  detail::literal_values_of(l, Rank, sizes, strides, offset);
  return {l.type(), sizes, strides, offset};
}

template <std::size_t Rank>
layout literal_layout<Rank>::to_value() const {
  return *this;
}

/// @brief Compile-time layout: a dtype tag, `dims<...>` sizes and `dims<...>` strides.
/// @tparam DType a `dtype_tag`; @tparam Sizes `dims<ext<4>, sym<"N">>`;
/// @tparam Strides `dims<...>` or `void` for contiguous row-major.
/// `to_value()` gives the runtime layout (lossless), `value` the literal one.
template <dtype_tag_type DType, class Sizes, class Strides = void, std::int64_t Offset = 0>
struct static_layout {
  static_assert(Offset >= 0, "rocmtpl: static_layout: offset must be non-negative");
  using dtype_type = DType;                         ///< the dtype tag
  using sizes_type = Sizes;                         ///< the sizes, `dims<...>`
  using strides_type = Strides;                     ///< the strides, `dims<...>`, or `void` (row-major)
  static constexpr dtype type = DType::value;       ///< the element type
  static constexpr std::size_t rank = Sizes::rank;  ///< number of dimensions
  static constexpr std::int64_t offset = Offset;    ///< offset of the first element, in elements

  /// @brief This layout as a literal value: every query is constexpr (`value.numel()`, `value.is_contiguous()`,
  /// ...); a `sym<"M">` is the literal_dim symbol M. Overflow of its sizes is a compile error where it is used.
  static constexpr literal_layout<rank> value = [] {
    if constexpr (std::is_void_v<Strides>) {
      return literal_layout<rank>::row_major(type, detail::literal_dims_of(static_cast<Sizes*>(nullptr)), Offset);
    } else {
      static_assert(Strides::rank == Sizes::rank,
                    "rocmtpl: static_layout: sizes and strides must have the same rank; give one stride per size");
      return literal_layout<rank>(type, detail::literal_dims_of(static_cast<Sizes*>(nullptr)),
                                  detail::literal_dims_of(static_cast<Strides*>(nullptr)), Offset);
    }
  }();

  /// @brief The runtime value of this layout.
  [[nodiscard]] static layout to_value() {
    if constexpr (std::is_void_v<Strides>) {
      return layout::row_major(type, Sizes::to_value(), Offset);
    } else {
      static_assert(Strides::rank == Sizes::rank,
                    "rocmtpl: static_layout: sizes and strides must have the same rank; give one stride per size");
      return layout(type, Sizes::to_value(), Strides::to_value(), Offset);
    }
  }
};

/// @brief Row-major compile-time layout.
template <dtype_tag_type DType, class Sizes>
using row_major_layout = static_layout<DType, Sizes>;

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/ir/layout-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Layout: dtype, sizes, strides and offset of a tensor, static or symbolic.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/dim.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

/// @brief Memory layout of a tensor: element type, sizes, strides (in elements) and offset.
///
/// Sizes and strides are symbolic expressions (constants for static shapes). The queries follow
/// the reference's rules: a matrix is row-major when `stride[-1] == 1`, column-major when
/// `stride[-2] == 1`, and its leading dimension is `stride[-2]` if `stride[-1] == 1` else `stride[-1]`.
/// @code{.cpp}
/// auto a = rocmtpl::layout::row_major(rocmtpl::dtype::f16, {sym_expr::symbol("M"), 4096});
/// a.leading_dimension();  // 4096
/// @endcode
class layout {
 public:
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
  [[nodiscard]] std::string make_text() const;
  static void check_non_negative(const char* what, const std::vector<sym_expr>& values);
  [[nodiscard]] std::size_t normalize(std::int64_t index, const char* what) const;

  dtype type_;
  std::vector<sym_expr> sizes_;
  std::vector<sym_expr> strides_;
  sym_expr offset_;
  std::string text_;
};

/// @brief Whether distinct indices of a layout can address one element (an output's must not: two
/// threads would write one place).
enum class overlap_kind : std::uint8_t {
  disjoint,     ///< no two indices share an element, whatever the values of its symbols
  overlapping,  ///< two indices share an element (a symbolic size counts as more than 1)
  depends,      ///< the values of its symbols decide: generated entry points check them at run time
};

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

/// @brief Compile-time layout: a dtype tag, `dims<...>` sizes and `dims<...>` strides.
/// @tparam DType a `dtype_tag`; @tparam Sizes `dims<ext<4>, sym<"N">>`;
/// @tparam Strides `dims<...>` or `void` for contiguous row-major.
/// `to_value()` gives the runtime layout (lossless).
template <dtype_tag_type DType, class Sizes, class Strides = void, std::int64_t Offset = 0>
struct static_layout {
  static_assert(Offset >= 0, "rocmtpl: static_layout: offset must be non-negative");
  using dtype_type = DType;                         ///< the dtype tag
  using sizes_type = Sizes;                         ///< the sizes, `dims<...>`
  using strides_type = Strides;                     ///< the strides, `dims<...>`, or `void` (row-major)
  static constexpr dtype type = DType::value;       ///< the element type
  static constexpr std::size_t rank = Sizes::rank;  ///< number of dimensions
  static constexpr std::int64_t offset = Offset;    ///< offset of the first element, in elements

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

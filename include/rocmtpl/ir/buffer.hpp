// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Buffer: a named tensor with a layout (the reference's ir.Buffer), static or runtime.

#include <memory>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/identifier.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/literal_layout.hpp>

namespace rocmtpl {

/// @brief A named tensor: the name identifies it in the graph, the layout describes its memory.
/// Copies share the immutable layout (rendering copies buffers into kernels, callers and closures).
class buffer {
 public:
  /// @throws invalid_argument_error if `name` is not a valid name (is_valid_name(): a C identifier,
  /// not a keyword, not an entry point ABI name).
  /// @throws evaluation_error naming the buffer when its element count, storage extent or storage
  /// bytes overflow int64_t for constant sizes (symbolic ones are checked where their values are known).
  buffer(std::string name, rocmtpl::layout layout);

  /// @brief The runtime value of a literal buffer (lossless, implicit).
  template <std::size_t Rank>
  buffer(const literal_buffer<Rank>& b)  // NOLINT(google-explicit-constructor): a literal buffer is a buffer
      : buffer(std::string(b.name()), b.get_layout()) {}

  /// @brief The buffer's name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// @brief The layout (the reference's get_layout()).
  [[nodiscard]] const rocmtpl::layout& get_layout() const noexcept { return *layout_; }
  /// @brief The layout's element type.
  [[nodiscard]] dtype type() const noexcept { return layout_->type(); }
  /// @brief The layout's sizes.
  [[nodiscard]] const std::vector<sym_expr>& sizes() const noexcept { return layout_->sizes(); }
  /// @brief The layout's strides, in elements.
  [[nodiscard]] const std::vector<sym_expr>& strides() const noexcept { return layout_->strides(); }

  /// @brief Same name and equal layouts.
  friend bool operator==(const buffer& a, const buffer& b);

 private:
  void check_static_extent() const;

  std::string name_;
  std::shared_ptr<const rocmtpl::layout> layout_;
};

template <std::size_t Rank>
literal_buffer<Rank> literal_buffer<Rank>::from(const buffer& b) {
  return {b.name(), literal_layout<Rank>::from(b.get_layout())};
}

template <std::size_t Rank>
buffer literal_buffer<Rank>::to_value() const {
  return *this;
}

/// @brief Compile-time buffer: a name and a `static_layout`. `to_value()` gives the runtime buffer, `value`
/// the literal one.
template <fixed_string Name, class Layout>
struct static_buffer {
  static_assert(is_identifier(Name.view()), "rocmtpl: static_buffer: the name must be a C identifier");
  static_assert(
      is_valid_name(Name.view()),
      "rocmtpl: static_buffer: the name must not be a C/C++ keyword or an entry point parameter name; rename it");
  using layout_type = Layout;                            ///< the static_layout
  static constexpr std::string_view name = Name.view();  ///< the buffer's name
  /// @brief This buffer as a literal value (constexpr queries; its checks are compile errors where it is used).
  static constexpr literal_buffer<Layout::rank> value{Name.view(), Layout::value};
  /// @brief The runtime buffer (lossless).
  [[nodiscard]] static buffer to_value() { return {std::string(name), Layout::to_value()}; }
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/ir/buffer-inl.hpp>
#endif

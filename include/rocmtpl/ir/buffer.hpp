// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Buffer: a named tensor with a layout (the reference's ir.Buffer), static or runtime.

#include <memory>
#include <string>
#include <utility>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/layout.hpp>

namespace rocmtpl {

/// @brief A named tensor: the name identifies it in the graph, the layout describes its memory.
/// Copies share the immutable layout (rendering copies buffers into kernels, callers and closures).
class buffer {
 public:
  /// @throws invalid_argument_error if `name` is not a C identifier.
  buffer(std::string name, rocmtpl::layout layout)
      : name_(std::move(name)), layout_(std::make_shared<const rocmtpl::layout>(std::move(layout))) {
    if (!is_identifier(name_)) {
      throw invalid_argument_error("rocmtpl: buffer: name '" + name_ + "' is not a C identifier");
    }
  }

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const rocmtpl::layout& get_layout() const noexcept { return *layout_; }
  [[nodiscard]] dtype type() const noexcept { return layout_->type(); }
  [[nodiscard]] const std::vector<sym_expr>& sizes() const noexcept { return layout_->sizes(); }
  [[nodiscard]] const std::vector<sym_expr>& strides() const noexcept { return layout_->strides(); }

  friend bool operator==(const buffer& a, const buffer& b) {
    return a.name_ == b.name_ && (a.layout_ == b.layout_ || *a.layout_ == *b.layout_);
  }

 private:
  std::string name_;
  std::shared_ptr<const rocmtpl::layout> layout_;
};

/// @brief Compile-time buffer: a name and a `static_layout`. `to_value()` gives the runtime buffer.
template <fixed_string Name, class Layout>
struct static_buffer {
  static_assert(is_identifier(Name.view()), "rocmtpl: static_buffer: the name must be a C identifier");
  using layout_type = Layout;
  static constexpr std::string_view name = Name.view();
  [[nodiscard]] static buffer to_value() { return {std::string(name), Layout::to_value()}; }
};

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief template_context: what a policy's render() sees of its template instance.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>

namespace rocmtpl {

/// @brief Inputs, output, input order and the common source preamble of one template instance.
class template_context {
 public:
  /// @param input_nodes the input buffers, in the template's order
  /// @param output_node the output buffer
  /// @param input_reorder the entry point's order of the inputs (indices into input_nodes); nullopt: as given
  /// @param header the includes every generated source starts with
  /// @param globals PT_EXPORT, the bfloat16 alias, status codes and helpers
  template_context(std::vector<buffer> input_nodes, buffer output_node, std::optional<std::vector<int>> input_reorder,
                   std::string header, std::string globals);

  /// @brief Input buffers in the template's own order.
  [[nodiscard]] const std::vector<buffer>& input_nodes() const noexcept { return input_nodes_; }
  /// @brief Input `i`, or nullptr when `i` is past the end (an optional input that is absent).
  [[nodiscard]] const buffer* input(std::size_t i) const noexcept {
    return i < input_nodes_.size() ? &input_nodes_[i] : nullptr;
  }
  /// @brief The output buffer.
  [[nodiscard]] const buffer& output_node() const noexcept { return output_node_; }
  /// @brief The entry point's order of the inputs (indices into input_nodes()); nullopt: as given.
  [[nodiscard]] const std::optional<std::vector<int>>& input_reorder() const noexcept { return input_reorder_; }
  /// @brief The includes every generated source starts with.
  [[nodiscard]] const std::string& header() const noexcept { return header_; }
  /// @brief PT_EXPORT, the bfloat16 alias, status codes and helpers.
  [[nodiscard]] const std::string& globals() const noexcept { return globals_; }

 private:
  std::vector<buffer> input_nodes_;
  buffer output_node_;
  std::optional<std::vector<int>> input_reorder_;
  std::string header_;
  std::string globals_;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/template_context-inl.hpp>
#endif

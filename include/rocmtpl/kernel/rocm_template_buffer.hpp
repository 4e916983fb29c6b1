// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief rocm_template_buffer: the chosen template's output node (the reference's ROCmTemplateBuffer).

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

class rocm_template_kernel;
class rocm_template_buffer;

/// @brief What make_kernel_render returns: a kernel named `KERNEL_NAME` and the closure that renders
/// it into parts (the scheduler gives the parts their real name and linkage).
struct kernel_render {
  std::shared_ptr<rocm_template_kernel> kernel;  ///< the kernel the template renders into
  std::function<rendered_source()> render;       ///< renders the kernel's parts
};

/// @brief Re-renders a chosen template for a buffer, with optional epilogue nodes fused.
using make_kernel_render_fn =
    std::function<kernel_render(const rocm_template_buffer& node, const std::vector<buffer>& epilogue_nodes)>;

/// @brief Re-renders a chosen template for a buffer with an epilogue chain fused (templates that
/// declare kernel_capabilities::epilogue); throws invalid_argument_error with the reason to refuse.
using make_fused_render_fn = std::function<kernel_render(const rocm_template_buffer& node, const fused_epilogue& e)>;

/// @brief A template's output in the graph: layout, inputs, the render closure and the workspace size.
///
/// The workspace is known at code generation in two forms: get_workspace_size(), the bytes at the
/// size hints the choice was benchmarked with (the reference's workspace_size), and
/// workspace_bytes(), the bytes as an expression of the size symbols, valid for every size, which
/// rocm_cpp_scheduling allocates around the call. rocm_template_caller::output_node() fills both.
class rocm_template_buffer {
 public:
  /// @param output the template's output buffer
  /// @param inputs its input buffers
  /// @param make_kernel_render re-renders the template (empty for a choice that cannot be re-rendered)
  /// @param workspace_size bytes at the hints; nullopt when unknown
  /// @param template_name the template (the reference's `template`)
  /// @param workspace_bytes bytes as an expression of the size symbols; nullopt when unknown (the
  /// scheduler then asks the kernel at run time)
  rocm_template_buffer(buffer output, std::vector<buffer> inputs, make_kernel_render_fn make_kernel_render,
                       std::optional<std::size_t> workspace_size, std::string template_name,
                       std::optional<sym_expr> workspace_bytes = std::nullopt);

  /// @brief The output buffer's name.
  [[nodiscard]] const std::string& name() const noexcept { return output_.name(); }
  /// @brief The output buffer.
  [[nodiscard]] const buffer& output() const noexcept { return output_; }
  /// @brief The output's layout.
  [[nodiscard]] const rocmtpl::layout& get_layout() const noexcept { return output_.get_layout(); }
  /// @brief The input buffers.
  [[nodiscard]] const std::vector<buffer>& inputs() const noexcept { return inputs_; }
  /// @brief The template's name.
  [[nodiscard]] const std::string& template_name() const noexcept { return template_name_; }

  /// @brief Global memory (bytes) the kernel needs as workspace; 0 when unknown (the reference's rule).
  [[nodiscard]] std::size_t get_workspace_size() const noexcept { return workspace_size_.value_or(0); }

  /// @brief The workspace in bytes as an expression of the size symbols (a constant when it does
  /// not depend on them); nullopt when only the kernel knows it (asked at run time).
  [[nodiscard]] const std::optional<sym_expr>& workspace_bytes() const noexcept { return workspace_bytes_; }

  /// @brief True when the node can be rendered again (make_kernel_render() has a closure): what
  /// rocm_cpp_scheduling::is_rocm_cpp_template() checks.
  [[nodiscard]] bool has_kernel_render() const noexcept { return static_cast<bool>(make_kernel_render_); }

  /// @brief The pointwise chain this node computes on its input 0 (its inputs 1.. are the chain's
  /// operands 0..), when its template declares kernel_capabilities::pointwise: what makes it an
  /// epilogue the template before it can fuse.
  [[nodiscard]] const std::optional<epilogue_chain>& pointwise() const noexcept { return pointwise_; }
  /// @brief Sets the chain (rocm_template_caller::output_node() does, from the template).
  rocm_template_buffer& set_pointwise(std::optional<epilogue_chain> chain);

  /// @brief True when the template renders with an epilogue chain fused (make_fused_render()).
  [[nodiscard]] bool has_fused_render() const noexcept { return static_cast<bool>(make_fused_render_); }
  /// @brief Sets the fused render closure (rocm_template_caller::output_node() does, from the template).
  rocm_template_buffer& set_fused_render(make_fused_render_fn fn);
  /// @brief Renders the kernel again with the `KERNEL_NAME` placeholder and `e` fused.
  /// @throws invalid_argument_error when the template does not fuse epilogues or refuses this one
  [[nodiscard]] kernel_render make_fused_render(const fused_epilogue& e) const;

  /// @brief Renders the kernel again with the `KERNEL_NAME` placeholder (for scheduling).
  /// @throws invalid_argument_error when the node has no render closure (see has_kernel_render())
  [[nodiscard]] kernel_render make_kernel_render(const std::vector<buffer>& epilogue_nodes = {}) const;

 private:
  buffer output_;
  std::vector<buffer> inputs_;
  make_kernel_render_fn make_kernel_render_;
  std::optional<std::size_t> workspace_size_;
  std::string template_name_;
  std::optional<sym_expr> workspace_bytes_;
  std::optional<epilogue_chain> pointwise_;
  make_fused_render_fn make_fused_render_;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/kernel/rocm_template_buffer-inl.hpp>
#endif

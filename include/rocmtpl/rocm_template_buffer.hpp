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

#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/ir/buffer.hpp>

namespace rocmtpl {

class rocm_template_kernel;
class rocm_template_buffer;

/// @brief What make_kernel_render returns: a kernel named `KERNEL_NAME` and the closure that renders
/// it into parts (the scheduler gives the parts their real name and linkage).
struct kernel_render {
  std::shared_ptr<rocm_template_kernel> kernel;
  std::function<rendered_source()> render;
};

/// @brief Re-renders a chosen template for a buffer, with optional epilogue nodes fused.
using make_kernel_render_fn =
    std::function<kernel_render(const rocm_template_buffer& node, const std::vector<buffer>& epilogue_nodes)>;

/// @brief A template's output in the graph: layout, inputs, the render closure and the workspace size.
class rocm_template_buffer {
 public:
  rocm_template_buffer(buffer output, std::vector<buffer> inputs, make_kernel_render_fn make_kernel_render,
                       std::optional<std::size_t> workspace_size, std::string template_name)
      : output_(std::move(output)),
        inputs_(std::move(inputs)),
        make_kernel_render_(std::move(make_kernel_render)),
        workspace_size_(workspace_size),
        template_name_(std::move(template_name)) {}

  [[nodiscard]] const std::string& name() const noexcept { return output_.name(); }
  [[nodiscard]] const buffer& output() const noexcept { return output_; }
  [[nodiscard]] const rocmtpl::layout& get_layout() const noexcept { return output_.get_layout(); }
  [[nodiscard]] const std::vector<buffer>& inputs() const noexcept { return inputs_; }
  [[nodiscard]] const std::string& template_name() const noexcept { return template_name_; }

  /// @brief Global memory (bytes) the kernel needs as workspace; 0 when unknown (the reference's rule).
  [[nodiscard]] std::size_t get_workspace_size() const noexcept { return workspace_size_.value_or(0); }

  /// @brief Renders the kernel again with the `KERNEL_NAME` placeholder (for scheduling).
  [[nodiscard]] kernel_render make_kernel_render(const std::vector<buffer>& epilogue_nodes = {}) const {
    return make_kernel_render_(*this, epilogue_nodes);
  }

 private:
  buffer output_;
  std::vector<buffer> inputs_;
  make_kernel_render_fn make_kernel_render_;
  std::optional<std::size_t> workspace_size_;
  std::string template_name_;
};

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of kernel/rocm_template_buffer.hpp: included at its end (header-only) or compiled once by
// src/kernel.cpp, after it (so it does not include it back).

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

ROCMTPL_INLINE rocm_template_buffer::rocm_template_buffer(buffer output, std::vector<buffer> inputs,
                                                          make_kernel_render_fn make_kernel_render,
                                                          std::optional<std::size_t> workspace_size,
                                                          std::string template_name,
                                                          std::optional<sym_expr> workspace_bytes)
    : output_(std::move(output)),
      inputs_(std::move(inputs)),
      make_kernel_render_(std::move(make_kernel_render)),
      workspace_size_(workspace_size),
      template_name_(std::move(template_name)),
      workspace_bytes_(std::move(workspace_bytes)) {}

ROCMTPL_INLINE rocm_template_buffer& rocm_template_buffer::set_pointwise(std::optional<epilogue_chain> chain) {
  pointwise_ = std::move(chain);
  return *this;
}

ROCMTPL_INLINE rocm_template_buffer& rocm_template_buffer::set_fused_render(make_fused_render_fn fn) {
  make_fused_render_ = std::move(fn);
  return *this;
}

ROCMTPL_INLINE kernel_render rocm_template_buffer::make_fused_render(const fused_epilogue& e) const {
  if (!make_fused_render_) {
    throw invalid_argument_error("rocmtpl: rocm_template_buffer: template '" + template_name_ + "' of node '" + name() +
                                 "' does not fuse epilogue nodes: it does not declare kernel_capabilities::epilogue");
  }
  return make_fused_render_(*this, e);
}

ROCMTPL_INLINE kernel_render rocm_template_buffer::make_kernel_render(const std::vector<buffer>& epilogue_nodes) const {
  if (!make_kernel_render_) {
    throw invalid_argument_error("rocmtpl: rocm_template_buffer: node '" + name() + "' of template '" + template_name_ +
                                 "' cannot be rendered again (it has no make_kernel_render, as a reference "
                                 "choice has none); schedule a choice from rocm_template::generate()");
  }
  return make_kernel_render_(*this, epilogue_nodes);
}

}  // namespace rocmtpl

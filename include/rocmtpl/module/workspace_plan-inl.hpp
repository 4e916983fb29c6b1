// SPDX-License-Identifier: MIT
#pragma once

// The implementation of module/workspace_plan.hpp: included at its end (header-only) or compiled once by
// src/module.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

ROCMTPL_INLINE std::optional<std::size_t> workspace_plan::find(const std::string& name) const noexcept {
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    for (const auto& b : slots_[s].buffers) {
      if (b == name) return s;
    }
  }
  return std::nullopt;
}

ROCMTPL_INLINE std::size_t workspace_plan::slot_of(const std::string& name) const {
  if (const auto s = find(name)) return *s;
  throw invalid_argument_error("rocmtpl: workspace_plan: no buffer '" + name + "' in the plan");
}

ROCMTPL_INLINE workspace_sizes workspace_plan::evaluate(const size_hints& hints, std::size_t alignment) const {
  check_alignment(alignment);
  workspace_sizes out;
  for (const auto& slot : slots_) {
    std::size_t largest = 0;
    for (std::size_t i = 0; i < slot.buffers.size(); ++i) {
      const std::int64_t v = slot.bytes[i].evaluate(hints);
      if (v < 0) {
        throw invalid_argument_error("rocmtpl: workspace_plan: buffer '" + slot.buffers[i] + "' has " +
                                     std::to_string(v) + " bytes; sizes must not be negative");
      }
      largest = std::max(largest, align_up(static_cast<std::size_t>(v), alignment));
    }
    out.offsets.push_back(out.total);
    out.bytes.push_back(largest);
    if (largest > std::numeric_limits<std::size_t>::max() - out.total) {
      throw out_of_range_error("rocmtpl: workspace_plan: the workspace does not fit in size_t");
    }
    out.total += largest;
  }
  return out;
}

ROCMTPL_INLINE void workspace_plan::check_alignment(std::size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    throw invalid_argument_error("rocmtpl: workspace_plan: alignment " + std::to_string(alignment) +
                                 " is not a power of two");
  }
}

ROCMTPL_INLINE std::size_t workspace_plan::align_up(std::size_t bytes, std::size_t alignment) {
  if (bytes > std::numeric_limits<std::size_t>::max() - (alignment - 1)) {
    throw out_of_range_error("rocmtpl: workspace_plan: " + std::to_string(bytes) + " bytes cannot be aligned");
  }
  return (bytes + alignment - 1) / alignment * alignment;
}

ROCMTPL_INLINE workspace_plan plan_workspace(const std::vector<workspace_buffer>& buffers) {
  workspace_plan plan;
  auto& slots = plan.slots_;
  for (const auto& b : buffers) {
    if (b.last_use < b.first_use) {
      throw invalid_argument_error("rocmtpl: plan_workspace: buffer '" + b.name + "' is last used (call " +
                                   std::to_string(b.last_use) + ") before it is written (call " +
                                   std::to_string(b.first_use) + ")");
    }
    if (plan.find(b.name)) {
      throw invalid_argument_error("rocmtpl: plan_workspace: buffer '" + b.name + "' is listed twice");
    }
    // A slot whose latest buffer dies at call c is free for a buffer first written at c + 1; the
    // latest buffer is always the one that dies last, since buffers only go into free slots.
    std::size_t s = 0;
    while (s < slots.size() && slots[s].busy_until >= b.first_use) ++s;
    if (s == slots.size()) slots.emplace_back();
    slots[s].buffers.push_back(b.name);
    slots[s].bytes.push_back(b.bytes);
    slots[s].busy_until = b.last_use;
  }
  return plan;
}

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/template_context.hpp: included at its end (header-only) or compiled once by
// src/codegen.cpp, after it (so it does not include it back).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/buffer.hpp>

namespace rocmtpl {

ROCMTPL_INLINE template_context::template_context(std::vector<buffer> input_nodes, buffer output_node,
                                                  std::optional<std::vector<int>> input_reorder, std::string header,
                                                  std::string globals)
    : input_nodes_(std::move(input_nodes)),
      output_node_(std::move(output_node)),
      input_reorder_(std::move(input_reorder)),
      header_(std::move(header)),
      globals_(std::move(globals)) {}

}  // namespace rocmtpl

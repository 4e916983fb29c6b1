// SPDX-License-Identifier: MIT
#pragma once

// The implementation of module/graph.hpp: included at its end (header-only) or compiled once by src/module.cpp, after
// it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

// The module's name is its entry point's, exported as it is (no user_identifier() prefix): besides
// the rules of every user name (a C identifier, no keyword, no ABI name) it must not be a name the
// C library or the GPU runtime declares in the generated source, nor start with the library's
// prefixes.
ROCMTPL_INLINE module_graph::module_graph(std::string name) : name_(std::move(name)) {
  if (const auto problem = exported_name_problem(name_); !problem.empty()) {
    throw invalid_argument_error("rocmtpl: module_graph: module name '" + name_ + "' " + std::string(problem));
  }
  if (name_.starts_with("rocmtpl_") || name_.starts_with(user_identifier_prefix)) {
    throw invalid_argument_error("rocmtpl: module_graph: module name '" + name_ + "' starts with 'rocmtpl_' or '" +
                                 std::string(user_identifier_prefix) +
                                 "', prefixes of names in generated code; choose another name");
  }
}

ROCMTPL_INLINE module_graph& module_graph::add_input(buffer input) {
  check_new_name(input.name(), "input");
  inputs_.push_back(std::move(input));
  return *this;
}

ROCMTPL_INLINE module_graph& module_graph::add_node(std::string name, rocm_template_buffer node,
                                                    std::vector<std::string> input_names) {
  check_new_name(name, "node output");
  scheduler_node sn{name, std::move(node), {}};
  const auto& template_inputs = sn.node.inputs();
  if (!input_names.empty() && input_names.size() != template_inputs.size()) {
    throw invalid_argument_error("rocmtpl: module_graph: node '" + name + "' has " +
                                 std::to_string(template_inputs.size()) + " inputs but " +
                                 std::to_string(input_names.size()) + " input names were given");
  }
  for (std::size_t i = 0; i < template_inputs.size(); ++i) {
    const auto& tb = template_inputs[i];
    const std::string graph = input_names.empty() ? tb.name() : input_names[i];
    const auto found = find(graph);
    if (!found) {
      throw invalid_argument_error("rocmtpl: module_graph: node '" + name + "' reads '" + graph +
                                   "', which is neither a graph input nor the output of an earlier node");
    }
    if (!(found->get_layout() == tb.get_layout())) {
      throw invalid_argument_error("rocmtpl: module_graph: node '" + name + "' reads '" + graph + "' as " +
                                   tb.get_layout().to_string() + " but the graph buffer is " +
                                   found->get_layout().to_string());
    }
    if (graph != tb.name()) sn.input_names.emplace(tb.name(), graph);
  }
  nodes_.push_back(std::move(sn));
  return *this;
}

ROCMTPL_INLINE module_graph& module_graph::add_output(const std::string& name) {
  const bool is_node =
      std::any_of(nodes_.begin(), nodes_.end(), [&](const scheduler_node& n) { return n.name == name; });
  if (!is_node) {
    throw invalid_argument_error("rocmtpl: module_graph: output '" + name + "' is not the output of a node");
  }
  if (std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end()) {
    throw invalid_argument_error("rocmtpl: module_graph: '" + name + "' is already an output");
  }
  outputs_.push_back(name);
  return *this;
}

ROCMTPL_INLINE std::optional<buffer> module_graph::find(std::string_view name) const {
  for (const auto& b : inputs_) {
    if (b.name() == name) return b;
  }
  for (const auto& n : nodes_) {
    if (n.name == name) return buffer(n.name, n.node.get_layout());
  }
  return std::nullopt;
}

// Buffer and node names are user names: renamed in generated code (user_identifier()), so a runtime
// name such as hipMalloc is harmless, but keywords and the entry point's ABI names are refused as for
// size symbols (identifier_problem()).
ROCMTPL_INLINE void module_graph::check_new_name(const std::string& name, const char* what) const {
  if (const auto problem = identifier_problem(name); !problem.empty()) {
    throw invalid_argument_error("rocmtpl: module_graph: " + std::string(what) + " name '" + name + "' " +
                                 std::string(problem));
  }
  if (is_reserved(name) || name == name_) {
    throw invalid_argument_error("rocmtpl: module_graph: " + std::string(what) + " name '" + name +
                                 "' is reserved or not a C identifier (reserved: workspace_size, workspace, stream, "
                                 "rocmtpl_*, the module name)");
  }
  if (find(name)) {
    throw invalid_argument_error("rocmtpl: module_graph: " + std::string(what) + " name '" + name +
                                 "' is already used in module '" + name_ + "'");
  }
}

ROCMTPL_INLINE std::string module_source::source_hash() const { return detail::hash_hex(source); }

}  // namespace rocmtpl

namespace rocmtpl::detail::module_impl {

// rocmtpl_module_bytes(numel, storage elements, element bytes, &ok) for a buffer's layout: the bytes
// of its storage in generated code, every product checked into the bool `ok_flag` (the emitter
// defines rocmtpl_module_bytes; the runner uses it too).
ROCMTPL_INLINE std::string bytes_expr(const buffer& b, std::string_view ok_flag) {
  const auto& l = b.get_layout();
  return "rocmtpl_module_bytes(" + l.numel().to_cpp_checked(ok_flag) + ", " + l.storage_size().to_cpp_checked(ok_flag) +
         ", " + std::to_string(element_size(l.type())) + ", &" + std::string(ok_flag) + ")";
}

}  // namespace rocmtpl::detail::module_impl

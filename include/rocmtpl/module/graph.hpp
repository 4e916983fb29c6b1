// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The description of a module: module_graph (inputs, template nodes, outputs), the settings
/// of emit_module() (module_options) and what it returns (module_source). See rocmtpl/module.hpp.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/kernel/rocm_cpp_scheduling.hpp>
#include <rocmtpl/kernel/rocm_template_buffer.hpp>
#include <rocmtpl/module/workspace_plan.hpp>

namespace rocmtpl {

/// @brief A graph of chosen template nodes with named inputs and outputs; the nodes run in the
/// order they were added (each may use graph inputs and the outputs of earlier nodes).
class module_graph {
 public:
  /// @param name the module's entry point, a C identifier (not `main`, not starting with `rocmtpl_`)
  /// @throws invalid_argument_error for a bad name
  explicit module_graph(std::string name) : name_(std::move(name)) {
    if (!is_identifier(name_) || name_ == "main" || name_.starts_with("rocmtpl_")) {
      throw invalid_argument_error("rocmtpl: module_graph: module name '" + name_ +
                                   "' must be a C identifier other than 'main' that does not start with 'rocmtpl_'");
    }
  }

  /// @brief Adds a graph input; inputs are the entry point's first parameters, in this order.
  /// @throws invalid_argument_error for a reserved or repeated name
  module_graph& add_input(buffer input) {
    check_new_name(input.name(), "input");
    inputs_.push_back(std::move(input));
    return *this;
  }

  /// @brief Adds a node computing the graph buffer `name`.
  /// @param name graph name of the node's output
  /// @param node the chosen template (e.g. `caller.output_node()`)
  /// @param input_names graph names of the template's inputs, in the order of node.inputs(); empty:
  /// the template's input buffers are named as in the graph
  /// @throws invalid_argument_error for a reserved or repeated name, a wrong number of input names,
  /// an unknown input, or an input whose layout differs from the graph buffer's
  module_graph& add_node(std::string name, rocm_template_buffer node, std::vector<std::string> input_names = {}) {
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

  /// @brief Marks a node's output as a module output; outputs follow the inputs in the entry
  /// point, in this order.
  /// @throws invalid_argument_error when `name` is not a node output or is already an output
  module_graph& add_output(const std::string& name) {
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

  /// @brief The module (and entry point) name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// @brief Graph inputs, in entry-point order.
  [[nodiscard]] const std::vector<buffer>& inputs() const noexcept { return inputs_; }
  /// @brief Nodes, in execution order.
  [[nodiscard]] const std::vector<scheduler_node>& nodes() const noexcept { return nodes_; }
  /// @brief Graph names of the outputs, in entry-point order.
  [[nodiscard]] const std::vector<std::string>& outputs() const noexcept { return outputs_; }
  /// @brief True when `name` is a module output.
  [[nodiscard]] bool is_output(std::string_view name) const {
    return std::find(outputs_.begin(), outputs_.end(), name) != outputs_.end();
  }

  /// @brief The graph buffer `name` (an input, or a node output under its graph name), if any.
  [[nodiscard]] std::optional<buffer> find(std::string_view name) const {
    for (const auto& b : inputs_) {
      if (b.name() == name) return b;
    }
    for (const auto& n : nodes_) {
      if (n.name == name) return buffer(n.name, n.node.get_layout());
    }
    return std::nullopt;
  }

  /// @brief True for names the generated entry point reserves: its parameters `workspace_size`,
  /// `workspace` and `stream`, and everything starting with `rocmtpl_`.
  [[nodiscard]] static bool is_reserved(std::string_view name) noexcept {
    return name == "workspace_size" || name == "workspace" || name == "stream" || name.starts_with("rocmtpl_");
  }

 private:
  void check_new_name(const std::string& name, const char* what) const {
    if (!is_identifier(name) || is_reserved(name) || name == name_) {
      throw invalid_argument_error("rocmtpl: module_graph: " + std::string(what) + " name '" + name +
                                   "' is reserved or not a C identifier (reserved: workspace_size, workspace, stream, "
                                   "rocmtpl_*, the module name)");
    }
    if (find(name)) {
      throw invalid_argument_error("rocmtpl: module_graph: " + std::string(what) + " name '" + name +
                                   "' is already used in module '" + name_ + "'");
    }
  }

  std::string name_;
  std::vector<buffer> inputs_;
  std::vector<scheduler_node> nodes_;
  std::vector<std::string> outputs_;
};

/// @brief Settings of emit_module().
struct module_options {
  /// @brief Offer the pointwise nodes (a run of them: their chains fuse in order) or the elementwise
  /// node that follow a template node to it as epilogues (when each intermediate feeds only the next
  /// node and is no module output; a fused intermediate leaves the workspace); a refusal keeps the
  /// kernels and is noted in the source.
  bool fuse_epilogues = true;
  /// @brief Emit the `main()` of the standalone runner under `#ifdef ROCMTPL_STANDALONE_RUNNER`.
  bool standalone_runner = true;
  /// @brief Alignment (bytes, a power of two) of every region of the workspace.
  std::size_t workspace_alignment = 256;
  /// @brief Default values of the size symbols in the runner (`NAME=value` arguments override them);
  /// a symbol without a default must be given on the runner's command line.
  size_hints runner_sizes{};
  /// @brief Default number of timed runs of the runner (`--iters=N` overrides it).
  int runner_iterations = 20;
};

/// @brief An emitted module: the source and the description of its entry point.
struct module_source {
  std::string name;                        ///< module and entry-point name
  std::string source;                      ///< the translation unit
  std::string signature;                   ///< the entry point's declaration
  entry_signature entry;                   ///< the entry point's parameters (its packed twin is rendered from them)
  std::vector<buffer> inputs;              ///< tensor parameters read, in order
  std::vector<buffer> outputs;             ///< tensor parameters written, in order
  std::vector<std::string> size_args;      ///< `int64_t` size parameters, in order
  std::vector<kernel_definition> kernels;  ///< the kernels, deduplicated
  std::vector<kernel_call> calls;          ///< the calls, in execution order
  std::vector<std::string> intermediates;  ///< graph buffers that live in the workspace
  std::vector<std::string> notes;          ///< fusion decisions, also written into the source
  std::size_t workspace_alignment = 256;   ///< alignment of the workspace regions
  workspace_plan workspace;                ///< the intermediates' slots in the workspace

  /// @brief xxh3-64 of the source, 16 hex digits.
  [[nodiscard]] std::string source_hash() const { return detail::hash_hex(source); }
};

namespace detail::module_impl {

// The flag the generated size arithmetic of a module (entry point and runner) clears on overflow.
inline constexpr std::string_view sizes_ok_flag = "rocmtpl_sizes_ok";

// rocmtpl_module_bytes(numel, storage elements, element bytes, &ok) for a buffer's layout: the bytes
// of its storage in generated code, every product checked into the bool `ok_flag` (the emitter
// defines rocmtpl_module_bytes; the runner uses it too).
inline std::string bytes_expr(const buffer& b, std::string_view ok_flag) {
  const auto& l = b.get_layout();
  return "rocmtpl_module_bytes(" + l.numel().to_cpp_checked(ok_flag) + ", " + l.storage_size().to_cpp_checked(ok_flag) +
         ", " + std::to_string(element_size(l.type())) + ", &" + std::string(ok_flag) + ")";
}

}  // namespace detail::module_impl

}  // namespace rocmtpl

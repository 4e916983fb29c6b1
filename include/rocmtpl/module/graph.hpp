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

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/identifier.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/kernel/rocm_cpp_scheduling.hpp>
#include <rocmtpl/kernel/rocm_template_buffer.hpp>
#include <rocmtpl/module/workspace_plan.hpp>

namespace rocmtpl {

/// @brief A graph of chosen template nodes with named inputs and outputs; the nodes run in the
/// order they were added (each may use graph inputs and the outputs of earlier nodes).
class module_graph {
 public:
  /// @param name the module's entry point, exported as it is: a C identifier that is no keyword, no
  /// entry-point ABI name, not `main`, no name the C library or the GPU runtime declares
  /// (is_runtime_name(): `free`, `hipMalloc`, ...) and not starting with `rocmtpl_` or `u_`
  /// @throws invalid_argument_error for a bad name (exported_name_problem() says why)
  explicit module_graph(std::string name);

  /// @brief Adds a graph input; inputs are the entry point's first parameters, in this order.
  /// @throws invalid_argument_error for a reserved or repeated name
  module_graph& add_input(buffer input);

  /// @brief Adds a node computing the graph buffer `name`.
  /// @param name graph name of the node's output: a user name (is_valid_name(): no keyword, no ABI
  /// name), renamed in generated code as size symbols are (`u_<name>`)
  /// @param node the chosen template (e.g. `caller.output_node()`)
  /// @param input_names graph names of the template's inputs, in the order of node.inputs(); empty:
  /// the template's input buffers are named as in the graph
  /// @throws invalid_argument_error for a reserved or repeated name, a wrong number of input names,
  /// an unknown input, or an input whose layout differs from the graph buffer's
  module_graph& add_node(std::string name, rocm_template_buffer node, std::vector<std::string> input_names = {});

  /// @brief Marks a node's output as a module output; outputs follow the inputs in the entry
  /// point, in this order.
  /// @throws invalid_argument_error when `name` is not a node output or is already an output
  module_graph& add_output(const std::string& name);

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
  [[nodiscard]] std::optional<buffer> find(std::string_view name) const;

  /// @brief True for names the generated entry point reserves: its parameters `workspace_size`,
  /// `workspace` and `stream`, and everything starting with `rocmtpl_`.
  [[nodiscard]] static bool is_reserved(std::string_view name) noexcept {
    return name == "workspace_size" || name == "workspace" || name == "stream" || name.starts_with("rocmtpl_");
  }

 private:
  void check_new_name(const std::string& name, const char* what) const;

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
  [[nodiscard]] std::string source_hash() const;
};

namespace detail::module_impl {

// The flag the generated size arithmetic of a module (entry point and runner) clears on overflow.
inline constexpr std::string_view sizes_ok_flag = "rocmtpl_sizes_ok";

std::string bytes_expr(const buffer& b, std::string_view ok_flag);

}  // namespace detail::module_impl

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/module/graph-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief emit_module(): renders a module_graph into one HIP translation unit (rocmtpl/module.hpp):
/// schedule the nodes (with epilogue fusion), define the entry point, place the intermediates in the
/// workspace (plan_workspace()), then write the kernels, the entry point and the runner.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/kernel/rocm_cpp_scheduling.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/module/graph.hpp>
#include <rocmtpl/module/runner.hpp>
#include <rocmtpl/module/workspace_plan.hpp>

namespace rocmtpl {

/// @brief The signature of a module's entry point: `const T* u_<input>...`, `T* u_<output>...`,
/// `int64_t u_<size>...` (user names behind user_identifier()). emit_module() declares the entry
/// from it, and runtime::loaded_module checks a saved module's library against it.
[[nodiscard]] entry_signature module_entry_signature(const std::vector<buffer>& inputs,
                                                     const std::vector<buffer>& outputs,
                                                     const std::vector<std::string>& size_args);

namespace detail::module_impl {

void add_symbols(std::vector<std::string>& symbols, const buffer& b);
void check_module(const module_graph& graph, const module_options& options);
std::vector<std::size_t> node_readers(const module_graph& graph, const std::string& name);
bool is_epilogue_node(const scheduler_node& n);
std::vector<std::size_t> epilogue_run(const module_graph& graph, std::size_t i);
std::string node_list(const module_graph& graph, const std::vector<std::size_t>& run);
void schedule_nodes(const module_graph& graph, const module_options& options, rocm_cpp_scheduling& sched,
                    module_source& m);
void define_entry(rocm_template_kernel& entry, const module_source& m);
std::vector<buffer> collect_intermediates(const module_graph& graph, module_source& m);
void define_signature(const module_graph& graph, const rocm_template_kernel& entry,
                      const std::vector<buffer>& intermediates, module_source& m);
std::vector<workspace_buffer> intermediate_lifetimes(const module_source& m, const std::vector<buffer>& intermediates);
void add_unique(std::vector<std::string>& blocks, const std::string& block);
void write_kernels(indented_buffer& out, const module_source& m, std::size_t node_count);
void write_module_helpers(indented_buffer& out, const module_source& m);
void write_workspace_layout(indented_buffer& out, const module_source& m, const std::vector<buffer>& intermediates);
void write_entry_point(indented_buffer& out, const module_source& m, const rocm_cpp_scheduling& sched,
                       const rocm_template_kernel& entry, const std::vector<buffer>& intermediates);

}  // namespace detail::module_impl

/// @brief Emits a module: one translation unit with the deduplicated kernels (static, each in its
/// own namespace), one exported entry point that runs the nodes in order, and optionally the
/// standalone runner.
///
/// Scheduling: each node is rendered through rocm_cpp_scheduling::codegen_template(); with
/// module_options::fuse_epilogues, an elementwise node right after a template node that only it
/// reads is offered to that template as an epilogue first. Workspace: the intermediate buffers
/// that the calls use, each in a slot (slots are reused once the buffer in them is dead), then the
/// scratch region that each call's own workspace is allocated from (the largest of them). The
/// entry point computes these sizes with checked arithmetic: sizes whose bytes, offsets or total do
/// not fit make both the workspace query and the launch return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT.
/// @param graph the nodes, inputs and outputs
/// @param options fusion, runner and alignment settings
/// @return the source and the entry point's description
/// @throws invalid_argument_error for a graph without outputs, a size symbol named like a buffer or
/// reserved, a bad alignment, or what the templates throw while rendering
[[nodiscard]] module_source emit_module(const module_graph& graph, const module_options& options = {});

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/module/emitter-inl.hpp>
#endif

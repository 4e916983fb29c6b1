// SPDX-License-Identifier: MIT
#pragma once

// The implementation of kernel/rocm_cpp_scheduling.hpp: included at its end (header-only) or compiled once by
// src/kernel.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>

namespace rocmtpl {

ROCMTPL_INLINE std::string kernel_definition::metadata_comment() const {
  std::vector<std::string> nodes;
  std::vector<std::string> ops;
  for (const auto& o : origins) {
    nodes.push_back(o.node);
    if (std::find(ops.begin(), ops.end(), o.op) == ops.end()) ops.push_back(o.op);
  }
  std::sort(ops.begin(), ops.end());
  std::string out = "// kernel " + name + ", source hash " + source_hash + "\n";
  out += "// Topologically Sorted Source Nodes: [" + detail::join(nodes) + "], Original ops: [" + detail::join(ops) +
         "]\n";
  out += "// Source node to op mapping:\n";
  for (const auto& o : origins) out += "//   " + o.node + " => " + o.op + "\n";
  if (!fused_epilogue.empty()) out += "// Fused epilogue: " + fused_epilogue + "\n";
  return out;
}

ROCMTPL_INLINE std::string scheduler_node::graph_name(const std::string& kernel_buffer) const {
  if (kernel_buffer == node.name()) return name;
  if (auto it = input_names.find(kernel_buffer); it != input_names.end()) return it->second;
  return kernel_buffer;
}

ROCMTPL_INLINE fusion_error::fusion_error(std::string template_name, std::string node,
                                          std::vector<std::string> epilogues, std::string reason)
    : invalid_argument_error(message(template_name, node, epilogues, reason)),
      template_name_(std::move(template_name)),
      node_(std::move(node)),
      epilogues_(std::move(epilogues)),
      reason_(std::move(reason)) {}

ROCMTPL_INLINE std::string fusion_error::message(const std::string& t, const std::string& node,
                                                 const std::vector<std::string>& epilogues, const std::string& reason) {
  return "rocmtpl: rocm_cpp_scheduling: template '" + t + "' of node '" + node + "' does not fuse epilogue nodes [" +
         detail::join(epilogues) + "]: " + reason;
}

ROCMTPL_INLINE std::string fusion_record::to_string() const {
  return detail::join(epilogues) + (fused ? " fused into " : " not fused into ") + node + " (" + template_name +
         "): " + (fused ? chain : reason);
}

ROCMTPL_INLINE std::vector<sym_expr> rocm_cpp_scheduling::group_fn(const std::vector<std::vector<sym_expr>>& sizes) {
  std::vector<sym_expr> out;
  out.reserve(sizes.size());
  for (const auto& list : sizes) out.push_back(product(list));
  return out;
}

ROCMTPL_INLINE std::string rocm_cpp_scheduling::fused_kernel_name(const std::vector<kernel_origin>& origins) {
  std::vector<std::string> ops;
  for (const auto& o : origins) {
    std::string op;
    for (char c : o.op) op += ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) ? c : '_';
    if (!op.empty() && std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
  if (ops.empty()) return {};
  std::sort(ops.begin(), ops.end());
  std::string out = "fused";
  for (const auto& op : ops) out += "_" + op;
  return out;
}

ROCMTPL_INLINE std::string rocm_cpp_scheduling::dedup_key(rendered_source parts) {
  parts.rename(kernel_name_placeholder);
  parts.linkage = entry_linkage::exported;
  return parts.str();
}

ROCMTPL_INLINE std::string rocm_cpp_scheduling::define_kernel(const rendered_source& parts,
                                                              const std::vector<kernel_origin>& node_schedule) {
  std::string key = dedup_key(parts);
  if (auto it = src_to_kernel_.find(key); it != src_to_kernel_.end()) {
    auto& def = kernels_[it->second];
    def.origins.insert(def.origins.end(), node_schedule.begin(), node_schedule.end());
    return def.name;
  }
  const std::string fused = options_.descriptive_names ? fused_kernel_name(node_schedule) : std::string();
  const std::string name = "rocm_" + (fused.empty() ? std::string() : fused + "_") + next_kernel_suffix();
  kernel_definition def{name, {}, {}, node_schedule, parts};
  def.parts.rename(name);  // the entry and its launch description's symbols; the text is untouched
  def.parts.linkage = options_.linkage;
  def.source = def.parts.str();
  def.source_hash = detail::hash_hex(def.source);
  src_to_kernel_.emplace(std::move(key), kernels_.size());
  kernels_.push_back(std::move(def));
  return name;
}

ROCMTPL_INLINE fusion_decision rocm_cpp_scheduling::can_fuse_epilogues(
    const scheduler_node& template_node, const std::vector<scheduler_node>& epilogue_nodes) const {
  try {
    (void)render(template_node, epilogue_nodes);
    return {true, {}};
  } catch (const fusion_error& e) {
    return {false, e.reason()};
  }
}

ROCMTPL_INLINE rocm_cpp_scheduling::template_codegen rocm_cpp_scheduling::codegen_template(
    const scheduler_node& template_node, const std::vector<scheduler_node>& epilogue_nodes) {
  if (!is_rocm_cpp_template(template_node)) {
    throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: codegen_template: node '" + template_node.name +
                                 "' of template '" + template_node.node.template_name() +
                                 "' cannot be rendered again (no make_kernel_render); schedule a choice from "
                                 "rocm_template::generate()");
  }
  fusion_record record{template_node.name, template_node.node.template_name(), {}, false, {}, {}};
  for (const auto& e : epilogue_nodes) record.epilogues.push_back(e.name);
  rendered r;
  try {
    r = render(template_node, epilogue_nodes);
  } catch (const fusion_error& e) {
    record.reason = e.reason();
    report_.push_back(std::move(record));
    throw;
  }
  std::vector<kernel_origin> origins{{template_node.name, template_node.node.template_name()}};
  for (const auto& e : epilogue_nodes) origins.push_back({e.name, e.node.template_name()});
  auto name = define_kernel(r.parts, origins);
  if (!epilogue_nodes.empty()) {
    record.fused = true;
    record.chain = r.chain;
    for (auto& def : kernels_) {
      if (def.name == name && def.fused_epilogue.empty())
        def.fused_epilogue = detail::join(record.epilogues) + ": " + r.chain;
    }
    report_.push_back(std::move(record));
  }
  call_kernel(name, *r.kernel, template_node, origins, r.epilogue_names);
  return {std::move(name), std::move(r.kernel), std::move(origins)};
}

ROCMTPL_INLINE void rocm_cpp_scheduling::call_kernel(const std::string& kernel_name, const rocm_template_kernel& kernel,
                                                     const scheduler_node& node, std::vector<kernel_origin> origins,
                                                     const std::map<std::string, std::string>& epilogue_names) {
  if (origins.empty()) origins.push_back({node.name, node.node.template_name()});
  kernel_call call;
  call.kernel_name = kernel_name;
  call.callee =
      options_.linkage == entry_linkage::internal ? kernel_namespace(kernel_name) + "::" + kernel_name : kernel_name;
  const auto graph_name = [&](const std::string& b) {
    const auto it = epilogue_names.find(b);
    return it != epilogue_names.end() ? it->second : node.graph_name(b);
  };
  for (const auto& t : kernel.args().inputs()) call.input_buffers.push_back(graph_name(t.node.name()));
  for (const auto& t : kernel.args().outputs()) call.output_buffers.push_back(graph_name(t.node.name()));
  call.size_args = kernel.args().size_symbols();
  call.runtime_args = kernel.runtime_arg_values();
  if (call.runtime_args.size() != kernel.args().runtime_args().size()) {
    throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: call_kernel: kernel " + kernel_name + " has " +
                                 std::to_string(kernel.args().runtime_args().size()) +
                                 " runtime arguments but no values for them");
  }
  call.origins = std::move(origins);
  const std::string index = std::to_string(calls_.size());
  const std::string bytes = "rocmtpl_call" + index + "_workspace";

  auto args = [&](bool query) {
    std::string s;
    auto add = [&](const std::string& a) { s += (s.empty() ? "" : ", ") + a; };
    // Graph buffers and size symbols are user names: user_identifier() in generated code.
    for (const auto& b : call.input_buffers) add(query ? "nullptr" : user_identifier(b));
    for (const auto& b : call.output_buffers) add(query ? "nullptr" : user_identifier(b));
    for (const auto& a : call.size_args) add(user_identifier(a));
    for (std::size_t i = 0; i < call.runtime_args.size(); ++i) {
      add("static_cast<" + kernel.args().runtime_args()[i].ty + ">(" + std::to_string(call.runtime_args[i]) + ")");
    }
    add(query ? "&" + bytes : "nullptr");
    add(query ? "nullptr" : "rocmtpl_call_workspace");
    add("stream");
    return s;
  };
  std::string what;
  for (const auto& o : call.origins) what += (what.empty() ? "" : ", ") + o.node + " = " + o.op;

  const bool none = write_call_workspace(call, node, what, bytes, call.callee + "(" + args(true) + ")");
  write_call(call, what, bytes, none, call.callee + "(" + args(false) + ")");
  calls_.push_back(std::move(call));
}

ROCMTPL_INLINE std::optional<std::string> rocm_cpp_scheduling::kernel_for_source(const rendered_source& parts) const {
  if (auto it = src_to_kernel_.find(dedup_key(parts)); it != src_to_kernel_.end()) return kernels_[it->second].name;
  return std::nullopt;
}

ROCMTPL_INLINE bool rocm_cpp_scheduling::carry_operations(const std::vector<scheduler_node>& epilogue_nodes) {
  return !epilogue_nodes.empty() && std::all_of(epilogue_nodes.begin(), epilogue_nodes.end(),
                                                [](const scheduler_node& e) { return e.node.pointwise().has_value(); });
}

// The cast a fused chain makes where an unfused node stores `t` (none for f32: no rounding).
ROCMTPL_INLINE void rocm_cpp_scheduling::round_as_stored(epilogue_chain& chain, dtype t) {
  if (t != dtype::f32) chain.ops.push_back(epilogue_op::cast(t));
}

// The fused epilogue's index of each operand of epilogue node `e` (its inputs 1..): a new input
// `rocmtpl_epilogue_in<i>` (`names` maps it to the graph) unless the graph buffer is one already.
// Throws invalid_argument_error for an operand that fusion removes (a fused node's output).
ROCMTPL_INLINE std::vector<std::size_t> rocm_cpp_scheduling::map_operands(const scheduler_node& e,
                                                                          const std::vector<std::string>& fused,
                                                                          fused_epilogue& fe,
                                                                          std::map<std::string, std::string>& names) {
  std::vector<std::size_t> index;
  const auto& ins = e.node.inputs();
  for (std::size_t k = 1; k < ins.size(); ++k) {
    const std::string g = e.graph_name(ins[k].name());
    if (std::find(fused.begin(), fused.end(), g) != fused.end()) {
      throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: epilogue node '" + e.name + "' reads '" + g +
                                   "' as an operand, which fusion removes");
    }
    std::size_t i = 0;
    while (i < fe.inputs.size() &&
           !(names[fe.inputs[i].name()] == g && fe.inputs[i].get_layout() == ins[k].get_layout())) {
      ++i;
    }
    if (i == fe.inputs.size()) {
      const std::string kname = detail::indexed_name("rocmtpl_epilogue_in", i);
      names[kname] = g;
      fe.inputs.emplace_back(kname, ins[k].get_layout());
    }
    index.push_back(i);
  }
  return index;
}

// Appends epilogue node `e`'s chain to `fe`, its operands renumbered by `index` (map_operands()).
ROCMTPL_INLINE void rocm_cpp_scheduling::append_chain(const scheduler_node& e, const std::vector<std::size_t>& index,
                                                      fused_epilogue& fe) {
  for (auto op : e.node.pointwise()->ops) {
    if (op.has_input()) {
      if (op.input >= index.size()) {
        throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: epilogue node '" + e.name +
                                     "' has a chain that reads operand " + detail::indexed_name("", op.input) +
                                     " but only " + std::to_string(index.size()) + " operand inputs");
      }
      op.input = index[op.input];
    }
    fe.chain.ops.push_back(op);
  }
}

// The epilogue a template fuses for pointwise epilogue nodes: each node's chain in order, with a
// cast where an unfused node would store, reading each operand under a reserved kernel name
// (`names` maps them back to the graph). Throws invalid_argument_error for nodes that do not form
// a chain on the template's output.
ROCMTPL_INLINE fused_epilogue rocm_cpp_scheduling::make_fused_epilogue(
    const scheduler_node& template_node, const std::vector<scheduler_node>& epilogue_nodes,
    std::map<std::string, std::string>& names) {
  for (const auto& b : template_node.node.inputs()) {
    if (b.name().starts_with("rocmtpl_epilogue_")) {
      throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: template input '" + b.name() +
                                   "' has a name reserved for fused epilogues; rename it");
    }
  }
  fused_epilogue fe;
  std::vector<std::string> fused{template_node.name};
  round_as_stored(fe.chain, template_node.node.get_layout().type());
  for (std::size_t j = 0; j < epilogue_nodes.size(); ++j) {
    const auto& e = epilogue_nodes[j];
    const auto& ins = e.node.inputs();
    const std::string value = ins.empty() ? std::string() : e.graph_name(ins[0].name());
    if (value != fused.back()) {
      throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: epilogue node '" + e.name +
                                   "' applies its chain to '" + value + "', not to '" + fused.back() +
                                   "'; epilogue nodes must form a chain");
    }
    append_chain(e, map_operands(e, fused, fe, names), fe);
    if (j + 1 < epilogue_nodes.size()) round_as_stored(fe.chain, e.node.get_layout().type());
    fused.push_back(e.name);
    fe.nodes.push_back(e.name);
  }
  fe.output = buffer("rocmtpl_epilogue_out", epilogue_nodes.back().node.get_layout());
  names["rocmtpl_epilogue_out"] = epilogue_nodes.back().name;
  return fe;
}

// Renders with the epilogues; a refusal (any invalid_argument_error while epilogues are given)
// becomes a fusion_error carrying the template's message. Pointwise epilogue nodes (that carry
// their chain) go to the template's fused render; others as buffers, as the template sees fit.
ROCMTPL_INLINE rocm_cpp_scheduling::rendered rocm_cpp_scheduling::render(
    const scheduler_node& template_node, const std::vector<scheduler_node>& epilogue_nodes) {
  std::vector<buffer> epilogue_buffers;
  epilogue_buffers.reserve(epilogue_nodes.size());
  for (const auto& e : epilogue_nodes) epilogue_buffers.emplace_back(e.name, e.node.get_layout());
  try {
    if (carry_operations(epilogue_nodes) && template_node.node.has_fused_render()) {
      std::map<std::string, std::string> names;
      const fused_epilogue fe = make_fused_epilogue(template_node, epilogue_nodes, names);
      auto [kernel, render_fn] = template_node.node.make_fused_render(fe);
      if (!kernel || !render_fn) {
        throw template_error("rocmtpl: rocm_cpp_scheduling: the fused render of node '" + template_node.name +
                                 "' returned no kernel or no render function",
                             template_node.name);
      }
      auto parts = render_fn();
      return {std::move(kernel), std::move(parts), fe.chain.to_string(), std::move(names)};
    }
    if (carry_operations(epilogue_nodes)) {
      // A template that only sees the epilogues' buffers would write them without their chains.
      throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: template '" + template_node.node.template_name() +
                                   "' of node '" + template_node.name +
                                   "' does not fuse epilogue nodes that carry pointwise chains: it does not declare "
                                   "kernel_capabilities::epilogue");
    }
    auto [kernel, render_fn] = template_node.node.make_kernel_render(epilogue_buffers);
    if (!kernel || !render_fn) {
      throw template_error("rocmtpl: rocm_cpp_scheduling: make_kernel_render of node '" + template_node.name +
                               "' returned no kernel or no render function; return both from the template's "
                               "make_kernel_render",
                           template_node.name);
    }
    auto parts = render_fn();
    return {std::move(kernel), std::move(parts), {}, {}};
  } catch (const fusion_error&) {
    throw;
  } catch (const invalid_argument_error& e) {
    if (epilogue_nodes.empty()) throw;
    std::vector<std::string> names;
    for (const auto& n : epilogue_nodes) names.push_back(n.name);
    throw fusion_error(template_node.node.template_name(), template_node.name, std::move(names), e.what());
  }
}

// Into query_code(): the call's workspace, `bytes`, computed from the size symbols where the
// template describes it, else asked of the kernel (`query_call`, its workspace query). True when
// the call needs no workspace at any size.
ROCMTPL_INLINE bool rocm_cpp_scheduling::write_call_workspace(const kernel_call& call, const scheduler_node& node,
                                                              const std::string& what, const std::string& bytes,
                                                              const std::string& query_call) {
  const auto& known = node.node.workspace_bytes();
  if (known) {
    check_workspace_symbols(call.kernel_name, node, *known, call.size_args);
    write_known_workspace(call.kernel_name, what, bytes, *known);
    return known->constant() == std::optional<std::int64_t>(0);
  }
  query_.writeline("// " + call.kernel_name + " (" + what + "): workspace query");
  query_.writeline("size_t " + bytes + " = 0;");
  query_.writeline("if (const int rocmtpl_status = " + query_call +
                   "; rocmtpl_status != ROCMTPL_STATUS_OK) return rocmtpl_status;");
  query_.writeline("rocmtpl_scratch_bytes = rocmtpl_module_max(rocmtpl_scratch_bytes, " + bytes + ");");
  return false;
}

// Into wrapper_code(): the call (`launch_call`) with its workspace allocated from the scratch
// region around it (none when `no_workspace`), the status check and the release.
ROCMTPL_INLINE void rocm_cpp_scheduling::write_call(const kernel_call& call, const std::string& what,
                                                    const std::string& bytes, bool no_workspace,
                                                    const std::string& launch_call) {
  std::string inputs;
  for (const auto& b : call.input_buffers) inputs += (inputs.empty() ? "" : ", ") + b;
  wrapper_.writeline("// " + what + " (" + inputs + "): " + call.kernel_name);
  wrapper_.writeline("{");
  {
    auto scope = wrapper_.indent();
    if (no_workspace) {
      wrapper_.writeline("// no workspace (known at code generation)");
      wrapper_.writeline("uint8_t* rocmtpl_call_workspace = nullptr;");
    } else {
      wrapper_.writeline("// allocate the call's workspace from the scratch region");
      wrapper_.writeline("uint8_t* rocmtpl_call_workspace = " + bytes +
                         " > 0 ? workspace + rocmtpl_scratch_offset : nullptr;");
    }
    wrapper_.writeline("const int rocmtpl_status = " + launch_call + ";");
    wrapper_.writeline("if (rocmtpl_status != ROCMTPL_STATUS_OK) return rocmtpl_status;");
    wrapper_.writeline("// release: the next call reuses the scratch region (same stream, so in order)");
  }
  wrapper_.writeline("}");
}

// A workspace expression may only use the kernel's size arguments: they are what the generated
// code has in scope (as user identifiers) where it computes the workspace.
ROCMTPL_INLINE void rocm_cpp_scheduling::check_workspace_symbols(const std::string& kernel_name,
                                                                 const scheduler_node& node, const sym_expr& bytes,
                                                                 const std::vector<std::string>& size_args) {
  for (const auto& s : bytes.free_symbols()) {
    if (std::find(size_args.begin(), size_args.end(), s) == size_args.end()) {
      throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: call_kernel: the workspace of kernel " + kernel_name +
                                   " (node '" + node.name + "', template '" + node.node.template_name() + "'), " +
                                   bytes.to_string() + " bytes, uses '" + s +
                                   "', which is not one of its size arguments [" + detail::join(size_args) +
                                   "]; describe the workspace in the kernel's size symbols");
    }
  }
}

// The query code of a workspace known at code generation: a constant, or the expression computed
// with checked arithmetic (a size that overflows or a negative result refuses the sizes).
ROCMTPL_INLINE void rocm_cpp_scheduling::write_known_workspace(const std::string& kernel_name, const std::string& what,
                                                               const std::string& bytes, const sym_expr& expr) {
  query_.writeline("// " + kernel_name + " (" + what + "): workspace " + expr.to_string() +
                   " bytes, known at code generation");
  if (const auto c = expr.constant()) {
    query_.writeline("const size_t " + bytes + " = " + std::to_string(*c) + ";");
  } else {
    query_.writeline("size_t " + bytes + " = 0;");
    query_.writeline("{");
    {
      auto scope = query_.indent();
      query_.writeline("bool rocmtpl_ok = true;");
      // Appended in steps: g++ 12 at -O3 reports a false -Werror=restrict on "lit" + std::string&&.
      std::string line = "const int64_t rocmtpl_bytes = ";
      line += expr.to_cpp_checked("rocmtpl_ok");
      query_.writeline(line + ";");
      query_.writeline("if (!rocmtpl_ok || rocmtpl_bytes < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
      query_.writeline(bytes + " = static_cast<size_t>(rocmtpl_bytes);");
    }
    query_.writeline("}");
  }
  query_.writeline("rocmtpl_scratch_bytes = rocmtpl_module_max(rocmtpl_scratch_bytes, " + bytes + ");");
}

}  // namespace rocmtpl

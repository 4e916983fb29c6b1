// SPDX-License-Identifier: MIT
#pragma once

// The implementation of module/emitter.hpp: included at its end (header-only) or compiled once by src/module.cpp, after
// it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/module/runner.hpp>
#include <rocmtpl/module/workspace_plan.hpp>
#include <rocmtpl/templates/elementwise.hpp>

namespace rocmtpl {

ROCMTPL_INLINE entry_signature module_entry_signature(const std::vector<buffer>& inputs,
                                                      const std::vector<buffer>& outputs,
                                                      const std::vector<std::string>& size_args) {
  entry_signature sig;
  for (const auto& b : inputs) {
    sig.params.push_back(
        {user_identifier(b.name()), param_kind::tensor_in, "const " + std::string(storage_type(b.type())) + "*"});
  }
  for (const auto& b : outputs) {
    sig.params.push_back(
        {user_identifier(b.name()), param_kind::tensor_out, std::string(storage_type(b.type())) + "*"});
  }
  for (const auto& s : size_args) sig.params.push_back({user_identifier(s), param_kind::size, "int64_t"});
  return sig;
}

}  // namespace rocmtpl

namespace rocmtpl::detail::module_impl {

ROCMTPL_INLINE void add_symbols(std::vector<std::string>& symbols, const buffer& b) {
  for (const auto& s : b.get_layout().free_symbols()) {
    if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(s);
  }
}

ROCMTPL_INLINE void check_module(const module_graph& graph, const module_options& options) {
  const auto align = options.workspace_alignment;
  if (align == 0 || (align & (align - 1)) != 0) {
    throw invalid_argument_error("rocmtpl: emit_module: workspace_alignment " + std::to_string(align) +
                                 " is not a power of two");
  }
  if (graph.outputs().empty()) {
    throw invalid_argument_error("rocmtpl: emit_module: module '" + graph.name() +
                                 "' has no outputs; mark node outputs with add_output()");
  }
}

// Indices of the nodes that read the graph buffer `name`.
ROCMTPL_INLINE std::vector<std::size_t> node_readers(const module_graph& graph, const std::string& name) {
  std::vector<std::size_t> out;
  const auto& nodes = graph.nodes();
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    const auto& n = nodes[j];
    for (const auto& in : n.node.inputs()) {
      if (n.graph_name(in.name()) == name) {
        out.push_back(j);
        break;
      }
    }
  }
  return out;
}

// True for a node the template node before it may be offered as an epilogue: a pointwise node
// (it carries its chain) or an elementwise one.
ROCMTPL_INLINE bool is_epilogue_node(const scheduler_node& n) {
  return n.node.pointwise().has_value() || n.node.template_name() == templates::elementwise_policy::name();
}

// The nodes after node `i` to offer it as epilogues: the run of epilogue nodes that follow it, each
// the only reader of the one before it (which is no module output); pointwise nodes chain, an
// elementwise node (no chain) goes alone.
ROCMTPL_INLINE std::vector<std::size_t> epilogue_run(const module_graph& graph, std::size_t i) {
  const auto& nodes = graph.nodes();
  std::vector<std::size_t> run;
  for (std::size_t j = i + 1; j < nodes.size(); ++j) {
    const auto& prev = nodes[j - 1];
    const auto& next = nodes[j];
    if (!is_epilogue_node(next) || graph.is_output(prev.name) || node_readers(graph, prev.name) != std::vector{j})
      break;
    const bool chains = next.node.pointwise().has_value() && (run.empty() || nodes[run.back()].node.pointwise());
    if (!run.empty() && !chains) break;
    run.push_back(j);
    if (!next.node.pointwise()) break;
  }
  return run;
}

// `a (pointwise), y (pointwise)`: the nodes with their templates.
ROCMTPL_INLINE std::string node_list(const module_graph& graph, const std::vector<std::size_t>& run) {
  std::string out;
  for (auto j : run) {
    const auto& n = graph.nodes()[j];
    out += (out.empty() ? "" : ", ") + n.name + " (" + n.node.template_name() + ")";
  }
  return out;
}

// One codegen_template per node; the epilogue nodes that follow a template node (epilogue_run())
// are offered to it first. Records the kernels, calls and fusion notes (what was fused, with the
// chain, and why anything was not) in `m`.
ROCMTPL_INLINE void schedule_nodes(const module_graph& graph, const module_options& options, rocm_cpp_scheduling& sched,
                                   module_source& m) {
  const auto& nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    const auto run = options.fuse_epilogues ? epilogue_run(graph, i) : std::vector<std::size_t>{};
    if (!run.empty()) {
      std::vector<scheduler_node> epilogues;
      for (auto j : run) epilogues.push_back(nodes[j]);
      const std::string what = node_list(graph, run);
      try {
        (void)sched.codegen_template(node, epilogues);
        const auto& chain = sched.fusion_report().back().chain;
        m.notes.push_back(what + " fused into " + node.name + " (" + node.node.template_name() + ")" +
                          (chain.empty() ? std::string() : ": " + chain));
        i = run.back();
        continue;
      } catch (const fusion_error& e) {
        m.notes.push_back(what + " not fused into " + node.name + " (" + node.node.template_name() +
                          "): " + e.reason());
      }
    }
    (void)sched.codegen_template(node);
  }
  m.kernels = sched.kernels();
  m.calls = sched.calls();
}

// The entry point's kernel arguments: the module's inputs, then its outputs.
ROCMTPL_INLINE void define_entry(rocm_template_kernel& entry, const module_source& m) {
  std::vector<const buffer*> ins;
  std::vector<const buffer*> outs;
  std::vector<std::string> names;
  // User names are parameters as user_identifier(name) (hygiene: ir/identifier.hpp).
  for (const auto& b : m.inputs) {
    ins.push_back(&b);
    names.push_back(user_identifier(b.name()));
  }
  for (const auto& b : m.outputs) {
    outs.push_back(&b);
    names.push_back(user_identifier(b.name()));
  }
  (void)entry.def_kernel(ins, outs, detail::join(names));
}

// Intermediates: node outputs that are no module output and that some call still uses.
ROCMTPL_INLINE std::vector<buffer> collect_intermediates(const module_graph& graph, module_source& m) {
  std::set<std::string> used;
  for (const auto& c : m.calls) {
    used.insert(c.input_buffers.begin(), c.input_buffers.end());
    used.insert(c.output_buffers.begin(), c.output_buffers.end());
  }
  std::vector<buffer> intermediates;
  for (const auto& n : graph.nodes()) {
    if (!graph.is_output(n.name) && used.contains(n.name)) {
      intermediates.push_back(*graph.find(n.name));
      m.intermediates.push_back(n.name);
    }
  }
  return intermediates;
}

// The size parameters: those of the entry's tensors, then those of the intermediates and calls;
// sets m.size_args, m.entry and m.signature.
ROCMTPL_INLINE void define_signature(const module_graph& graph, const rocm_template_kernel& entry,
                                     const std::vector<buffer>& intermediates, module_source& m) {
  m.size_args = entry.args().size_symbols();
  std::vector<std::string> symbols = m.size_args;
  for (const auto& b : intermediates) add_symbols(symbols, b);
  for (const auto& c : m.calls) {
    for (const auto& s : c.size_args) {
      if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(s);
    }
  }
  m.size_args = symbols;
  for (const auto& s : m.size_args) {
    if (module_graph::is_reserved(s) || graph.find(s) || s == m.name || s == "main") {
      throw invalid_argument_error("rocmtpl: emit_module: size symbol '" + s +
                                   "' is reserved or has the name of a buffer or of the module; rename it");
    }
  }
  m.entry = module_entry_signature(m.inputs, m.outputs, m.size_args);
  m.signature = entry_declaration(m.name, m.entry);
}

// The intermediates' lifetimes in call indices: from the call that writes one to the last call that
// reads it. An intermediate no call writes (a template that reads its own epilogue's input) lives
// through the whole module.
ROCMTPL_INLINE std::vector<workspace_buffer> intermediate_lifetimes(const module_source& m,
                                                                    const std::vector<buffer>& intermediates) {
  auto bytes = [&](const std::string& name) {
    const auto& l = std::find_if(intermediates.begin(), intermediates.end(), [&](const buffer& b) {
                      return b.name() == name;
                    })->get_layout();
    return l.storage_size() * sym_expr(static_cast<std::int64_t>(element_size(l.type())));
  };
  std::vector<workspace_buffer> out;
  auto listed = [&](const std::string& name) {
    return std::any_of(out.begin(), out.end(), [&](const workspace_buffer& w) { return w.name == name; });
  };
  for (std::size_t c = 0; c < m.calls.size(); ++c) {
    for (const auto& name : m.calls[c].output_buffers) {
      if (std::find(m.intermediates.begin(), m.intermediates.end(), name) == m.intermediates.end() || listed(name)) {
        continue;
      }
      std::size_t last = c;
      for (std::size_t u = c + 1; u < m.calls.size(); ++u) {
        const auto& in = m.calls[u].input_buffers;
        if (std::find(in.begin(), in.end(), name) != in.end()) last = u;
      }
      out.push_back({name, c, last, bytes(name)});
    }
  }
  for (const auto& name : m.intermediates) {
    if (!listed(name)) out.push_back({name, 0, m.calls.size(), bytes(name)});
  }
  return out;
}

// Adds `block` to `blocks` unless it is there already.
ROCMTPL_INLINE void add_unique(std::vector<std::string>& blocks, const std::string& block) {
  if (std::find(blocks.begin(), blocks.end(), block) == blocks.end()) blocks.push_back(block);
}

// The banner, the include blocks of every kernel (once each, at file scope), the globals (the
// module's, then each distinct globals part of a kernel, once), then each kernel's code in its own
// namespace: kernel_text(), its device code and (static) entry between the definition of the
// device-symbol macro from its name and the macro's #undef. Built from the kernels' parts: nothing
// is searched for or replaced in generated text.
ROCMTPL_INLINE void write_kernels(indented_buffer& out, const module_source& m, std::size_t node_count) {
  out.writeline("// rocmtpl module " + m.name + ": " + std::to_string(node_count) + " nodes, " +
                std::to_string(m.kernels.size()) + " kernels, " + std::to_string(m.calls.size()) +
                " calls. Generated by rocmtpl " + version_string + "; do not edit.");
  out.writeline("// entry point: " + m.signature);
  for (const auto& n : m.notes) out.writeline("// " + n);
  std::vector<std::string> includes;
  std::vector<std::string> globals{std::string(pt_export_block) + std::string(bfloat16_alias) +
                                   std::string(kernel_status_defines) + std::string(sym_expr_cpp_helpers)};
  for (const auto& k : m.kernels) {
    for (const auto& inc : k.parts.includes) add_unique(includes, inc);
    add_unique(globals, k.parts.globals);
  }
  add_unique(includes, "#include \"" + std::string(device::portable_header_name) +
                           "\"\n#include <cstddef>\n#include <cstdint>\n");
  for (const auto& inc : includes) out.write_verbatim(inc);
  out.writeline("");
  for (const auto& g : globals) out.write_verbatim(g);
  for (const auto& def : m.kernels) {
    out.writeline("");
    out.writeline("// ------------------------------------------------------------------------------------------");
    out.write_verbatim(def.metadata_comment());
    out.writeline("namespace " + rocm_cpp_scheduling::kernel_namespace(def.name) + " {");
    out.write_verbatim(def.parts.kernel_text());
    out.writeline("}  // namespace " + rocm_cpp_scheduling::kernel_namespace(def.name));
  }
}

// The module's file-local helpers: alignment, max, a checked sum and a tensor's bytes. The checked
// ones set *ok to false instead of wrapping, so the entry point refuses sizes that overflow.
ROCMTPL_INLINE void write_module_helpers(indented_buffer& out, const module_source& m) {
  const auto align = std::to_string(m.workspace_alignment);
  const auto align_less_one = std::to_string(m.workspace_alignment - 1);
  out.writeline("");
  out.writeline("// ------------------------------------------------------------------------------------------");
  out.writeline("// module " + m.name);
  out.writeline("namespace {");
  out.writeline("inline size_t rocmtpl_module_align(size_t bytes, bool* ok) {");
  out.writeline("    if (bytes > SIZE_MAX - " + align_less_one + ") {");
  out.writeline("        *ok = false;");
  out.writeline("        return 0;");
  out.writeline("    }");
  out.writeline("    return (bytes + " + align_less_one + ") / " + align + " * " + align + ";");
  out.writeline("}");
  out.writeline("inline size_t rocmtpl_module_max(size_t a, size_t b) { return a > b ? a : b; }");
  out.writeline("inline size_t rocmtpl_module_add(size_t a, size_t b, bool* ok) {");
  out.writeline("    if (a > SIZE_MAX - b) {");
  out.writeline("        *ok = false;");
  out.writeline("        return 0;");
  out.writeline("    }");
  out.writeline("    return a + b;");
  out.writeline("}");
  out.writeline("// Bytes of a tensor's storage; 0 when it has no element.");
  out.writeline(
      "inline size_t rocmtpl_module_bytes(int64_t numel, int64_t storage_elements, size_t element_bytes, bool* ok) {");
  out.writeline("    if (numel <= 0 || storage_elements <= 0) return 0;");
  out.writeline("    if (static_cast<uint64_t>(storage_elements) > SIZE_MAX / element_bytes) {");
  out.writeline("        *ok = false;");
  out.writeline("        return 0;");
  out.writeline("    }");
  out.writeline("    return static_cast<size_t>(storage_elements) * element_bytes;");
  out.writeline("}");
  out.writeline("}  // namespace");
  out.writeline("");
}

// The workspace layout in generated code: each intermediate's bytes, each slot's offset and bytes
// (its largest buffer, aligned), then the scratch region the calls' own workspaces come from. Every
// product and sum is checked into rocmtpl_sizes_ok; sizes that overflow are refused.
ROCMTPL_INLINE void write_workspace_layout(indented_buffer& out, const module_source& m,
                                           const std::vector<buffer>& intermediates) {
  out.writeline("// Workspace: the intermediate buffers in slots (a slot is reused once its buffer is dead), then");
  out.writeline("// the scratch region each call's own workspace is allocated from.");
  out.writeline("bool " + std::string(sizes_ok_flag) + " = true;");
  for (const auto& b : intermediates) {
    out.writeline("const size_t rocmtpl_bytes_" + b.name() + " = " + bytes_expr(b, sizes_ok_flag) + ";");
  }
  const std::string ok_arg = ", &" + std::string(sizes_ok_flag) + ")";
  std::string previous = "0";
  const auto& slots = m.workspace.slots();
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const std::string id = "rocmtpl_slot" + std::to_string(s);
    std::string size;
    for (const auto& b : slots[s].buffers) {
      const std::string aligned = "rocmtpl_module_align(rocmtpl_bytes_" + b + ok_arg;
      size = size.empty() ? aligned : "rocmtpl_module_max(" + size + ", " + aligned + ")";
    }
    out.writeline("const size_t " + id + "_offset = " + previous + ";");
    out.writeline("const size_t " + id + "_bytes = " + size + ";  // " + detail::join(slots[s].buffers));
    previous = "rocmtpl_module_add(" + id + "_offset, " + id + "_bytes" + ok_arg;
  }
  out.writeline("const size_t rocmtpl_scratch_offset = " + previous + ";");
  out.writeline("if (!" + std::string(sizes_ok_flag) + ") return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  out.writeline("size_t rocmtpl_scratch_bytes = 0;");
}

// The entry point: size checks, the workspace query, argument checks, the intermediates' pointers
// into the workspace, then the calls.
ROCMTPL_INLINE void write_entry_point(indented_buffer& out, const module_source& m, const rocm_cpp_scheduling& sched,
                                      const rocm_template_kernel& entry, const std::vector<buffer>& intermediates) {
  out.writeline(m.signature + " {");
  {
    auto body = out.indent();
    for (const auto& s : m.size_args) {
      out.writeline("if (" + user_identifier(s) + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    }
    for (const auto& b : m.inputs) out.write_lines(entry.check_sizes(&b));
    for (const auto& b : m.outputs) out.write_lines(entry.check_sizes(&b));
    write_workspace_layout(out, m, intermediates);
    out.splice(sched.query_code());
    const std::string ok_arg = ", &" + std::string(sizes_ok_flag) + ")";
    out.writeline(
        "const size_t rocmtpl_total_bytes = rocmtpl_module_add(rocmtpl_scratch_offset, "
        "rocmtpl_module_align(rocmtpl_scratch_bytes" +
        ok_arg + ok_arg + ";");
    out.writeline("if (!" + std::string(sizes_ok_flag) + ") return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    out.writeline("if (workspace_size) {");
    {
      auto q = out.indent();
      out.writeline("*workspace_size = rocmtpl_total_bytes;");
      out.writeline("return ROCMTPL_STATUS_OK;");
    }
    out.writeline("}");
    out.writeline("if (rocmtpl_total_bytes > 0 && !workspace) return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;");
    for (const auto& b : m.inputs) out.write_lines(entry.check_not_null(&b));
    for (const auto& b : m.outputs) out.write_lines(entry.check_not_null(&b));
    for (const auto& b : intermediates) {
      const std::string type = std::string(storage_type(b.type()));
      out.writeline(type + "* " + user_identifier(b.name()) + " = reinterpret_cast<" + type +
                    "*>(workspace + rocmtpl_slot" + std::to_string(m.workspace.slot_of(b.name())) + "_offset);");
    }
    out.splice(sched.wrapper_code());
    out.writeline("return ROCMTPL_STATUS_OK;");
  }
  out.writeline("}");
  out.write_verbatim(packed_entry_text(m.name, m.entry));
}

}  // namespace rocmtpl::detail::module_impl

namespace rocmtpl {

ROCMTPL_INLINE module_source emit_module(const module_graph& graph, const module_options& options) {
  namespace impl = detail::module_impl;
  impl::check_module(graph, options);
  module_source m;
  m.name = graph.name();
  m.workspace_alignment = options.workspace_alignment;
  m.inputs = graph.inputs();
  for (const auto& o : graph.outputs()) m.outputs.push_back(*graph.find(o));

  rocm_cpp_scheduling sched({entry_linkage::internal, true});
  impl::schedule_nodes(graph, options, sched, m);
  rocm_template_kernel entry(m.name);
  impl::define_entry(entry, m);
  const std::vector<buffer> intermediates = impl::collect_intermediates(graph, m);
  impl::define_signature(graph, entry, intermediates, m);
  m.workspace = plan_workspace(impl::intermediate_lifetimes(m, intermediates));

  indented_buffer out;
  out.reserve(64 * 1024);
  impl::write_kernels(out, m, graph.nodes().size());
  impl::write_module_helpers(out, m);
  impl::write_entry_point(out, m, sched, entry, intermediates);
  if (options.standalone_runner) {
    out.writeline("");
    impl::write_runner(out, m, options);
  }
  m.source = std::move(out).str();
  return m;
}

}  // namespace rocmtpl

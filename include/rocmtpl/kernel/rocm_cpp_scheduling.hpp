// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief rocm_cpp_scheduling: turns chosen template buffers into named, deduplicated kernels and
/// the host code that calls them (the reference's ROCmCPPScheduling plus
/// ROCmTemplateKernel.call_kernel). An epilogue the template before it does not fuse becomes a
/// kernel of its own (templates/elementwise.hpp).
///
/// What it does like the reference (reference/inductor-behaviour.md §1.4, §1.9, §1.10):
/// - define_kernel() deduplicates by the source with the `KERNEL_NAME` placeholder as the entry's
///   name, names a new kernel `rocm_<fused origins>_<n>` with `n` from a per-scheduler counter (so
///   the names depend only on the order of definitions and are stable across runs), gives the
///   entry that name and keeps a metadata comment with the origins;
/// - codegen_template() re-renders a chosen template with its epilogue nodes and defines it;
/// - call_kernel() emits the call with the workspace allocation and release around it.
///
/// What it does differently:
/// - kernels are rendered as parts (codegen/rendered_source.hpp): naming a kernel and choosing its
///   linkage set fields of the parts, and the placeholder exists only as the entry's name in the
///   deduplication key (define_kernel()). Nothing is replaced inside generated text (the reference
///   replaces `KERNEL_NAME` in the source): the kernel's device symbols (extern "C" __global__
///   kernels) are spelt `ROCMTPL_KERNEL_SYMBOL(<suffix>)`, a macro that the parts define from the
///   entry's name around the kernel's code (rendered_source::kernel_text()), so the kernels of one
///   module never share a symbol and two identical renderings still have identical text;
/// - a refused epilogue is an exception carrying the template's reason (fusion_error), or a
///   fusion_decision from can_fuse_epilogues(), instead of an assertion; fusion_report() keeps every
///   decision (issue 12);
/// - pointwise epilogue nodes (rocm_template_buffer::pointwise(), codegen/epilogue.hpp) reach the
///   template with their operation: one fused_epilogue (their chains in order, with a cast where an
///   unfused node would store, their operands under reserved names that call_kernel maps back to
///   the graph), rendered by the template's fused render (kernel_capabilities::epilogue);
/// - with entry_linkage::internal (modules) the kernel's entry point is declared `static`, so that
///   only the module's own entry point (and its packed twin and signature) is exported;
/// - the workspace of each call is known at code generation as an expression of the size symbols
///   (rocm_template_buffer::workspace_bytes(), from the template's description), so it holds for
///   every size the module is called with; only a template that does not describe it is asked
///   through its own C ABI at run time (the reference fixes one number at code generation).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/kernel/rocm_template_buffer.hpp>

namespace rocmtpl {

/// @brief The placeholder kernel name that make_kernel_render() renders with; define_kernel() keys
/// its deduplication on parts whose entry has this name.
inline constexpr std::string_view kernel_name_placeholder = "KERNEL_NAME";

/// @brief One node a kernel was generated from: its graph name and its op (the template name).
struct kernel_origin {
  std::string node;  ///< graph name of the node's output, e.g. `h`
  std::string op;    ///< the op, e.g. `gemm`

  /// @brief Member-wise equality.
  friend bool operator==(const kernel_origin&, const kernel_origin&) = default;
};

/// @brief A kernel defined by rocm_cpp_scheduling::define_kernel().
struct kernel_definition {
  std::string name;                    ///< `rocm_<fused origins>_<n>`
  std::string source;                  ///< `parts.str()`: the translation unit
  std::string source_hash;             ///< xxh3-64 of `source`, 16 hex digits
  std::vector<kernel_origin> origins;  ///< every node scheduled onto this kernel, in order
  rendered_source parts{};             ///< the parts: the entry named `name`, with the scheduler's linkage
  std::string fused_epilogue{};        ///< the fused epilogue chain and its nodes; empty when none is fused

  /// @brief The metadata comment (the reference's kernel path and origins lines), C++ style:
  /// @code{.unparsed}
  /// // kernel rocm_fused_gemm_0, source hash 0123456789abcdef
  /// // Topologically Sorted Source Nodes: [h, y], Original ops: [gemm]
  /// // Source node to op mapping:
  /// //   h => gemm
  /// //   y => gemm
  /// @endcode
  [[nodiscard]] std::string metadata_comment() const {
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
};

/// @brief A chosen template as the scheduler sees it: the template buffer, the graph name of its
/// output (templates name their output `buf_out`) and, where the template's input buffers are not
/// named as in the graph, the graph name of each.
struct scheduler_node {
  std::string name;                                  ///< graph name of the output
  rocm_template_buffer node;                         ///< the chosen template
  std::map<std::string, std::string> input_names{};  ///< template input name -> graph name (identity when absent)

  /// @brief The graph name a buffer of this node's kernel stands for.
  [[nodiscard]] std::string graph_name(const std::string& kernel_buffer) const {
    if (kernel_buffer == node.name()) return name;
    if (auto it = input_names.find(kernel_buffer); it != input_names.end()) return it->second;
    return kernel_buffer;
  }
};

/// @brief A template refused to fuse epilogue nodes. Carries the template's reason.
class fusion_error : public invalid_argument_error {
 public:
  /// @param template_name the template that refused
  /// @param node the graph name of the template node
  /// @param epilogues the graph names of the epilogue nodes
  /// @param reason the template's own message
  fusion_error(std::string template_name, std::string node, std::vector<std::string> epilogues, std::string reason)
      : invalid_argument_error(message(template_name, node, epilogues, reason)),
        template_name_(std::move(template_name)),
        node_(std::move(node)),
        epilogues_(std::move(epilogues)),
        reason_(std::move(reason)) {}

  /// @brief The template that refused.
  [[nodiscard]] const std::string& template_name() const noexcept { return template_name_; }
  /// @brief The graph name of the template node.
  [[nodiscard]] const std::string& node() const noexcept { return node_; }
  /// @brief The graph names of the epilogue nodes.
  [[nodiscard]] const std::vector<std::string>& epilogues() const noexcept { return epilogues_; }
  /// @brief Why, in the template's words.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  static std::string message(const std::string& t, const std::string& node, const std::vector<std::string>& epilogues,
                             const std::string& reason) {
    return "rocmtpl: rocm_cpp_scheduling: template '" + t + "' of node '" + node + "' does not fuse epilogue nodes [" +
           detail::join(epilogues) + "]: " + reason;
  }

  std::string template_name_;
  std::string node_;
  std::vector<std::string> epilogues_;
  std::string reason_;
};

/// @brief Whether a template fuses a list of epilogue nodes, and why not.
struct fusion_decision {
  bool fused = false;  ///< true when the template renders with the epilogues fused
  std::string reason;  ///< the template's reason when it refuses; empty otherwise

  /// @brief `fused`.
  [[nodiscard]] explicit operator bool() const noexcept { return fused; }
};

/// @brief One fusion decision of the scheduler (fusion_report()): what was offered, whether it was
/// fused and, when not, why.
struct fusion_record {
  std::string node;                    ///< graph name of the template node
  std::string template_name;           ///< its template
  std::vector<std::string> epilogues;  ///< graph names of the epilogue nodes offered
  bool fused = false;                  ///< true when they were fused
  std::string chain;                   ///< the fused chain (epilogue_chain::to_string()) when fused
  std::string reason;                  ///< why not, when not fused

  /// @brief `a, y fused into h (gemm): cast(float16) -> gelu` or `a not fused into h (gemm): <reason>`.
  [[nodiscard]] std::string to_string() const {
    return detail::join(epilogues) + (fused ? " fused into " : " not fused into ") + node + " (" + template_name +
           "): " + (fused ? chain : reason);
  }
};

/// @brief One kernel call emitted by call_kernel(), as data (graph names; what a module plans with).
struct kernel_call {
  std::string kernel_name;                  ///< the kernel's name
  std::string callee;                       ///< the C expression to call (`rocm_x_0_ns::rocm_x_0` for internal linkage)
  std::vector<std::string> input_buffers;   ///< graph names of the tensor inputs, in parameter order
  std::vector<std::string> output_buffers;  ///< graph names of the tensor outputs, in parameter order
  std::vector<std::string> size_args;       ///< size symbols passed, in parameter order
  std::vector<runtime_arg_value> runtime_args;  ///< runtime argument values, in parameter order
  std::vector<kernel_origin> origins;           ///< the nodes this call computes
};

/// @brief Partial scheduling for ROCm C++ templates (the reference's ROCmCPPScheduling).
///
/// It defines kernels (deduplicated by source), renders template nodes with epilogues where the
/// template fuses them, and writes the host code that calls the kernels: each call's workspace into
/// query_code() (computed from the size symbols where the template describes it, else queried from
/// the kernel) and the calls into wrapper_code(). That host code expects these names in scope:
/// `stream` (the stream), `workspace` (`uint8_t*`, the caller's workspace), `rocmtpl_scratch_bytes`
/// (`size_t`, the query code raises it to the largest per-call workspace) and
/// `rocmtpl_scratch_offset` (`size_t`, where the per-call workspace starts in `workspace`);
/// module.hpp's emit_module() provides them.
/// @code{.cpp}
/// rocmtpl::rocm_cpp_scheduling sched;
/// auto call = sched.codegen_template({"h", caller.output_node()});
/// sched.kernels().front().source;   // the kernel, named call.kernel_name
/// sched.wrapper_code().str();       // the host code that calls it
/// @endcode
class rocm_cpp_scheduling {
 public:
  /// @brief Scheduler settings.
  struct options {
    /// @brief Exported entry points (one library per kernel) or static ones (a module).
    entry_linkage linkage = entry_linkage::exported;
    /// @brief Name kernels after their origins (`rocm_fused_gemm_0`); off: `rocm_0` (the reference's
    /// config.triton.descriptive_names).
    bool descriptive_names = true;
  };

  /// @brief What codegen_template() produced.
  struct template_codegen {
    std::string kernel_name;                       ///< the defined (or reused) kernel
    std::shared_ptr<rocm_template_kernel> kernel;  ///< the kernel object the template rendered into
    std::vector<kernel_origin> origins;            ///< the template node, then its fused epilogues
  };

  rocm_cpp_scheduling() = default;
  /// @param opts linkage and naming settings
  explicit rocm_cpp_scheduling(options opts) : options_(opts) {}

  /// @brief The settings.
  [[nodiscard]] const options& get_options() const noexcept { return options_; }

  /// @brief The group of a node of these sizes: the product of each list, simplified (the
  /// reference's group_fn, `(numel, rnumel)` for a template node's `(sizes, reduction sizes)`).
  [[nodiscard]] static std::vector<sym_expr> group_fn(const std::vector<std::vector<sym_expr>>& sizes) {
    std::vector<sym_expr> out;
    out.reserve(sizes.size());
    for (const auto& list : sizes) out.push_back(product(list));
    return out;
  }

  /// @brief True when the node is a ROCm C++ template this scheduler can generate code for: its
  /// buffer can be rendered again (rocm_template_buffer::has_kernel_render(); a reference choice
  /// cannot). The reference checks the node's class; codegen_template() refuses other nodes.
  [[nodiscard]] static bool is_rocm_cpp_template(const scheduler_node& node) noexcept {
    return node.node.has_kernel_render();
  }

  /// @brief The next suffix of the per-scheduler counter: "0", "1", ... (the reference's
  /// wrapper.next_kernel_suffix()).
  [[nodiscard]] std::string next_kernel_suffix() { return std::to_string(suffix_++); }

  /// @brief `fused_<ops>`: the sorted, unique op names of the origins, made identifier-safe (the
  /// reference's get_fused_kernel_name); empty when there are no origins.
  [[nodiscard]] static std::string fused_kernel_name(const std::vector<kernel_origin>& origins) {
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

  /// @brief The namespace that holds an internal kernel in a module: `<kernel name>_ns`.
  [[nodiscard]] static std::string kernel_namespace(const std::string& kernel_name) { return kernel_name + "_ns"; }

  /// @brief The deduplication key of rendered parts: their translation unit with the entry named
  /// `KERNEL_NAME` and exported, so that renderings that differ only in the entry's name or linkage
  /// share a kernel. (The one place the placeholder name matters.)
  [[nodiscard]] static std::string dedup_key(rendered_source parts) {
    parts.rename(kernel_name_placeholder);
    parts.linkage = entry_linkage::exported;
    return parts.str();
  }

  /// @brief Defines a kernel from rendered parts, or returns the name of the kernel already defined
  /// from the same parts (dedup_key()).
  ///
  /// A new kernel is named `rocm_<fused origins>_<n>`: the parts get that name
  /// (rendered_source::rename(): the entry, its device symbols and its launch description, if any)
  /// and the scheduler's linkage (entry_linkage::internal declares it `static`, for a module). A
  /// reused kernel adds `node_schedule` to its origins.
  /// @param parts the rendered parts (make_kernel_render() names the entry `KERNEL_NAME`)
  /// @param node_schedule the nodes the kernel computes (template first)
  /// @return the kernel name
  std::string define_kernel(const rendered_source& parts, const std::vector<kernel_origin>& node_schedule) {
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

  /// @brief Asks the template whether it renders with these epilogue nodes fused. Defines nothing.
  /// @return fused, or the template's reason for refusing
  /// @throws what the template throws for reasons other than the epilogues (nothing else is caught
  /// when the list is empty)
  [[nodiscard]] fusion_decision can_fuse_epilogues(const scheduler_node& template_node,
                                                   const std::vector<scheduler_node>& epilogue_nodes) const {
    try {
      (void)render(template_node, epilogue_nodes);
      return {true, {}};
    } catch (const fusion_error& e) {
      return {false, e.reason()};
    }
  }

  /// @brief Renders a chosen template with its epilogue nodes fused, defines the kernel and emits
  /// its call (the reference's codegen_template). Nothing is defined or emitted when it throws.
  /// @param template_node the template node
  /// @param epilogue_nodes nodes to fuse after it (their outputs are passed to make_kernel_render
  /// under their graph names)
  /// @return the kernel name, the rendered kernel and the origins
  /// @throws fusion_error when the template refuses the epilogue nodes (reason() says why)
  /// @throws invalid_argument_error for a node that is not a ROCm C++ template (is_rocm_cpp_template())
  template_codegen codegen_template(const scheduler_node& template_node,
                                    const std::vector<scheduler_node>& epilogue_nodes = {}) {
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

  /// @brief Emits the host code that calls a defined kernel (the reference's
  /// ROCmTemplateKernel.call_kernel): into query_code(), the call's workspace raising
  /// `rocmtpl_scratch_bytes`: the node's workspace_bytes() computed from the size symbols (checked
  /// arithmetic; sizes that overflow are refused) when the template describes it, else the kernel's
  /// workspace query (null tensors, real sizes); into wrapper_code(), the allocation of that
  /// workspace from the scratch region (none when it is 0 for every size), the call with the tensors
  /// under their graph names, the size symbols and the runtime argument values, the status check and
  /// the release.
  /// @throws invalid_argument_error when runtime argument values are missing, or the node's
  /// workspace_bytes() uses a symbol that is not among the kernel's size arguments
  /// @param kernel_name a name returned by define_kernel()
  /// @param kernel the kernel the template rendered into (its arguments)
  /// @param node the template node (graph names of its buffers)
  /// @param origins the nodes the call computes (for the comment); defaults to the template node
  /// @param epilogue_names graph names of the fused epilogue's buffers (`rocmtpl_epilogue_in<i>`,
  /// `rocmtpl_epilogue_out`), looked up before the node's own names
  void call_kernel(const std::string& kernel_name, const rocm_template_kernel& kernel, const scheduler_node& node,
                   std::vector<kernel_origin> origins = {},
                   const std::map<std::string, std::string>& epilogue_names = {}) {
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

  /// @brief Kernels defined so far, in definition order.
  [[nodiscard]] const std::vector<kernel_definition>& kernels() const noexcept { return kernels_; }
  /// @brief Every fusion decision so far, in order: what was fused, and why anything was not.
  [[nodiscard]] const std::vector<fusion_record>& fusion_report() const noexcept { return report_; }
  /// @brief Calls emitted so far, in order.
  [[nodiscard]] const std::vector<kernel_call>& calls() const noexcept { return calls_; }
  /// @brief The workspace of each call (host code): computed from the size symbols where known at code
  /// generation, else queried from the kernel.
  [[nodiscard]] const indented_buffer& query_code() const noexcept { return query_; }
  /// @brief The calls (host code, the reference's wrapper code).
  [[nodiscard]] const indented_buffer& wrapper_code() const noexcept { return wrapper_; }
  /// @brief The kernel defined from these parts (or parts with the same dedup_key()), if any.
  [[nodiscard]] std::optional<std::string> kernel_for_source(const rendered_source& parts) const {
    if (auto it = src_to_kernel_.find(dedup_key(parts)); it != src_to_kernel_.end()) return kernels_[it->second].name;
    return std::nullopt;
  }

 private:
  struct rendered {
    std::shared_ptr<rocm_template_kernel> kernel;
    rendered_source parts;
    std::string chain;                                    // the fused chain's text, when one is fused
    std::map<std::string, std::string> epilogue_names{};  // the fused epilogue's buffers -> graph names
  };

  static bool carry_operations(const std::vector<scheduler_node>& epilogue_nodes) {
    return !epilogue_nodes.empty() &&
           std::all_of(epilogue_nodes.begin(), epilogue_nodes.end(),
                       [](const scheduler_node& e) { return e.node.pointwise().has_value(); });
  }

  // The cast a fused chain makes where an unfused node stores `t` (none for f32: no rounding).
  static void round_as_stored(epilogue_chain& chain, dtype t) {
    if (t != dtype::f32) chain.ops.push_back(epilogue_op::cast(t));
  }

  // The fused epilogue's index of each operand of epilogue node `e` (its inputs 1..): a new input
  // `rocmtpl_epilogue_in<i>` (`names` maps it to the graph) unless the graph buffer is one already.
  // Throws invalid_argument_error for an operand that fusion removes (a fused node's output).
  static std::vector<std::size_t> map_operands(const scheduler_node& e, const std::vector<std::string>& fused,
                                               fused_epilogue& fe, std::map<std::string, std::string>& names) {
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
  static void append_chain(const scheduler_node& e, const std::vector<std::size_t>& index, fused_epilogue& fe) {
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
  [[nodiscard]] static fused_epilogue make_fused_epilogue(const scheduler_node& template_node,
                                                          const std::vector<scheduler_node>& epilogue_nodes,
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
  [[nodiscard]] static rendered render(const scheduler_node& template_node,
                                       const std::vector<scheduler_node>& epilogue_nodes) {
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
  bool write_call_workspace(const kernel_call& call, const scheduler_node& node, const std::string& what,
                            const std::string& bytes, const std::string& query_call) {
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
  void write_call(const kernel_call& call, const std::string& what, const std::string& bytes, bool no_workspace,
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
  static void check_workspace_symbols(const std::string& kernel_name, const scheduler_node& node, const sym_expr& bytes,
                                      const std::vector<std::string>& size_args) {
    for (const auto& s : bytes.free_symbols()) {
      if (std::find(size_args.begin(), size_args.end(), s) == size_args.end()) {
        throw invalid_argument_error("rocmtpl: rocm_cpp_scheduling: call_kernel: the workspace of kernel " +
                                     kernel_name + " (node '" + node.name + "', template '" +
                                     node.node.template_name() + "'), " + bytes.to_string() + " bytes, uses '" + s +
                                     "', which is not one of its size arguments [" + detail::join(size_args) +
                                     "]; describe the workspace in the kernel's size symbols");
      }
    }
  }

  // The query code of a workspace known at code generation: a constant, or the expression computed
  // with checked arithmetic (a size that overflows or a negative result refuses the sizes).
  void write_known_workspace(const std::string& kernel_name, const std::string& what, const std::string& bytes,
                             const sym_expr& expr) {
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

  options options_{};
  std::size_t suffix_ = 0;
  std::map<std::string, std::size_t, std::less<>> src_to_kernel_;
  std::vector<kernel_definition> kernels_;
  std::vector<kernel_call> calls_;
  std::vector<fusion_record> report_;
  indented_buffer query_;
  indented_buffer wrapper_;
};

}  // namespace rocmtpl

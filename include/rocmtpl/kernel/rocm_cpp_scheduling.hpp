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
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
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
  [[nodiscard]] std::string metadata_comment() const;
};

/// @brief A chosen template as the scheduler sees it: the template buffer, the graph name of its
/// output (templates name their output `buf_out`) and, where the template's input buffers are not
/// named as in the graph, the graph name of each.
struct scheduler_node {
  std::string name;                                  ///< graph name of the output
  rocm_template_buffer node;                         ///< the chosen template
  std::map<std::string, std::string> input_names{};  ///< template input name -> graph name (identity when absent)

  /// @brief The graph name a buffer of this node's kernel stands for.
  [[nodiscard]] std::string graph_name(const std::string& kernel_buffer) const;
};

/// @brief A template refused to fuse epilogue nodes. Carries the template's reason.
class fusion_error : public invalid_argument_error {
 public:
  /// @param template_name the template that refused
  /// @param node the graph name of the template node
  /// @param epilogues the graph names of the epilogue nodes
  /// @param reason the template's own message
  fusion_error(std::string template_name, std::string node, std::vector<std::string> epilogues, std::string reason);

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
                             const std::string& reason);

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
  [[nodiscard]] std::string to_string() const;
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
  [[nodiscard]] static std::vector<sym_expr> group_fn(const std::vector<std::vector<sym_expr>>& sizes);

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
  [[nodiscard]] static std::string fused_kernel_name(const std::vector<kernel_origin>& origins);

  /// @brief The namespace that holds an internal kernel in a module: `<kernel name>_ns`.
  [[nodiscard]] static std::string kernel_namespace(const std::string& kernel_name) { return kernel_name + "_ns"; }

  /// @brief The deduplication key of rendered parts: their translation unit with the entry named
  /// `KERNEL_NAME` and exported, so that renderings that differ only in the entry's name or linkage
  /// share a kernel. (The one place the placeholder name matters.)
  [[nodiscard]] static std::string dedup_key(rendered_source parts);

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
  std::string define_kernel(const rendered_source& parts, const std::vector<kernel_origin>& node_schedule);

  /// @brief Asks the template whether it renders with these epilogue nodes fused. Defines nothing.
  /// @return fused, or the template's reason for refusing
  /// @throws what the template throws for reasons other than the epilogues (nothing else is caught
  /// when the list is empty)
  [[nodiscard]] fusion_decision can_fuse_epilogues(const scheduler_node& template_node,
                                                   const std::vector<scheduler_node>& epilogue_nodes) const;

  /// @brief Renders a chosen template with its epilogue nodes fused, defines the kernel and emits
  /// its call (the reference's codegen_template). Nothing is defined or emitted when it throws.
  /// @param template_node the template node
  /// @param epilogue_nodes nodes to fuse after it (their outputs are passed to make_kernel_render
  /// under their graph names)
  /// @return the kernel name, the rendered kernel and the origins
  /// @throws fusion_error when the template refuses the epilogue nodes (reason() says why)
  /// @throws invalid_argument_error for a node that is not a ROCm C++ template (is_rocm_cpp_template())
  template_codegen codegen_template(const scheduler_node& template_node,
                                    const std::vector<scheduler_node>& epilogue_nodes = {});

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
                   const std::map<std::string, std::string>& epilogue_names = {});

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
  [[nodiscard]] std::optional<std::string> kernel_for_source(const rendered_source& parts) const;

 private:
  struct rendered {
    std::shared_ptr<rocm_template_kernel> kernel;
    rendered_source parts;
    std::string chain;                                    // the fused chain's text, when one is fused
    std::map<std::string, std::string> epilogue_names{};  // the fused epilogue's buffers -> graph names
  };

  static bool carry_operations(const std::vector<scheduler_node>& epilogue_nodes);
  static void round_as_stored(epilogue_chain& chain, dtype t);
  static std::vector<std::size_t> map_operands(const scheduler_node& e, const std::vector<std::string>& fused,
                                               fused_epilogue& fe, std::map<std::string, std::string>& names);
  static void append_chain(const scheduler_node& e, const std::vector<std::size_t>& index, fused_epilogue& fe);
  [[nodiscard]] static fused_epilogue make_fused_epilogue(const scheduler_node& template_node,
                                                          const std::vector<scheduler_node>& epilogue_nodes,
                                                          std::map<std::string, std::string>& names);
  [[nodiscard]] static rendered render(const scheduler_node& template_node,
                                       const std::vector<scheduler_node>& epilogue_nodes);
  bool write_call_workspace(const kernel_call& call, const scheduler_node& node, const std::string& what,
                            const std::string& bytes, const std::string& query_call);
  void write_call(const kernel_call& call, const std::string& what, const std::string& bytes, bool no_workspace,
                  const std::string& launch_call);
  static void check_workspace_symbols(const std::string& kernel_name, const scheduler_node& node, const sym_expr& bytes,
                                      const std::vector<std::string>& size_args);
  void write_known_workspace(const std::string& kernel_name, const std::string& what, const std::string& bytes,
                             const sym_expr& expr);

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

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/kernel/rocm_cpp_scheduling-inl.hpp>
#endif

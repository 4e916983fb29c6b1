// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief rocm_template_kernel (signature and size helpers for templates) and rocm_template_caller
/// (one rendered choice), as in the reference's rocm_kernel.py.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/host_types.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/kernel/rocm_template_buffer.hpp>

namespace rocmtpl {

/// @brief The kernel a template renders into: binds buffers to parameter names and builds the
/// entry point's signature and the C++ expressions for sizes, strides and offsets.
class rocm_template_kernel {
 public:
  /// @brief The fixed tail of every entry point (the C ABI in docs/ARCHITECTURE.md).
  static constexpr std::string_view extra_cpp_args = entry_signature::tail;

  /// @throws invalid_argument_error if the name is not a valid name (is_valid_name()) or starts with
  /// `u_` (user_identifier_prefix), a runtime arg is invalid, or the number of runtime values does
  /// not match the runtime arg descriptions.
  explicit rocm_template_kernel(std::string kernel_name, std::vector<arg_info> runtime_arg_info = {},
                                std::vector<runtime_arg_value> runtime_arg_values = {});

  /// @brief The entry point's name.
  [[nodiscard]] const std::string& kernel_name() const noexcept { return kernel_name_; }
  /// @brief The entry point's arguments, as bound so far (def_kernel()).
  [[nodiscard]] const kernel_args& args() const noexcept { return args_; }
  /// @brief The runtime arguments' names and types.
  [[nodiscard]] const std::vector<arg_info>& runtime_arg_info() const noexcept { return runtime_arg_info_; }
  /// @brief The runtime arguments' values for this configuration (empty when none were given).
  [[nodiscard]] const std::vector<runtime_arg_value>& runtime_arg_values() const noexcept {
    return runtime_arg_values_;
  }
  /// @brief Names the entry point's size arguments, in order, before def_kernel binds tensors (the
  /// reference's size_args(); rocm_template calls it for a policy that declares
  /// kernel_capabilities::size_args). Tensors may then only use these symbols.
  /// @throws invalid_argument_error when an argument is not a single symbol, repeats, or tensors
  /// were bound already.
  void name_size_args(const std::vector<sym_expr>& size_args);

  /// @brief Parameter name -> buffer, for every tensor bound by def_kernel.
  [[nodiscard]] const std::map<std::string, buffer>& named_nodes() const noexcept { return named_nodes_; }

  /// @brief Parameter name of an input or output buffer; nullopt for nullptr or an unbound buffer.
  [[nodiscard]] std::optional<std::string> arg_name(const buffer* node) const;

  /// @brief The checks of one tensor argument for the entry point (never throws at run time:
  /// nothing crosses the C ABI): returns ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT when its element count
  /// or storage extent overflows int64_t or, for an output, a symbolic stride of a dimension of more
  /// than one element is not positive or two indices address one element (overlap_of()'s rule, for
  /// a layout whose symbols decide); then ROCMTPL_STATUS_NULL_ARGUMENT when its pointer is null
  /// and it has elements. Sizes are computed with sym_expr::to_cpp_checked(). Empty for
  /// nullptr/unbound or a tensor that has no element.
  [[nodiscard]] std::string check_not_null(const buffer* node) const { return argument_checks(node, true); }

  /// @brief check_not_null() without the null check: the size and stride checks alone, for code
  /// that runs before the tensors are known (the workspace query passes null tensors).
  [[nodiscard]] std::string check_sizes(const buffer* node) const { return argument_checks(node, false); }

  /// @brief Binds inputs and outputs to parameter names and returns the entry point's signature:
  /// `extern "C" PT_EXPORT int NAME(const T* in..., T* out..., int64_t sym..., runtime args...,
  /// size_t* workspace_size, uint8_t* workspace, hipStream_t stream)`.
  /// @param inputs input buffers in the template's order (nullptr entries are skipped)
  /// @param outputs output buffers
  /// @param names_str comma-separated names: one per input, then one per output
  /// @param input_reorder the caller's order of the inputs, e.g. `{2, 0, 1}` for addmm's [bias, X, W]
  /// @throws invalid_argument_error if the name count differs from inputs + outputs, a name is not a
  /// valid name (is_valid_name()) or repeats, input_reorder is not a permutation of the inputs, or
  /// an output's elements overlap for its constant strides (overlap_of(): a stride 0 in a dimension
  /// that may have more than one element, rows shorter than the row stride, ...).
  std::string def_kernel(const std::vector<const buffer*>& inputs, const std::vector<const buffer*>& outputs,
                         std::string_view names_str, std::optional<std::vector<int>> input_reorder = std::nullopt);

  /// @brief The parts a template fills for this kernel, started: the context's includes and globals,
  /// the entry's name and signature (call it after def_kernel()); the template writes device_code
  /// and entry_body.
  /// @throws invalid_argument_error as kernel_args::signature()
  [[nodiscard]] rendered_source start_source(const template_context& ctx) const;

  /// @brief C++ expression of the product of sizes in dimensions [start, end] (end inclusive,
  /// defaults to start; negative indices count from the end); `default_value` for nullptr or an
  /// empty range.
  /// @throws out_of_range_error when an index is outside the buffer's rank.
  [[nodiscard]] std::string size(const buffer* node, std::int64_t start, std::optional<std::int64_t> end = std::nullopt,
                                 std::int64_t default_value = 0) const;

  /// @brief C++ expression of the stride of dimension `index` (negative counts from the end).
  /// @throws out_of_range_error when the index is outside the buffer's rank.
  [[nodiscard]] std::string stride(const buffer* node, std::int64_t index, std::int64_t default_value = 0) const;

  /// @brief C++ expression of the buffer's offset (in elements).
  [[nodiscard]] std::string offset(const buffer* node) const;

 private:
  static void check_output_strides(const buffer& out);
  static std::vector<std::string> overlap_checks(const layout& l, std::string_view ok);
  [[nodiscard]] bool is_output(const buffer& n) const;
  [[nodiscard]] std::string argument_checks(const buffer* node, bool null_check) const;
  static std::size_t normalize(const buffer* node, std::int64_t index, const char* what);
  static std::vector<std::string> split_names(std::string_view text);

  std::string kernel_name_;
  std::vector<arg_info> runtime_arg_info_;
  std::vector<runtime_arg_value> runtime_arg_values_;
  kernel_args args_;
  std::map<std::string, buffer> named_nodes_;
};

/// @brief The tag of a call whose pointers are not checked against the kernel's tensors
/// (rocm_template_caller::benchmark(backend, unchecked, ...)): the only route for untyped pointers.
struct unchecked_t {
  explicit unchecked_t() = default;
};
/// @brief The unchecked_t value: `caller.benchmark(rt, rocmtpl::unchecked, x, w, y)`.
inline constexpr unchecked_t unchecked{};

/// @brief A backend that compiles, queries and times a caller's benchmark request: what
/// rocm_template_caller's precompile(), benchmark() and update_workspace_size() take. The runtime
/// layer's is rocmtpl::runtime::caller_runtime (rocmtpl/runtime/bench/caller_runtime.hpp).
/// Requirements: (1) `precompile(rocm_benchmark_request&)`; (2) `query_workspace(rocm_benchmark_request&)`
/// returning the bytes, or nullopt when it cannot tell (no compiler); (3)
/// `benchmark(rocm_benchmark_request&, const std::vector<const void*>& inputs, void* out)` returning
/// milliseconds.
template <class B>
concept caller_backend = requires(const B& b, rocm_benchmark_request& r, const std::vector<const void*>& in,
                                  void* out) {
  b.precompile(r);
  { b.query_workspace(r) } -> std::convertible_to<std::optional<std::size_t>>;
  { b.benchmark(r, in, out) } -> std::convertible_to<double>;
};

namespace detail {
template <class T>
inline constexpr bool caller_needs_backend = false;
}  // namespace detail

/// @brief One rendered choice of a template (the reference's ROCmTemplateCaller).
///
/// The reference's protocol: precompile() builds the library, benchmark(inputs..., out) times the
/// kernel on device tensors, output_node() first learns the workspace (update_workspace_size())
/// and returns the graph node. precompile() and benchmark() take the runtime layer's backend
/// explicitly: include rocmtpl/runtime/bench/caller_runtime.hpp and link rocmtpl::runtime.
/// @code{.cpp}
/// const rocmtpl::runtime::caller_runtime rt;
/// auto caller = tpl.generate(config, {{"M", 1024}});
/// caller.precompile(rt);                            // compiles (code cache) without a GPU
/// double ms = caller.benchmark(rt, d_x, d_w, d_y);  // device pointers: inputs, then the output
/// auto node = caller.output_node(rt);               // the workspace: described, else queried
/// @endcode
class rocm_template_caller {
 public:
  /// @param name the choice name, `rocm_<template>_<n>`
  /// @param category the template name
  /// @param input_nodes the template's input buffers
  /// @param output_node the template's output buffer
  /// @param make_kernel_render re-renders the choice with the `KERNEL_NAME` placeholder
  /// @param bmreq the benchmark request
  /// @param info_kwargs the configuration's (field, value) pairs
  rocm_template_caller(std::string name, std::string category, std::vector<buffer> input_nodes, buffer output_node,
                       make_kernel_render_fn make_kernel_render, rocm_benchmark_request bmreq,
                       std::vector<std::pair<std::string, std::string>> info_kwargs);

  /// @brief Choice name, `rocm_<template>_<n>`.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// @brief Template name (the reference's category).
  [[nodiscard]] const std::string& category() const noexcept { return category_; }
  /// @brief The template's input buffers.
  [[nodiscard]] const std::vector<buffer>& input_nodes() const noexcept { return input_nodes_; }
  /// @brief The output's layout.
  [[nodiscard]] const rocmtpl::layout& get_layout() const noexcept { return output_node_.get_layout(); }
  /// @brief The benchmark request.
  [[nodiscard]] const rocm_benchmark_request& bmreq() const noexcept { return bmreq_; }
  /// @brief The benchmark request (precompile() and update_workspace_size() fill it in).
  [[nodiscard]] rocm_benchmark_request& bmreq() noexcept { return bmreq_; }
  /// @brief The complete translation unit (bmreq().source_code).
  [[nodiscard]] const std::string& source() const noexcept { return bmreq_.source_code; }
  /// @brief The closure that re-renders the choice with the `KERNEL_NAME` placeholder.
  [[nodiscard]] const make_kernel_render_fn& make_kernel_render() const noexcept { return make_kernel_render_; }

  /// @brief `rocm_template_kernels.<name>`.
  [[nodiscard]] std::string call_name() const { return "rocm_template_kernels." + name_; }

  /// @brief `<category>-<bmreq.hash_key>`: identifies source and extra arguments.
  [[nodiscard]] std::string hash_key() const { return category_ + "-" + bmreq_.hash_key(); }

  /// @brief Backend, name and the configuration's fields, in a stable order.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> info_dict() const;

  /// @brief `rocm_template_caller(source_hash=..., {backend: ROCm, name: ..., ...})`.
  [[nodiscard]] std::string to_string() const;

  /// @brief How the entry launches its kernels, when the policy describes it (kernel_capabilities::launch):
  /// the autotuner then compiles device code only and launches through the module API.
  [[nodiscard]] const std::optional<launch_description>& launch() const noexcept { return launch_; }
  /// @brief Sets the launch description (rocm_template::generate does).
  void set_launch(launch_description d) { launch_ = std::move(d); }

  /// @brief The fused render closure (kernel_capabilities::epilogue) and the pointwise chain
  /// (kernel_capabilities::pointwise) output_node() gives the node; rocm_template::generate sets them.
  void set_epilogue_support(make_fused_render_fn fused, std::optional<epilogue_chain> pointwise);

  /// @brief Compiles the choice's library into the code cache (the reference's precompile());
  /// works without a GPU (for the current device, else for gfx90a and gfx940). Sets
  /// bmreq().library_path; a second call finds it there.
  /// @param backend the runtime layer's rocmtpl::runtime::caller_runtime (or a test's own)
  /// @throws compiler_not_found_error, compile_error (runtime layer) when the library cannot be built
  template <caller_backend Backend>
  void precompile(const Backend& backend) {
    backend.precompile(bmreq_);
  }

  /// @brief Without a backend: a compile error that names the header to include.
  template <class Backend = void>
  void precompile() {
    no_backend<Backend>();
  }

  /// @brief Times the kernel on device tensors and returns milliseconds, measured with GPU events
  /// (the reference's benchmark(*args, out)): compiles first when precompile() has not, queries
  /// and allocates the workspace, then warm-up, estimate, timed repetitions with an L2 flush
  /// before each; returns the fastest repetition.
  ///
  /// The pointers are typed (`const half_t*` for an f16 input, `float*` for an f32 output): this
  /// choice's tensors are known at run time only, so their number and element types are checked
  /// here, before anything runs. Untyped pointers go through benchmark(backend, unchecked, ...).
  /// @param backend the runtime layer's rocmtpl::runtime::caller_runtime (or a test's own)
  /// @param inputs_then_out device pointers: every input in the entry point's order (input_reorder
  /// applied, each buffer once), then the output
  /// @throws invalid_argument_error naming the tensor when the number of pointers or an element
  /// type does not match; no_gpu_error (runtime layer) without a GPU; kernel_status_error when the
  /// kernel refuses the arguments
  template <caller_backend Backend, class... Pointers>
  requires(sizeof...(Pointers) >= 1 && (std::is_pointer_v<Pointers> && ...))
      [[nodiscard]] double benchmark(const Backend& backend, Pointers... inputs_then_out) {
    static_assert((dtype_of_host_v<std::remove_cv_t<std::remove_pointer_t<Pointers>>>.has_value() && ...),
                  "rocmtpl: rocm_template_caller: benchmark takes pointers to the tensors' element types (const "
                  "half_t*, float*, ...); pass untyped pointers as benchmark(backend, rocmtpl::unchecked, ...)");
    check_pointer_types({*dtype_of_host_v<std::remove_cv_t<std::remove_pointer_t<Pointers>>>...});
    return benchmark(backend, unchecked, inputs_then_out...);
  }

  /// @brief benchmark() with untyped device pointers: their number is checked, their types are not.
  /// @param inputs_then_out device pointers: the inputs in the entry point's order, then the output
  template <caller_backend Backend, class... Pointers>
  requires(sizeof...(Pointers) >= 1 && (std::is_pointer_v<Pointers> && ...))
      [[nodiscard]] double benchmark(const Backend& backend, unchecked_t, Pointers... inputs_then_out) {
    using out_type = std::remove_pointer_t<std::tuple_element_t<sizeof...(Pointers) - 1, std::tuple<Pointers...>>>;
    static_assert(!std::is_const_v<out_type>,
                  "rocmtpl: rocm_template_caller: benchmark's last pointer is the output; pass it as a pointer to "
                  "non-const");
    if constexpr (std::is_const_v<out_type>) {
      return 0.0;
    } else {
      const std::array<const void*, sizeof...(Pointers)> all{static_cast<const void*>(inputs_then_out)...};
      auto* out = static_cast<void*>(std::get<sizeof...(Pointers) - 1>(std::tuple<Pointers...>(inputs_then_out...)));
      return benchmark(backend, unchecked, std::vector<const void*>(all.begin(), all.end() - 1), out);
    }
  }

  /// @brief benchmark() with untyped pointers as a list (for callers that learn them at run time).
  template <caller_backend Backend>
  [[nodiscard]] double benchmark(const Backend& backend, unchecked_t, const std::vector<const void*>& inputs,
                                 void* out) {
    check_pointer_count(inputs.size() + 1);
    return backend.benchmark(bmreq_, inputs, out);
  }

  /// @brief Without a backend: a compile error that names the header to include.
  template <class First = void, class... Rest>
  requires(!caller_backend<First>) [[nodiscard]] double benchmark(First, Rest...) {
    no_backend<First>();
    return 0.0;
  }

  /// @brief Learns the workspace size once (the reference's update_workspace_size()) from the
  /// template's description (kernel_capabilities::workspace) at the size hints, without compiling;
  /// without a description it stays unknown (0, and rocm_cpp_scheduling asks the kernel at run time).
  /// @throws template_error when the described workspace is negative at the hints;
  /// evaluation_error when a size symbol has no hint
  void update_workspace_size();

  /// @brief update_workspace_size(), and without a description the backend's query of the compiled
  /// library (nothing when it cannot tell, e.g. no compiler is installed).
  /// @throws what update_workspace_size() throws; from the runtime layer's query: compile_error when
  /// the source does not build, kernel_status_error when the kernel refuses the hints
  template <caller_backend Backend>
  void update_workspace_size(const Backend& backend) {
    update_workspace_size();
    if (!bmreq_.workspace_size && !bmreq_.workspace_bytes) bmreq_.workspace_size = backend.query_workspace(bmreq_);
  }

  /// @brief The graph node for this choice, after update_workspace_size(): get_workspace_size()
  /// is the size at the hints; workspace_bytes() is the template's expression, or the queried
  /// size when the entry point has no size argument (then it holds for every call), else nullopt.
  [[nodiscard]] rocm_template_buffer output_node();

  /// @brief output_node() after update_workspace_size(backend).
  template <caller_backend Backend>
  [[nodiscard]] rocm_template_buffer output_node(const Backend& backend) {
    update_workspace_size(backend);
    return make_output_node();
  }

 private:
  // The one diagnostic of precompile() and benchmark() called without a backend.
  template <class T>
  static void no_backend() {
    static_assert(detail::caller_needs_backend<T>,
                  "rocmtpl: rocm_template_caller: precompile() and benchmark() take the runtime layer's backend; "
                  "include <rocmtpl/runtime/bench/caller_runtime.hpp>, link rocmtpl::runtime and pass "
                  "rocmtpl::runtime::caller_runtime{}");
  }

  [[nodiscard]] std::optional<sym_expr> workspace_expression() const;
  [[nodiscard]] rocm_template_buffer make_output_node() const;
  // The tensors' names in the entry point's order, for messages: "(X, W, Y)".
  [[nodiscard]] std::string tensor_list() const;
  // benchmark(): as many pointers as the entry point has tensors; each of the tensor's dtype.
  void check_pointer_count(std::size_t given) const;
  void check_pointer_types(const std::vector<dtype>& given) const;

  std::string name_;
  std::string category_;
  std::vector<buffer> input_nodes_;
  buffer output_node_;
  make_kernel_render_fn make_kernel_render_;
  rocm_benchmark_request bmreq_;
  std::vector<std::pair<std::string, std::string>> info_kwargs_;
  std::optional<launch_description> launch_;
  make_fused_render_fn make_fused_render_;
  std::optional<epilogue_chain> pointwise_;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/kernel/rocm_kernel-inl.hpp>
#endif

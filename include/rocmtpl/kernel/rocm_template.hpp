// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief rocm_template: renders a kernel_template policy into choices (the reference's ROCmTemplate).
///
/// Users who want the whole pure layer include rocmtpl/rocm_template.hpp (the umbrella).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/kernel/rocm_template_buffer.hpp>

namespace rocmtpl {

namespace detail {
std::atomic<std::uint64_t>& choice_counter() noexcept;
}  // namespace detail

/// @brief A kernel template bound to a problem: a policy, its input buffers, the output layout and
/// the input order. generate() renders one configuration into a rocm_template_caller.
/// @tparam Policy a type modelling kernel_template; a policy that misses a requirement is rejected
/// with a message naming it.
/// @code{.cpp}
/// rocmtpl::rocm_template<rocmtpl::templates::gemm_policy> t(policy, {a, b}, c_layout);
/// auto caller = t.generate(t.policy().configs().front(), {{"M", 1024}});
/// caller.source();  // a complete HIP translation unit
/// @endcode
template <class Policy>
requires kernel_template<Policy>
class rocm_template {
 public:
  using policy_type = Policy;                        ///< the kernel_template policy
  using config_type = typename Policy::config_type;  ///< one configuration of the policy

  /// @param policy the policy
  /// @param input_nodes the input buffers, in the template's order
  /// @param output_layout the output's layout (the output buffer is `buf_out`)
  /// @param input_reorder the entry point's order of the inputs; nullopt: as given
  /// @throws invalid_argument_error if input_reorder is not a permutation of the inputs; config_error
  /// (naming the output, its sizes and strides) when two indices of the output address one element
  /// for its constant strides (overlap_of(); inputs may broadcast and overlap, an output whose
  /// symbols decide is checked by the entry point at run time).
  rocm_template(Policy policy, std::vector<buffer> input_nodes, layout output_layout,
                std::optional<std::vector<int>> input_reorder = std::nullopt)
      : policy_(std::move(policy)),
        input_nodes_(std::move(input_nodes)),
        output_node_("buf_out", std::move(output_layout)),
        input_reorder_(std::move(input_reorder)) {
    if (auto o = overlap_of(output_node_.get_layout()); o.kind == overlap_kind::overlapping) {
      throw config_error(std::string(name()),
                         "output '" + output_node_.name() + "' " + output_node_.get_layout().to_string(), o.reason);
    }
    if (input_reorder_) {
      std::vector<int> sorted = *input_reorder_;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int> expected(input_nodes_.size());
      std::iota(expected.begin(), expected.end(), 0);
      if (sorted != expected) {
        std::vector<std::string> text;
        for (auto i : *input_reorder_) text.push_back(std::to_string(i));
        throw invalid_argument_error("rocmtpl: rocm_template: input_reorder [" + detail::join(text) +
                                     "] is not a permutation of the " + std::to_string(input_nodes_.size()) +
                                     " inputs");
      }
    }
    // Built once: every generate() and every make_kernel_render closure shares it.
    context_ = std::make_shared<const template_context>(input_nodes_, output_node_, input_reorder_, header().str(),
                                                        globals().str());
  }

  /// @brief The template name, from the policy.
  [[nodiscard]] static constexpr std::string_view name() { return Policy::name(); }
  /// @brief The policy.
  [[nodiscard]] const Policy& policy() const noexcept { return policy_; }
  /// @brief The input buffers, in the template's order.
  [[nodiscard]] const std::vector<buffer>& input_nodes() const noexcept { return input_nodes_; }
  /// @brief The output buffer (`buf_out`).
  [[nodiscard]] const buffer& output_node() const noexcept { return output_node_; }
  /// @brief The entry point's order of the inputs; nullopt: as given.
  [[nodiscard]] const std::optional<std::vector<int>>& input_reorder() const noexcept { return input_reorder_; }

  /// @brief The includes every generated source starts with: the HIP portability header (HIP on
  /// AMD, CUDA on NVIDIA) and the fixed-width integer types.
  [[nodiscard]] indented_buffer header() const {
    indented_buffer b;
    b.writeline("#include \"" + std::string(device::portable_header_name) + "\"");
    b.writeline("#include <cstddef>");
    b.writeline("#include <cstdint>");
    return b;
  }

  /// @brief PT_EXPORT (only the entry point and its packed and signature twins are visible;
  /// libraries build with -fvisibility=hidden), the reference's `bfloat16` alias, the status codes
  /// and the floor-division helpers.
  [[nodiscard]] indented_buffer globals() const {
    indented_buffer b;
    b.write_verbatim(pt_export_block);
    b.write_verbatim(bfloat16_alias);
    b.splice(kernel_status_defines);
    b.splice(sym_expr_cpp_helpers);
    return b;
  }

  /// @brief The size symbols of the inputs and the output (their sizes, strides and offsets) and
  /// of the policy's size arguments (kernel_capabilities::size_args), sorted: the symbols size
  /// hints may name.
  [[nodiscard]] std::vector<std::string> size_symbols() const {
    std::vector<std::string> out = output_node_.get_layout().free_symbols();
    for (const auto& b : input_nodes_) {
      for (auto& s : b.get_layout().free_symbols()) out.push_back(std::move(s));
    }
    if constexpr (detail::has_size_args<Policy>) {
      for (const auto& e : policy_.size_args(*context_)) {
        for (auto& s : e.free_symbols()) out.push_back(std::move(s));
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  /// @brief Checks that every hint names one of size_symbols().
  /// @throws invalid_argument_error naming the first unknown symbol and the template's symbols.
  void check_hints(const size_hints& hints) const {
    if (hints.empty()) return;
    const auto symbols = size_symbols();
    for (const auto& [symbol, value] : hints) {
      (void)value;
      if (std::binary_search(symbols.begin(), symbols.end(), symbol)) continue;
      throw invalid_argument_error(
          "rocmtpl: rocm_template: template '" + std::string(name()) + "' has no size symbol '" + symbol +
          "' (a size hint names it); its symbols: " + (symbols.empty() ? std::string("none") : detail::join(symbols)));
    }
  }

  /// @brief The context a policy renders with.
  [[nodiscard]] const template_context& context() const noexcept { return *context_; }

  /// @brief Renders one configuration into `kernel`, as parts.
  [[nodiscard]] rendered_source render(rocm_template_kernel& kernel, const config_type& config) const {
    return policy_.render(kernel, *context_, config);
  }

  /// @brief Runtime argument descriptions (empty unless the policy declares some).
  [[nodiscard]] std::vector<arg_info> get_runtime_arg_info() const {
    if constexpr (detail::has_runtime_args<Policy>) {
      return policy_.runtime_arg_info();
    } else {
      return {};
    }
  }

  /// @brief Runtime argument values for a configuration (empty unless the policy declares some).
  [[nodiscard]] std::vector<runtime_arg_value> get_runtime_arg_values(const config_type& config) const {
    if constexpr (detail::has_runtime_args<Policy>) {
      return policy_.runtime_arg_values(config);
    } else {
      (void)config;
      return {};
    }
  }

  /// @brief Renders a configuration into a choice: kernel `rocm_<name>`, choice `rocm_<name>_<n>`,
  /// a benchmark request with size-argument hints (the policy's size_args() when it declares them,
  /// else every free symbol of the bound tensors), runtime values and the workspace expression
  /// (when the policy declares kernel_capabilities::workspace), the launch description (when the
  /// policy declares kernel_capabilities::launch: the one its render() returns in the parts, else
  /// describe_launch()), and a make_kernel_render closure that re-renders with the `KERNEL_NAME`
  /// placeholder.
  /// @param hints values of the size symbols, for benchmarking
  /// @throws invalid_argument_error when a hint names a symbol the template does not have
  /// (check_hints()); evaluation_error when a size symbol has no hint; error when the rendered entry point's
  /// arguments do not start with the inputs (input_reorder order) and the output.
  [[nodiscard]] rocm_template_caller generate(const config_type& config, const size_hints& hints = {}) const {
    check_hints(hints);
    const std::string kernel_name = "rocm_" + std::string(name());
    const std::string choice_name = kernel_name + "_" + std::to_string(detail::choice_counter()++);
    rocm_template_kernel kernel(kernel_name, get_runtime_arg_info(), get_runtime_arg_values(config));
    name_size_args(kernel);
    const rendered_source parts = render(kernel, config);
    check_expected_args(kernel);
    auto bmreq = make_request(kernel, parts, hints);
    bmreq.workspace_bytes = get_workspace_bytes(config);
    rocm_template_caller caller{
        choice_name,      std::string(name()), input_nodes_, output_node_, make_kernel_render_for(config),
        std::move(bmreq), describe(config)};
    caller.set_epilogue_support(make_fused_render_for(config), get_pointwise_chain());
    if constexpr (detail::has_launch<Policy>) {
      if (parts.launch) {
        caller.set_launch(*parts.launch);  // described while rendering: one pass
      } else {
        // A policy whose render() does not return its launch: describe_launch binds the tensors again.
        rocm_template_kernel described(kernel_name, get_runtime_arg_info(), get_runtime_arg_values(config));
        name_size_args(described);
        caller.set_launch(policy_.describe_launch(described, *context_, config));
      }
    }
    return caller;
  }

  /// @brief True when the policy renders a reference kernel for verification.
  [[nodiscard]] static constexpr bool has_reference() noexcept { return detail::has_reference<Policy>; }

  /// @brief Renders the policy's reference kernel (choice `rocm_<name>_reference`), with the same
  /// entry point, inputs and size arguments as every candidate and no runtime arguments; with its
  /// launch description when the policy declares kernel_capabilities::reference_launch.
  /// @throws invalid_argument_error when the policy does not declare the reference capability
  /// (`static constexpr kernel_capabilities capabilities{.reference = true}`, codegen/concepts.hpp).
  [[nodiscard]] rocm_template_caller generate_reference(const size_hints& hints = {}) const {
    check_hints(hints);
    if constexpr (detail::has_reference<Policy>) {
      const std::string kernel_name = "rocm_" + std::string(name());
      rocm_template_kernel kernel(kernel_name);
      name_size_args(kernel);
      const rendered_source parts = policy_.render_reference(kernel, *context_);
      check_expected_args(kernel);
      auto bmreq = make_request(kernel, parts, hints);
      rocm_template_caller caller{kernel_name + "_reference", std::string(name()), input_nodes_,           output_node_,
                                  make_kernel_render_fn{},    std::move(bmreq),    {{"reference", "true"}}};
      if constexpr (detail::has_reference_launch<Policy>) {
        if (parts.launch) {
          caller.set_launch(*parts.launch);  // described while rendering: one pass
          return caller;
        }
        // A render_reference() that does not return its launch: describing binds the tensors again.
        rocm_template_kernel described(kernel_name);
        name_size_args(described);
        caller.set_launch(policy_.describe_reference_launch(described, *context_));
      }
      return caller;
    } else {
      (void)hints;
      throw invalid_argument_error("rocmtpl: rocm_template: template '" + std::string(name()) +
                                   "' does not declare the reference capability (kernel_capabilities::reference); "
                                   "verification needs one");
    }
  }

  /// @brief generate() for every configuration of the policy's search space for this problem
  /// (`configs(context, hints)` when the policy ranks per problem, else `configs()`).
  [[nodiscard]] std::vector<rocm_template_caller> generate_all(const size_hints& hints = {}) const {
    check_hints(hints);
    std::vector<rocm_template_caller> out;
    for (const auto& config : detail::problem_configs(policy_, *context_, hints))
      out.push_back(generate(config, hints));
    return out;
  }

 private:
  // The request of a rendering: the source text (its hash keys caches), the entry's name and
  // signature (checked against the compiled library), tensors and extra arguments.
  [[nodiscard]] rocm_benchmark_request make_request(const rocm_template_kernel& kernel, const rendered_source& parts,
                                                    const size_hints& hints) const {
    check_parts(kernel, parts);
    rocm_benchmark_request bmreq;
    bmreq.kernel_name = parts.entry_name;
    bmreq.signature = parts.signature;
    for (const auto& t : kernel.args().inputs())
      bmreq.input_tensor_meta.push_back(tensor_meta::from_buffer(t.node, hints));
    bmreq.output_tensor_meta = tensor_meta::from_buffer(output_node_, hints);
    for (const auto& s : kernel.args().size_symbols()) bmreq.extra_args.push_back(sym_expr::symbol(s).evaluate(hints));
    bmreq.size_arg_count = bmreq.extra_args.size();
    bmreq.size_arg_names = kernel.args().size_symbols();
    for (auto v : kernel.runtime_arg_values()) bmreq.extra_args.push_back(v);
    bmreq.source_code = parts.str();
    return bmreq;
  }

  // The policy's size arguments, when it names them (kernel_capabilities::size_args).
  void name_size_args(rocm_template_kernel& kernel) const {
    if constexpr (detail::has_size_args<Policy>) {
      kernel.name_size_args(policy_.size_args(*context_));
    } else {
      (void)kernel;
    }
  }

  // The policy's workspace expression for a configuration (kernel_capabilities::workspace).
  [[nodiscard]] std::optional<sym_expr> get_workspace_bytes(const config_type& config) const {
    if constexpr (detail::has_workspace<Policy>) {
      return sym_expr(policy_.workspace_bytes(*context_, config));
    } else {
      (void)config;
      return std::nullopt;
    }
  }

  // The parts must declare the kernel's entry as def_kernel() bound it, and a launch description
  // that they carry must name the entry's device symbols.
  void check_parts(const rocm_template_kernel& kernel, const rendered_source& parts) const {
    if (parts.launch && parts.launch->kernel_name != parts.entry_name) {
      throw template_error("rocmtpl: rocm_template: template '" + std::string(name()) +
                               "' rendered a launch description for kernel '" + parts.launch->kernel_name +
                               "' with the entry '" + parts.entry_name +
                               "'; start it with launch_description_for(kernel.kernel_name(), kernel.args())",
                           std::string(name()));
    }
    if (parts.entry_name != kernel.kernel_name() || parts.signature != kernel.args().signature() ||
        parts.linkage != entry_linkage::exported) {
      throw template_error("rocmtpl: rocm_template: template '" + std::string(name()) + "' rendered the entry '" +
                               parts.declaration() + "' but its kernel declares '" +
                               entry_declaration(kernel.kernel_name(), kernel.args().signature()) +
                               "'; start the parts with kernel.start_source(ctx) after def_kernel",
                           std::string(name()));
    }
  }

  [[nodiscard]] make_kernel_render_fn make_kernel_render_for(const config_type& config) const {
    return [policy = policy_, ctx = context_, config, info = get_runtime_arg_info(),
            values = get_runtime_arg_values(config)](const rocm_template_buffer& node,
                                                     const std::vector<buffer>& epilogue_nodes) {
      if (!epilogue_nodes.empty()) {
        // Epilogues come here only as buffers: without their operation there is nothing to fuse.
        const std::string why = detail::has_epilogue<Policy>
                                    ? "; it fuses pointwise epilogue nodes (kernel_capabilities::pointwise), given "
                                      "with their operation"
                                    : "; it does not declare kernel_capabilities::epilogue (use the template's own "
                                      "epilogue options)";
        throw invalid_argument_error("rocmtpl: rocm_template: template '" + std::string(Policy::name()) +
                                     "' rendering '" + node.name() + "' does not fuse epilogue nodes (" +
                                     std::to_string(epilogue_nodes.size()) + " given)" + why);
      }
      auto kernel = std::make_shared<rocm_template_kernel>("KERNEL_NAME", info, values);
      if constexpr (detail::has_size_args<Policy>) kernel->name_size_args(policy.size_args(*ctx));
      return kernel_render{kernel, [policy, ctx, config, kernel] { return policy.render(*kernel, *ctx, config); }};
    };
  }

  // The node's fused render closure (kernel_capabilities::epilogue), else none (the scheduler then
  // refuses epilogues with the reason).
  [[nodiscard]] make_fused_render_fn make_fused_render_for(const config_type& config) const {
    if constexpr (detail::has_epilogue<Policy>) {
      return [policy = policy_, ctx = context_, config, info = get_runtime_arg_info(),
              values = get_runtime_arg_values(config)](const rocm_template_buffer& /*node*/, const fused_epilogue& e) {
        auto kernel = std::make_shared<rocm_template_kernel>("KERNEL_NAME", info, values);
        if constexpr (detail::has_size_args<Policy>) kernel->name_size_args(policy.size_args(*ctx));
        // Rendered once here, so that a refusal (invalid_argument_error) reaches the scheduler now.
        auto parts = policy.render_epilogue(*kernel, *ctx, config, e);
        return kernel_render{kernel, [parts = std::move(parts)] { return parts; }};
      };
    } else {
      (void)config;
      return {};
    }
  }

  // The chain the node carries (kernel_capabilities::pointwise), else none.
  [[nodiscard]] std::optional<epilogue_chain> get_pointwise_chain() const {
    if constexpr (detail::has_pointwise<Policy>) {
      return policy_.pointwise_chain(*context_);
    } else {
      return std::nullopt;
    }
  }

  void check_expected_args(const rocm_template_kernel& kernel) const {
    std::vector<std::string> expected;
    std::vector<int> order(input_nodes_.size());
    std::iota(order.begin(), order.end(), 0);
    // A reference, not value_or(): copying the vector out of the optional makes g++ 12 at -O2 report
    // a false -Werror=free-nonheap-object.
    const std::vector<int>& indices = input_reorder_ ? *input_reorder_ : order;
    for (int idx : indices) {
      const auto& n = input_nodes_[static_cast<std::size_t>(idx)].name();
      if (std::find(expected.begin(), expected.end(), n) == expected.end()) expected.push_back(n);
    }
    expected.push_back(output_node_.name());
    const auto call_args = kernel.args().call_args();
    const bool ok =
        call_args.size() >= expected.size() && std::equal(expected.begin(), expected.end(), call_args.begin());
    if (!ok) {
      using detail::join;
      throw template_error("rocmtpl: rocm_template: template '" + std::string(name()) + "' rendered arguments [" +
                               join(call_args) + "] that do not start with the expected [" + join(expected) +
                               "]; bind every input (input_reorder order) and the output with def_kernel",
                           std::string(name()));
    }
  }

  Policy policy_;
  std::vector<buffer> input_nodes_;
  buffer output_node_;
  std::optional<std::vector<int>> input_reorder_;
  std::shared_ptr<const template_context> context_;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/kernel/rocm_template-inl.hpp>
#endif

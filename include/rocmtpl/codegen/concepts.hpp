// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The kernel_template concept: what a policy must provide to be rendered, compiled and tuned.

#include <concepts>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/signature_rule.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

// Declared only: the concepts take it by reference, and codegen/ includes no top-level header
// (rocm_kernel.hpp defines it; rocm_template.hpp includes both).
class rocm_template_kernel;

/// @brief Opt-in tag: a policy declares `using policy_concept = rocmtpl::kernel_template_tag;`.
struct kernel_template_tag {};

/// @brief Opt-in switch; specialise to `true` for a policy that cannot carry `policy_concept`.
template <class P>
inline constexpr bool enable_kernel_template = requires {
  requires std::derived_from<typename P::policy_concept, kernel_template_tag>;
};

/// @brief The optional members a policy has, declared rather than guessed from member shapes:
/// `static constexpr rocmtpl::kernel_capabilities capabilities{.reference = true};`.
///
/// A declared capability whose member is missing or misspelt, and a member whose capability is not
/// declared, both fail kernel_template (and name the member), so that a typo can never switch a
/// feature such as verification off. A policy with none of the optional members may omit
/// `capabilities`.
struct kernel_capabilities {
  bool reference = false;        ///< `rendered_source render_reference(rocm_template_kernel&, const template_context&)`
  bool runtime_args = false;     ///< `runtime_arg_info() const` and `runtime_arg_values(const config_type&) const`
  bool problem_configs = false;  ///< `configs(const template_context&, const size_hints&) const`, best first
  /// `sym_expr workspace_bytes(const template_context&, const config_type&) const`: the entry point's
  /// workspace in bytes as an expression of the size symbols (what its workspace query answers), so
  /// that it is known at code generation (the reference queries a compiled library for it)
  bool workspace = false;
  /// `std::vector<sym_expr> size_args(const template_context&) const`: the size arguments of the
  /// entry point, in order, each a single symbol (the reference's size_args()); without it every
  /// free symbol of the bound tensors becomes one, in order of first appearance
  bool size_args = false;
  /// `launch_description describe_launch(rocm_template_kernel&, const template_context&, const config_type&) const`:
  /// the launches of render()'s entry (codegen/launch.hpp); the autotuner then compiles device code
  /// only and launches through the module API
  bool launch = false;
  /// `launch_description describe_reference_launch(rocm_template_kernel&, const template_context&) const`:
  /// the launches of render_reference()'s entry; the autotuner then compiles the reference device-only
  /// too (needs `reference`)
  bool reference_launch = false;
  /// `rendered_source render_epilogue(rocm_template_kernel&, const template_context&, const config_type&,
  /// const fused_epilogue&) const`: render() with an epilogue chain fused after the template's own
  /// epilogue, writing the epilogue's output (codegen/epilogue.hpp); it throws invalid_argument_error
  /// with the reason when it refuses. Without it the template refuses every epilogue
  bool epilogue = false;
  /// `epilogue_chain pointwise_chain(const template_context&) const`: the template is pointwise on its
  /// input 0 and its node carries this chain (its inputs 1.. are the chain's operands 0..), so that
  /// the template before it may fuse it
  bool pointwise = false;
  /// `static constexpr signature_rule typed_signature(std::size_t inputs) noexcept`: the entry point's
  /// parameters as constexpr data (codegen/signature_rule.hpp), so that make_template() derives the
  /// signature of a typed problem at compile time and rejects buffers that disagree with it; without
  /// it the policy is used through the runtime-value route (rocm_template). Such a policy's name() is
  /// `constexpr` (the diagnostics name the template)
  bool typed_signature = false;

  /// @brief Member-wise equality.
  friend constexpr bool operator==(const kernel_capabilities&, const kernel_capabilities&) = default;
};

namespace detail {
template <class P>
concept has_template_name = requires {
  { P::name() } -> std::convertible_to<std::string_view>;
};
template <class P>
concept has_config_type = requires {
  typename P::config_type;
}
&&std::equality_comparable<typename P::config_type>&& std::copy_constructible<typename P::config_type>;
template <class P>
concept has_render = has_config_type<P> &&
    requires(const P& p, rocm_template_kernel& k, const template_context& ctx, const typename P::config_type& c) {
  { p.render(k, ctx, c) } -> std::convertible_to<rendered_source>;
};
template <class P>
concept has_configs = has_config_type<P> && requires(const P& p) {
  { p.configs() } -> std::ranges::input_range;
  requires std::convertible_to < std::ranges::range_value_t<decltype(p.configs())>,
  typename P::config_type > ;
};
template <class P>
concept has_describe = has_config_type<P> && requires(const typename P::config_type& c) {
  { describe(c) } -> std::convertible_to<std::vector<std::pair<std::string, std::string>>>;
};

// Optional members, by shape (with the right signature) and by name (any signature, so that a
// wrong signature of a declared member is still seen as "present"; an overloaded name is only
// seen by shape).
template <class P>
concept reference_member = requires(const P& p, rocm_template_kernel& k, const template_context& ctx) {
  { p.render_reference(k, ctx) } -> std::convertible_to<rendered_source>;
};
template <class P>
concept names_render_reference = requires {
  &P::render_reference;
};
template <class P>
concept runtime_args_members = has_config_type<P> && requires(const P& p, const typename P::config_type& c) {
  { p.runtime_arg_info() } -> std::convertible_to<std::vector<arg_info>>;
  { p.runtime_arg_values(c) } -> std::convertible_to<std::vector<runtime_arg_value>>;
};
template <class P>
concept names_runtime_args = requires {
  &P::runtime_arg_info;
}
|| requires { &P::runtime_arg_values; };
template <class P>
concept problem_configs_member = has_config_type<P> &&
    requires(const P& p, const template_context& ctx, const size_hints& h) {
  { p.configs(ctx, h) } -> std::ranges::input_range;
  requires std::convertible_to < std::ranges::range_value_t<decltype(p.configs(ctx, h))>,
  typename P::config_type > ;
};

template <class P>
concept workspace_member = has_config_type<P> &&
    requires(const P& p, const template_context& ctx, const typename P::config_type& c) {
  { p.workspace_bytes(ctx, c) } -> std::convertible_to<sym_expr>;
};
template <class P>
concept names_workspace_bytes = requires {
  &P::workspace_bytes;
};
template <class P>
concept size_args_member = requires(const P& p, const template_context& ctx) {
  { p.size_args(ctx) } -> std::convertible_to<std::vector<sym_expr>>;
};
template <class P>
concept names_size_args = requires {
  &P::size_args;
};
template <class P>
concept launch_member = has_config_type<P> &&
    requires(const P& p, rocm_template_kernel& k, const template_context& ctx, const typename P::config_type& c) {
  { p.describe_launch(k, ctx, c) } -> std::convertible_to<launch_description>;
};
template <class P>
concept names_describe_launch = requires {
  &P::describe_launch;
};
template <class P>
concept reference_launch_member = requires(const P& p, rocm_template_kernel& k, const template_context& ctx) {
  { p.describe_reference_launch(k, ctx) } -> std::convertible_to<launch_description>;
};
template <class P>
concept names_describe_reference_launch = requires {
  &P::describe_reference_launch;
};

template <class P>
concept epilogue_member = has_config_type<P> &&
    requires(const P& p, rocm_template_kernel& k, const template_context& ctx, const typename P::config_type& c,
             const fused_epilogue& e) {
  { p.render_epilogue(k, ctx, c, e) } -> std::convertible_to<rendered_source>;
};
template <class P>
concept names_render_epilogue = requires {
  &P::render_epilogue;
};
template <class P>
concept pointwise_member = requires(const P& p, const template_context& ctx) {
  { p.pointwise_chain(ctx) } -> std::convertible_to<epilogue_chain>;
};
template <class P>
concept names_pointwise_chain = requires {
  &P::pointwise_chain;
};

template <class P>
concept typed_signature_member = requires(std::size_t n) {
  { P::typed_signature(n) } -> std::same_as<signature_rule>;
};
template <class P>
concept names_typed_signature = requires {
  &P::typed_signature;
};

// The declaration: `static constexpr kernel_capabilities capabilities{...}`, or none (all false).
template <class P>
concept has_capabilities_member = requires {
  P::capabilities;
};
template <class P>
concept capabilities_well_typed =
    !has_capabilities_member<P> || std::same_as<std::remove_cvref_t<decltype(P::capabilities)>, kernel_capabilities>;
template <class P>
[[nodiscard]] consteval kernel_capabilities declared_capabilities() {
  if constexpr (has_capabilities_member<P> && capabilities_well_typed<P>) {
    return P::capabilities;
  } else {
    return {};
  }
}

// Declaration and members agree, one concept per direction so that a failure names the member.
template <class P>
concept declared_reference_has_member_render_reference = !declared_capabilities<P>().reference || reference_member<P>;
template <class P>
concept member_render_reference_is_declared = declared_capabilities<P>()
.reference || !(names_render_reference<P> || reference_member<P>);
template <class P>
concept declared_runtime_args_have_members_runtime_arg_info_and_values =
    !declared_capabilities<P>().runtime_args || runtime_args_members<P>;
template <class P>
concept members_runtime_arg_info_and_values_are_declared = declared_capabilities<P>()
.runtime_args || !(names_runtime_args<P> || runtime_args_members<P>);
template <class P>
concept declared_problem_configs_has_member_configs_context_hints =
    !declared_capabilities<P>().problem_configs || problem_configs_member<P>;
template <class P>
concept member_configs_context_hints_is_declared = declared_capabilities<P>()
.problem_configs || !problem_configs_member<P>;

template <class P>
concept declared_workspace_has_member_workspace_bytes = !declared_capabilities<P>().workspace || workspace_member<P>;
template <class P>
concept member_workspace_bytes_is_declared = declared_capabilities<P>()
.workspace || !(names_workspace_bytes<P> || workspace_member<P>);
template <class P>
concept declared_size_args_has_member_size_args = !declared_capabilities<P>().size_args || size_args_member<P>;
template <class P>
concept member_size_args_is_declared = declared_capabilities<P>()
.size_args || !(names_size_args<P> || size_args_member<P>);
template <class P>
concept declared_launch_has_member_describe_launch = !declared_capabilities<P>().launch || launch_member<P>;
template <class P>
concept member_describe_launch_is_declared = declared_capabilities<P>()
.launch || !(names_describe_launch<P> || launch_member<P>);
template <class P>
concept declared_reference_launch_has_member_describe_reference_launch =
    !declared_capabilities<P>().reference_launch ||
    (declared_capabilities<P>().reference && reference_launch_member<P>);
template <class P>
concept member_describe_reference_launch_is_declared = declared_capabilities<P>()
.reference_launch || !(names_describe_reference_launch<P> || reference_launch_member<P>);

template <class P>
concept declared_epilogue_has_member_render_epilogue = !declared_capabilities<P>().epilogue || epilogue_member<P>;
template <class P>
concept member_render_epilogue_is_declared = declared_capabilities<P>()
.epilogue || !(names_render_epilogue<P> || epilogue_member<P>);
template <class P>
concept declared_pointwise_has_member_pointwise_chain = !declared_capabilities<P>().pointwise || pointwise_member<P>;
template <class P>
concept member_pointwise_chain_is_declared = declared_capabilities<P>()
.pointwise || !(names_pointwise_chain<P> || pointwise_member<P>);

template <class P>
concept declared_typed_signature_has_member_typed_signature =
    !declared_capabilities<P>().typed_signature || typed_signature_member<P>;
template <class P>
concept member_typed_signature_is_declared = declared_capabilities<P>()
.typed_signature || !(names_typed_signature<P> || typed_signature_member<P>);

template <class P>
concept capabilities_match = capabilities_well_typed<P> && declared_reference_has_member_render_reference<P> &&
    member_render_reference_is_declared<P> && declared_runtime_args_have_members_runtime_arg_info_and_values<P> &&
    members_runtime_arg_info_and_values_are_declared<P> &&
    declared_problem_configs_has_member_configs_context_hints<P> && member_configs_context_hints_is_declared<P> &&
    declared_workspace_has_member_workspace_bytes<P> && member_workspace_bytes_is_declared<P> &&
    declared_size_args_has_member_size_args<P> && member_size_args_is_declared<P> &&
    declared_launch_has_member_describe_launch<P> && member_describe_launch_is_declared<P> &&
    declared_epilogue_has_member_render_epilogue<P> && member_render_epilogue_is_declared<P> &&
    declared_pointwise_has_member_pointwise_chain<P> && member_pointwise_chain_is_declared<P> &&
    declared_reference_launch_has_member_describe_reference_launch<P> &&
    member_describe_reference_launch_is_declared<P> && declared_typed_signature_has_member_typed_signature<P> &&
    member_typed_signature_is_declared<P>;

// What the library uses: a declared capability (kernel_template guarantees its member exists).
template <class P>
concept has_reference = declared_capabilities<P>()
.reference&& reference_member<P>;
template <class P>
concept has_runtime_args = declared_capabilities<P>()
.runtime_args&& runtime_args_members<P>;
template <class P>
concept has_problem_configs = declared_capabilities<P>()
.problem_configs&& problem_configs_member<P>;
template <class P>
concept has_workspace = declared_capabilities<P>()
.workspace&& workspace_member<P>;
template <class P>
concept has_size_args = declared_capabilities<P>()
.size_args&& size_args_member<P>;
template <class P>
concept has_launch = declared_capabilities<P>()
.launch&& launch_member<P>;
template <class P>
concept has_epilogue = declared_capabilities<P>()
.epilogue&& epilogue_member<P>;
template <class P>
concept has_pointwise = declared_capabilities<P>()
.pointwise&& pointwise_member<P>;
template <class P>
concept has_typed_signature = declared_capabilities<P>()
.typed_signature&& typed_signature_member<P>;
template <class P>
concept has_reference_launch = has_reference<P> && declared_capabilities<P>()
.reference_launch&& reference_launch_member<P>;
}  // namespace detail

/// @brief A policy that renders HIP source for one kernel template.
///
/// Requirements:
/// 1. opted in: `using policy_concept = rocmtpl::kernel_template_tag;` (or `enable_kernel_template`);
/// 2. `static std::string_view name()`: the template name, a C identifier (`gemm`; the stock
///    policies' is `constexpr`);
/// 3. `config_type`: an equality-comparable, copyable configuration value with a free
///    `describe(const config_type&)` returning `std::vector<std::pair<std::string, std::string>>` (field, value);
/// 4. `rendered_source render(rocm_template_kernel&, const template_context&, const config_type&) const`:
///    a complete translation unit as parts, started with `kernel.start_source(ctx)` after
///    `kernel.def_kernel(...)` (its includes, globals, entry name and signature);
/// 5. `configs() const`: a range of config_type, the search space for this problem;
/// 6. optional members present exactly when declared in `static constexpr kernel_capabilities
///    capabilities` (see kernel_capabilities): `configs(const template_context&, const size_hints&)
///    const`, the search space for one problem, best first (preferred over `configs()` by
///    rocm_template::generate_all and the autotuner); `runtime_arg_info()` and
///    `runtime_arg_values(config)` for runtime arguments; `render_reference(kernel, context)`, a
///    simple, trusted kernel with the same entry point that the autotuner runs once to verify every
///    candidate; `workspace_bytes(context, config)`, the workspace as a size expression known at
///    code generation; `size_args(context)`, the entry point's size arguments by name;
///    `describe_launch(kernel, context, config)`, the launches of the entry (device-only tuning
///    through the module API); `describe_reference_launch(kernel, context)`, the same for the
///    reference's entry; `render_epilogue(kernel, context, config, epilogue)`, render() with a
///    pointwise chain fused after the template's own epilogue; `pointwise_chain(context)`, the chain a
///    pointwise template's node carries (so that the template before it may fuse it);
///    `typed_signature(inputs)`, the entry point's parameters as a constexpr signature_rule (the typed
///    route, make_template(), derives and checks signatures from it).
template <class P>
concept kernel_template = enable_kernel_template<P> && detail::has_template_name<P> && detail::has_config_type<P> &&
    detail::has_describe<P> && detail::has_render<P> && detail::has_configs<P> && detail::capabilities_match<P>;

namespace detail {
/// @brief The policy's configurations for a problem: `configs(ctx, hints)` when the policy declares
/// it (pruned and ranked for the problem), else `configs()`.
template <class P>
[[nodiscard]] auto problem_configs(const P& policy, const template_context& ctx, const size_hints& hints) {
  if constexpr (has_problem_configs<P>) {
    return policy.configs(ctx, hints);
  } else {
    (void)ctx;
    (void)hints;
    return policy.configs();
  }
}
}  // namespace detail

/// @brief Checks a policy member by member, so that a missing one is named in the error.
template <class P>
consteval bool check_kernel_template() {
  static_assert(enable_kernel_template<P>,
                "rocmtpl: kernel_template: policy is not opted in; add 'using policy_concept = "
                "rocmtpl::kernel_template_tag;'");
  static_assert(detail::has_template_name<P>,
                "rocmtpl: kernel_template: policy has no static member name(); add 'static std::string_view name()'");
  static_assert(detail::has_config_type<P>,
                "rocmtpl: kernel_template: policy has no usable config_type; add an equality-comparable 'config_type'");
  static_assert(detail::has_describe<P>,
                "rocmtpl: kernel_template: config_type has no describe(config); add a free function describe() "
                "returning its (field, value) pairs");
  static_assert(detail::has_render<P>,
                "rocmtpl: kernel_template: policy has no member render(kernel, context, config); add it");
  static_assert(detail::has_configs<P>,
                "rocmtpl: kernel_template: policy has no member configs(); return the candidate config_type values");
  static_assert(detail::capabilities_well_typed<P>,
                "rocmtpl: kernel_template: member capabilities is not a kernel_capabilities; declare 'static constexpr "
                "rocmtpl::kernel_capabilities capabilities{...}'");
  static_assert(detail::declared_reference_has_member_render_reference<P>,
                "rocmtpl: kernel_template: capabilities declare reference but the policy has no member "
                "render_reference(kernel, context) const; add it or fix its spelling");
  static_assert(detail::member_render_reference_is_declared<P>,
                "rocmtpl: kernel_template: policy has a member render_reference that its capabilities do not declare; "
                "add '.reference = true' to its capabilities");
  static_assert(detail::declared_runtime_args_have_members_runtime_arg_info_and_values<P>,
                "rocmtpl: kernel_template: capabilities declare runtime_args but the policy has no members "
                "runtime_arg_info() and runtime_arg_values(config); add them or fix their spelling");
  static_assert(detail::members_runtime_arg_info_and_values_are_declared<P>,
                "rocmtpl: kernel_template: policy has runtime_arg_info/runtime_arg_values that its capabilities do not "
                "declare; add '.runtime_args = true' to its capabilities");
  static_assert(detail::declared_problem_configs_has_member_configs_context_hints<P>,
                "rocmtpl: kernel_template: capabilities declare problem_configs but the policy has no member "
                "configs(context, hints); add it or fix its signature");
  static_assert(detail::member_configs_context_hints_is_declared<P>,
                "rocmtpl: kernel_template: policy has configs(context, hints) that its capabilities do not declare; "
                "add '.problem_configs = true' to its capabilities");
  static_assert(detail::declared_workspace_has_member_workspace_bytes<P>,
                "rocmtpl: kernel_template: capabilities declare workspace but the policy has no member "
                "workspace_bytes(context, config) const returning a sym_expr; add it or fix its spelling");
  static_assert(detail::member_workspace_bytes_is_declared<P>,
                "rocmtpl: kernel_template: policy has a member workspace_bytes that its capabilities do not declare; "
                "add '.workspace = true' to its capabilities");
  static_assert(detail::declared_size_args_has_member_size_args<P>,
                "rocmtpl: kernel_template: capabilities declare size_args but the policy has no member "
                "size_args(context) const returning std::vector<sym_expr>; add it or fix its spelling");
  static_assert(detail::member_size_args_is_declared<P>,
                "rocmtpl: kernel_template: policy has a member size_args that its capabilities do not declare; "
                "add '.size_args = true' to its capabilities");
  static_assert(detail::declared_launch_has_member_describe_launch<P>,
                "rocmtpl: kernel_template: capabilities declare launch but the policy has no member "
                "describe_launch(kernel, context, config) const; add it or fix its signature");
  static_assert(detail::member_describe_launch_is_declared<P>,
                "rocmtpl: kernel_template: policy has describe_launch that its capabilities do not declare; "
                "add '.launch = true' to its capabilities");
  static_assert(detail::declared_epilogue_has_member_render_epilogue<P>,
                "rocmtpl: kernel_template: capabilities declare epilogue but the policy has no member "
                "render_epilogue(kernel, context, config, epilogue) const; add it or fix its signature");
  static_assert(detail::member_render_epilogue_is_declared<P>,
                "rocmtpl: kernel_template: policy has render_epilogue that its capabilities do not declare; "
                "add '.epilogue = true' to its capabilities");
  static_assert(detail::declared_pointwise_has_member_pointwise_chain<P>,
                "rocmtpl: kernel_template: capabilities declare pointwise but the policy has no member "
                "pointwise_chain(context) const returning an epilogue_chain; add it or fix its signature");
  static_assert(detail::member_pointwise_chain_is_declared<P>,
                "rocmtpl: kernel_template: policy has pointwise_chain that its capabilities do not declare; "
                "add '.pointwise = true' to its capabilities");
  static_assert(detail::declared_reference_launch_has_member_describe_reference_launch<P>,
                "rocmtpl: kernel_template: capabilities declare reference_launch but the policy has no member "
                "describe_reference_launch(kernel, context) const or does not declare reference; add them");
  static_assert(detail::member_describe_reference_launch_is_declared<P>,
                "rocmtpl: kernel_template: policy has describe_reference_launch that its capabilities do not "
                "declare; add '.reference_launch = true' to its capabilities");
  static_assert(detail::declared_typed_signature_has_member_typed_signature<P>,
                "rocmtpl: kernel_template: capabilities declare typed_signature but the policy has no member "
                "'static constexpr signature_rule typed_signature(std::size_t inputs)'; add it or fix its signature");
  static_assert(detail::member_typed_signature_is_declared<P>,
                "rocmtpl: kernel_template: policy has typed_signature that its capabilities do not declare; "
                "add '.typed_signature = true' to its capabilities");
  return true;
}

}  // namespace rocmtpl

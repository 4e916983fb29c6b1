// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The kernel_template concept: what a policy must provide to be rendered, compiled and tuned.

#include <concepts>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
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

namespace detail {
template <class P>
concept has_template_name = requires {
  { P::name() } -> std::convertible_to<std::string_view>;
};
template <class P>
concept has_config_type = requires { typename P::config_type; } && std::equality_comparable<typename P::config_type> &&
                          std::copy_constructible<typename P::config_type>;
template <class P>
concept has_render = has_config_type<P> && requires(const P& p, rocm_template_kernel& k, const template_context& ctx,
                                                    const typename P::config_type& c) {
  { p.render(k, ctx, c) } -> std::convertible_to<std::string>;
};
template <class P>
concept has_configs = has_config_type<P> && requires(const P& p) {
  { p.configs() } -> std::ranges::input_range;
  requires std::convertible_to<std::ranges::range_value_t<decltype(p.configs())>, typename P::config_type>;
};
template <class P>
concept has_problem_configs = has_config_type<P> && requires(const P& p, const template_context& ctx, const size_hints& h) {
  { p.configs(ctx, h) } -> std::ranges::input_range;
  requires std::convertible_to<std::ranges::range_value_t<decltype(p.configs(ctx, h))>, typename P::config_type>;
};
template <class P>
concept has_describe = has_config_type<P> && requires(const typename P::config_type& c) {
  { describe(c) } -> std::convertible_to<std::vector<std::pair<std::string, std::string>>>;
};
template <class P>
concept has_runtime_args = has_config_type<P> && requires(const P& p, const typename P::config_type& c) {
  { p.runtime_arg_info() } -> std::convertible_to<std::vector<arg_info>>;
  { p.runtime_arg_values(c) } -> std::convertible_to<std::vector<runtime_arg_value>>;
};
template <class P>
concept has_reference = requires(const P& p, rocm_template_kernel& k, const template_context& ctx) {
  { p.render_reference(k, ctx) } -> std::convertible_to<std::string>;
};
}  // namespace detail

/// @brief A policy that renders HIP source for one kernel template.
///
/// Requirements:
/// 1. opted in: `using policy_concept = rocmtpl::kernel_template_tag;` (or `enable_kernel_template`);
/// 2. `static std::string_view name()`: the template name, a C identifier (`gemm`);
/// 3. `config_type`: an equality-comparable, copyable configuration value with a free
///    `describe(const config_type&)` returning `std::vector<std::pair<std::string, std::string>>` (field, value);
/// 4. `std::string render(rocm_template_kernel&, const template_context&, const config_type&) const`:
///    a complete translation unit whose entry point comes from `kernel.def_kernel(...)`;
/// 5. `configs() const`: a range of config_type, the search space for this problem.
/// Optional: `configs(const template_context&, const size_hints&) const`: the search space for one
/// problem, best first (preferred over `configs()` by rocm_template::generate_all and the autotuner);
/// `runtime_arg_info()` and `runtime_arg_values(config)` for runtime arguments;
/// `render_reference(kernel, context)`: a simple, trusted kernel with the same entry point that the
/// autotuner runs once to verify every candidate.
template <class P>
concept kernel_template = enable_kernel_template<P> && detail::has_template_name<P> && detail::has_config_type<P> &&
                          detail::has_describe<P> && detail::has_render<P> && detail::has_configs<P>;

namespace detail {
/// @brief The policy's configurations for a problem: `configs(ctx, hints)` when the policy has it
/// (pruned and ranked for the problem), else `configs()`.
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
  return true;
}

}  // namespace rocmtpl

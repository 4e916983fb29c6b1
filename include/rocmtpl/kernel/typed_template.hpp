// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief typed_template: a rocm_template made from buffer types, whose choices keep the kernel
/// signature (codegen/signature.hpp) as a type, so that the runtime layer can load them as typed
/// callables (runtime/launch/typed_kernel.hpp) with no function-pointer type, `void*` or argument count
/// written by the user.
///
/// @code{.cpp}
/// using X = rocmtpl::static_buffer<"X", rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::sym<"M">,
/// rocmtpl::ext<64>>>>; using W = rocmtpl::static_buffer<"W", rocmtpl::row_major_layout<rocmtpl::f32_t,
/// rocmtpl::dims<rocmtpl::ext<64>, rocmtpl::ext<48>>>>; using Y = rocmtpl::static_buffer<"Y",
/// rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<48>>>>; auto gemm =
/// rocmtpl::make_template(rocmtpl::templates::gemm_policy{}, rocmtpl::inputs<X, W>{}, rocmtpl::outputs<Y>{}); auto
/// caller = gemm.generate(gemm.policy().configs().front(), rocmtpl::hints<"M">{100});  // typed_caller<signature>
/// // runtime: auto kernel = rocmtpl::runtime::compile(caller, cache, cc, options);
/// //          kernel(x, w, y, m, stream);   // const float*, const float*, float*, int64_t, stream
/// @endcode
///
/// The policy derives the signature at compile time (kernel_capabilities::typed_signature,
/// codegen/derived_signature.hpp): buffers it does not name as its parameters, or of dtypes and
/// ranks it does not take, are a compile error; unnamed inputs (static_layout types) take its names.
/// The runtime-value route (rocm_template from runtime buffers) stays for shapes learned at run
/// time and for policies without the rule; for the same problem both render the same source, byte for byte.

#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/derived_signature.hpp>
#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/typed_hints.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>

namespace rocmtpl {

/// @brief One rendered choice of a typed_template: the rocm_template_caller and, as a type, the
/// signature its entry point has (checked when it was rendered).
/// @tparam Signature a kernel_signature
template <class Signature>
class typed_caller {
 public:
  using signature = Signature;  ///< the kernel_signature

  /// @param caller the untyped choice, rendered with this signature
  explicit typed_caller(rocm_template_caller caller) : caller_(std::move(caller)) {}

  /// @brief The untyped choice (source, benchmark request, name).
  [[nodiscard]] const rocm_template_caller& untyped() const noexcept { return caller_; }
  /// @brief The complete HIP translation unit.
  [[nodiscard]] const std::string& source() const noexcept { return caller_.source(); }
  /// @brief The entry point's symbol.
  [[nodiscard]] const std::string& kernel_name() const noexcept { return caller_.bmreq().kernel_name; }
  /// @brief The entry point's declaration (Signature::declaration() for kernel_name()).
  [[nodiscard]] std::string declaration() const { return Signature::declaration(kernel_name()); }
  /// @brief The runtime argument values this configuration was rendered for (split_k, ...), in
  /// the signature's order.
  [[nodiscard]] std::vector<runtime_arg_value> runtime_arg_values() const {
    const auto& extra = caller_.bmreq().extra_args;
    return {extra.begin() + static_cast<std::ptrdiff_t>(caller_.bmreq().size_arg_count), extra.end()};
  }

 private:
  rocm_template_caller caller_;
};

/// @brief A kernel template bound to a problem given as buffer types (see kernel_signature).
/// @tparam Policy a kernel_template policy that declares kernel_capabilities::typed_signature
/// @tparam Signature `kernel_signature<inputs<...>, outputs<Y>, ...>` with exactly one output: the
/// one the policy derives for these buffers (derived_signature_t; make_template() makes it)
template <class Policy, class Signature>
requires kernel_template<Policy>
class typed_template {
  static_assert(detail::has_typed_signature<Policy>,
                "rocmtpl: typed_template: the policy does not declare kernel_capabilities::typed_signature, so its "
                "signature is not known at compile time; use the runtime-value route, rocm_template<Policy>");
  static_assert(detail::is_kernel_signature<Signature>,
                "rocmtpl: typed_template: the signature is a kernel_signature<inputs<...>, outputs<...>, ...>");
  static_assert(Signature::output_count == 1,
                "rocmtpl: typed_template: a kernel template has one output; give outputs<...> one buffer");
  static_assert(detail::signature_agrees<Policy, Signature>(),
                "rocmtpl: typed_template: the signature is not the one the policy derives for its buffers "
                "(derived_signature_t; the difference is named above)");

 public:
  using policy_type = Policy;                        ///< the kernel_template policy
  using signature = Signature;                       ///< the kernel_signature
  using config_type = typename Policy::config_type;  ///< one configuration of the policy

  /// @throws signature_error when the policy's runtime arguments differ from the signature's (they
  /// depend on an option of the policy: gemm_options::runtime_split_k).
  explicit typed_template(Policy policy)
      : template_(std::move(policy), Signature::input_buffers(), Signature::output_buffers().front().get_layout(),
                  Signature::input_reorder()) {
    Signature::check_runtime_args(template_.name(), template_.get_runtime_arg_info());
  }

  /// @brief The runtime-value template underneath (same buffers, same input order).
  [[nodiscard]] const rocm_template<Policy>& untyped() const noexcept { return template_; }
  /// @brief The policy.
  [[nodiscard]] const Policy& policy() const noexcept { return template_.policy(); }

  /// @brief rocm_template::generate(), checked against the signature.
  /// @param config the configuration
  /// @param values a value for every size symbol of the signature, `hints<"M">{8192}` (none for a
  /// static problem); a hint for a symbol the signature does not have, or a symbol without one, is
  /// a compile error naming it
  /// @throws signature_error when the rendered entry point's parameters are not the signature's (a
  /// run-time option of the policy that the buffers do not follow: Residual named Bias, for
  /// example); what generate() throws.
  template <fixed_string... Symbols>
  [[nodiscard]] typed_caller<Signature> generate(const config_type& config,
                                                 const hints<Symbols...>& values = {}) const {
    static_assert(detail::hints_match<Signature, Symbols...>(),
                  "rocmtpl: typed_template: the hints are not the signature's size symbols (named above)");
    return generate_checked(config, values.to_map());
  }

  /// @brief generate() for every configuration of the policy's search space for this problem.
  template <fixed_string... Symbols>
  [[nodiscard]] std::vector<typed_caller<Signature>> generate_all(const hints<Symbols...>& values = {}) const {
    static_assert(detail::hints_match<Signature, Symbols...>(),
                  "rocmtpl: typed_template: the hints are not the signature's size symbols (named above)");
    const auto map = values.to_map();
    std::vector<typed_caller<Signature>> out;
    for (const auto& config : detail::problem_configs(template_.policy(), template_.context(), map)) {
      out.push_back(generate_checked(config, map));
    }
    return out;
  }

 private:
  [[nodiscard]] typed_caller<Signature> generate_checked(const config_type& config, const size_hints& map) const {
    // The entry point's parameters, rendered once more into a kernel of our own (generate() keeps
    // its kernel); rendering is cheap next to compiling.
    rocm_template_kernel kernel("rocm_" + std::string(template_.name()), template_.get_runtime_arg_info(),
                                template_.get_runtime_arg_values(config));
    (void)template_.render(kernel, config);
    Signature::check_argdefs(template_.name(), kernel.args().cpp_argdefs());
    return typed_caller<Signature>(template_.generate(config, map));
  }

  rocm_template<Policy> template_;
};

/// @brief Makes a typed_template from a policy and the problem's buffer types; the signature is
/// the one the policy derives (derived_signature_t), and buffers that disagree with it (name, dtype,
/// rank, count, runtime arguments) are a compile error naming both sides.
/// @param policy the kernel_template policy; it declares kernel_capabilities::typed_signature (a
/// policy that does not is a compile error: use rocm_template, the runtime-value route)
/// @param in `inputs<...>{}` in the template's order (a tag: only its type is used): static_buffer
/// types named as the template names its parameters, or static_layout types (they take the template's names)
/// @param out `outputs<...>{}` (a tag), one static_buffer or static_layout
/// @param extras optional `runtime_args<...>{}` and `input_order<...>{}` (tags)
/// @throws signature_error when the policy's runtime arguments (a run-time option) differ from `runtime_args<...>`.
template <class Policy, class... In, class... Out, class... Extras>
requires kernel_template<Policy>
[[nodiscard]] auto make_template(Policy policy, inputs<In...> in, outputs<Out...> out, Extras... extras) {
  (void)in;
  (void)out;
  ((void)extras, ...);
  if constexpr (!detail::has_typed_signature<Policy>) {
    (void)policy_has_no_typed_signature<Policy>{};
  } else {
    using derive = detail::derive_signature<Policy, inputs<In...>, outputs<Out...>, Extras...>;
    if constexpr (derive::check()) {
      return typed_template<Policy, typename derive::type>(std::move(policy));
    }
    // else: the diagnostic named what differs; no template is made
  }
}

}  // namespace rocmtpl

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
/// caller = gemm.generate(gemm.policy().configs().front(), {{"M", 100}});  // typed_caller<signature>
/// // runtime: auto kernel = rocmtpl::runtime::compile(caller, cache, cc, options);
/// //          kernel(x, w, y, m, stream);   // const float*, const float*, float*, int64_t, stream
/// @endcode
///
/// The runtime-value route (rocm_template from runtime buffers) stays for shapes learned at run
/// time; for the same problem both render the same source, byte for byte.

#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/signature.hpp>
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
/// @tparam Policy a kernel_template policy
/// @tparam Signature `kernel_signature<inputs<...>, outputs<Y>, ...>` with exactly one output
template <class Policy, class Signature>
requires kernel_template<Policy>
class typed_template {
  static_assert(detail::is_kernel_signature<Signature>,
                "rocmtpl: typed_template: the signature is a kernel_signature<inputs<...>, outputs<...>, ...>");
  static_assert(Signature::output_count == 1,
                "rocmtpl: typed_template: a kernel template has one output; give outputs<...> one buffer");

 public:
  using policy_type = Policy;                        ///< the kernel_template policy
  using signature = Signature;                       ///< the kernel_signature
  using config_type = typename Policy::config_type;  ///< one configuration of the policy

  /// @throws signature_error when the policy's runtime arguments differ from the signature's.
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
  /// @throws signature_error when the rendered entry point's parameters are not the signature's
  /// (buffer names that are not the template's parameter names, for example); what generate() throws.
  [[nodiscard]] typed_caller<Signature> generate(const config_type& config, const size_hints& hints = {}) const {
    // The entry point's parameters, rendered once more into a kernel of our own (generate() keeps
    // its kernel); rendering is cheap next to compiling.
    rocm_template_kernel kernel("rocm_" + std::string(template_.name()), template_.get_runtime_arg_info(),
                                template_.get_runtime_arg_values(config));
    (void)template_.render(kernel, config);
    Signature::check_argdefs(template_.name(), kernel.args().cpp_argdefs());
    return typed_caller<Signature>(template_.generate(config, hints));
  }

  /// @brief generate() for every configuration of the policy's search space for this problem.
  [[nodiscard]] std::vector<typed_caller<Signature>> generate_all(const size_hints& hints = {}) const {
    std::vector<typed_caller<Signature>> out;
    for (const auto& config : detail::problem_configs(template_.policy(), template_.context(), hints)) {
      out.push_back(generate(config, hints));
    }
    return out;
  }

 private:
  rocm_template<Policy> template_;
};

/// @brief Makes a typed_template from a policy and the problem's buffer types.
/// @param policy the kernel_template policy
/// @param in `inputs<static_buffer...>{}` in the template's order (a tag: only its type is used)
/// @param out `outputs<static_buffer>{}` (a tag)
/// @param extras optional `runtime_args<...>{}` and `input_order<...>{}` (tags)
/// @throws signature_error when the policy's runtime arguments differ from `runtime_args<...>`.
template <class Policy, class... In, class... Out, class... Extras>
requires kernel_template<Policy>
[[nodiscard]] typed_template<Policy, kernel_signature<inputs<In...>, outputs<Out...>, Extras...>> make_template(
    Policy policy, inputs<In...> in, outputs<Out...> out, Extras... extras) {
  (void)in;
  (void)out;
  ((void)extras, ...);
  return typed_template<Policy, kernel_signature<inputs<In...>, outputs<Out...>, Extras...>>(std::move(policy));
}

}  // namespace rocmtpl

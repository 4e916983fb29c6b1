// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief derived_signature: the kernel_signature a policy's entry point has for a typed problem,
/// derived at compile time from the policy's signature_rule (kernel_capabilities::typed_signature):
/// parameter names by position, the dtypes and ranks each takes, the runtime arguments; the input
/// order, size symbols and the workspace/stream tail follow from kernel_signature. Buffers that
/// disagree with the rule are a compile error whose instantiation names both sides
/// (`buffer_name_differs<"A", "X">`, `buffer_dtype_not_accepted<"X", "float64">`, ...).
/// Inputs and the output may also be static_layout types: they take the policy's names.
///
/// @code{.cpp}
/// using sig = rocmtpl::derived_signature_t<rocmtpl::templates::gemm_policy,
///                                          rocmtpl::inputs<x_layout, w_layout>, rocmtpl::outputs<y_layout>>;
/// static_assert(sig::parameters[0].name == "X");
/// @endcode

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/signature_rule.hpp>
#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/fixed_string.hpp>

namespace rocmtpl {

// Diagnostics: their instantiation (in the compiler's "required from" lines) names what differs.

/// @brief A buffer's name is not the template's parameter name (Declared, then the template's).
template <fixed_string Declared, fixed_string Template>
struct buffer_name_differs {
  static_assert(detail::always_false<Declared.size(), Template.size()>,
                "rocmtpl: typed_template: a buffer is not named as the template names the parameter (buffer, then "
                "template, in the instantiation above); rename the buffer, or give a static_layout to take the "
                "template's name");
};
/// @brief A buffer's dtype is not one the template takes for that parameter.
template <fixed_string Buffer, fixed_string Dtype>
struct buffer_dtype_not_accepted {
  static_assert(detail::always_false<Buffer.size(), Dtype.size()>,
                "rocmtpl: typed_template: the template does not take this dtype for this parameter (in the "
                "instantiation above); see the policy's typed_signature()");
};
/// @brief A buffer's rank is not one the template takes for that parameter (rank, then the range taken).
template <fixed_string Buffer, int Rank, int MinRank, int MaxRank>
struct buffer_rank_not_accepted {
  static_assert(detail::always_false<Buffer.size(), static_cast<std::size_t>(Rank)>,
                "rocmtpl: typed_template: the template does not take a buffer of this rank for this parameter (rank "
                "and the ranks taken in the instantiation above)");
};
/// @brief The template takes no problem with this many inputs (Why: the policy's reason).
template <fixed_string Template, std::size_t Inputs, fixed_string Why>
struct template_refuses_inputs {
  static_assert(detail::always_false<Template.size(), Inputs>,
                "rocmtpl: typed_template: the template takes no problem with this many inputs (template, count and "
                "its reason in the instantiation above)");
};
/// @brief The declared runtime arguments are not the template's (declared, then the template's).
template <fixed_string Declared, fixed_string Template>
struct runtime_args_differ {
  static_assert(detail::always_false<Declared.size(), Template.size()>,
                "rocmtpl: typed_template: runtime_args<...> are not the template's runtime arguments (declared, then "
                "the template's, in the instantiation above); declare runtime_args<arg<\"name\", type>...> as the "
                "template takes them");
};
/// @brief The policy derives no signature at compile time (it does not declare kernel_capabilities::typed_signature).
template <class Policy>
struct policy_has_no_typed_signature {
  static_assert(detail::always_false<sizeof(Policy)>,
                "rocmtpl: make_template: the policy (in the instantiation above) does not declare "
                "kernel_capabilities::typed_signature, so its signature is not known at compile time; use the "
                "runtime-value route, rocm_template<Policy>(policy, buffers, output_layout), or give the policy a "
                "'static constexpr signature_rule typed_signature(std::size_t inputs)'");
};

namespace detail {

template <class T>
concept static_layout_like = !is_static_buffer<T> && requires {
  typename T::sizes_type;
  typename T::strides_type;
  T::type;
  T::rank;
};

// What a problem declares for one tensor: a name ("" for a static_layout) and the layout.
template <class T>
struct declared_tensor {
  static_assert(is_static_buffer<T> || static_layout_like<T>,
                "rocmtpl: make_template: inputs and outputs are static_buffer<\"name\", static_layout<...>> or "
                "static_layout<...> types");
  static constexpr std::string_view name{};
  using layout = void;
};
template <class T>
requires is_static_buffer<T>
struct declared_tensor<T> {
  static constexpr std::string_view name = T::name;
  using layout = typename T::layout_type;
};
template <class T>
requires static_layout_like<T>
struct declared_tensor<T> {
  static constexpr std::string_view name{};
  using layout = T;
};

// One tensor of the typed problem against the policy's rule: input `Index` of `Count`, or the
// output when Index == Count.
template <class Policy, std::size_t Count, std::size_t Index, class Declared>
struct derived_tensor {
  static constexpr signature_rule rule = Policy::typed_signature(Count);
  static constexpr tensor_rule r = Index < Count ? rule.inputs[Index] : rule.output;
  using layout = typename declared_tensor<Declared>::layout;
  static constexpr std::string_view declared_name = declared_tensor<Declared>::name;
  static constexpr std::string_view name = !r.other_name.empty() && declared_name == r.other_name ? r.other_name
                                           : r.name.empty()                                       ? "unnamed"
                                                                                                  : r.name;
  static constexpr auto fixed_name = to_fixed_string<name.size()>(name);
  using type = static_buffer<fixed_name, layout>;

  // Instantiates the diagnostic of the first disagreement; true when there is none.
  static constexpr bool check() {
    constexpr int rank = static_cast<int>(layout::rank);
    if constexpr (!declared_name.empty() && declared_name != name) {
      (void)buffer_name_differs<to_fixed_string<declared_name.size()>(declared_name), fixed_name>{};
      return false;
    } else if constexpr (!r.dtypes.contains(layout::type)) {
      constexpr std::string_view dtype_name = dtype_table[static_cast<std::size_t>(layout::type)].name;
      (void)buffer_dtype_not_accepted<fixed_name, to_fixed_string<dtype_name.size()>(dtype_name)>{};
      return false;
    } else if constexpr (rank < r.min_rank || rank > r.max_rank) {
      (void)buffer_rank_not_accepted<fixed_name, rank, r.min_rank, r.max_rank>{};
      return false;
    } else {
      return true;
    }
  }
};

// The C++ type of a runtime argument's C spelling (arg<> accepts only these).
constexpr int c_type_index(std::string_view c_type) noexcept {
  return c_type == "bool" ? 0 : c_type == "int32_t" ? 1 : c_type == "int64_t" ? 2 : c_type == "uint32_t" ? 3 : 4;
}
template <int Index>
using c_type_at =
    std::tuple_element_t<Index, std::tuple<bool, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>>;

// The policy's runtime arguments as runtime_args<arg<...>...>.
template <class Policy, std::size_t Count>
struct rule_args {
  static constexpr signature_rule rule = Policy::typed_signature(Count);
  template <std::size_t K>
  struct one {
    static constexpr std::string_view name = rule.runtime_args[K].name;
    static constexpr std::string_view c_type = rule.runtime_args[K].c_type;
    using type = arg<to_fixed_string<name.size()>(name), c_type_at<c_type_index(c_type)>>;
  };
  template <std::size_t... K>
  static auto make(std::index_sequence<K...>) -> runtime_args<typename one<K>::type...>;
  using type = decltype(make(std::make_index_sequence<rule.runtime_arg_count>{}));
};

// "int32_t split_k, ..." of runtime_args<...>, for diagnostics.
template <class Args>
struct args_text;
template <class... A>
struct args_text<runtime_args<A...>> {
  static constexpr auto text = [] {
    static_string<256> s;
    ((s += s.size() == 0 ? "" : ", ", s += A::c_type, s += " ", s += A::name), ...);
    if (s.size() == 0) s += "none";
    return s;
  }();
  static constexpr auto fixed = to_fixed_string<text.size()>(text.view());
};

template <class Extra, class Args>
using replace_args = std::conditional_t<is_runtime_args<Extra>, Args, Extra>;

template <class Policy, class Inputs, class Outputs, class... Extras>
struct derive_signature;
template <class Policy, class... In, class... Out, class... Extras>
struct derive_signature<Policy, inputs<In...>, outputs<Out...>, Extras...> {
  static_assert(sizeof...(Out) == 1,
                "rocmtpl: typed_template: a kernel template has one output; give outputs<...> one buffer");
  static constexpr std::size_t count = sizeof...(In);
  static constexpr signature_rule rule = Policy::typed_signature(count);
  static constexpr bool accepted = rule.refusal.empty();

  using declared_args =
      typename first_or<runtime_args<>,
                        concat_t<std::conditional_t<is_runtime_args<Extras>, type_list<Extras>, type_list<>>...>>::type;
  using policy_args = typename rule_args<Policy, count>::type;
  using args = std::conditional_t<rule.runtime_args_optional && std::is_same_v<declared_args, runtime_args<>>,
                                  runtime_args<>, policy_args>;
  static constexpr bool declares_args = (is_runtime_args<Extras> || ...);

  template <std::size_t... I>
  static auto make_inputs(std::index_sequence<I...>) -> inputs<typename derived_tensor<Policy, count, I, In>::type...>;
  template <std::size_t... I>
  static constexpr bool check_inputs(std::index_sequence<I...>) {
    return (derived_tensor<Policy, count, I, In>::check() && ...);
  }
  using output = derived_tensor<Policy, count, count, Out...>;

  /// The derived signature (the declared extras in their order, the runtime arguments the policy's).
  using type = std::conditional_t<declares_args || std::is_same_v<args, runtime_args<>>,
                                  kernel_signature<decltype(make_inputs(std::index_sequence_for<In...>{})),
                                                   outputs<typename output::type>, replace_args<Extras, args>...>,
                                  kernel_signature<decltype(make_inputs(std::index_sequence_for<In...>{})),
                                                   outputs<typename output::type>, Extras..., args>>;

  // Instantiates the diagnostic of the first disagreement; true when there is none.
  static constexpr bool check() {
    if constexpr (!accepted) {
      constexpr std::string_view who = Policy::name();
      (void)template_refuses_inputs<to_fixed_string<who.size()>(who), count,
                                    to_fixed_string<rule.refusal.size()>(rule.refusal)>{};
      return false;
    } else if constexpr (!check_inputs(std::index_sequence_for<In...>{}) || !output::check()) {
      return false;
    } else if constexpr (!std::is_same_v<declared_args, args>) {
      (void)runtime_args_differ<args_text<declared_args>::fixed, args_text<policy_args>::fixed>{};
      return false;
    } else {
      return true;
    }
  }
};

template <class Policy, class Signature>
struct signature_agrees_impl {
  static constexpr bool value() { return true; }
};
template <class Policy, class... In, class... Out, class... Extras>
struct signature_agrees_impl<Policy, kernel_signature<inputs<In...>, outputs<Out...>, Extras...>> {
  static constexpr bool value() {
    using derive = derive_signature<Policy, inputs<In...>, outputs<Out...>, Extras...>;
    return derive::check() &&
           std::is_same_v<typename derive::type, kernel_signature<inputs<In...>, outputs<Out...>, Extras...>>;
  }
};

// True when `Signature` is the one `Policy` derives for its buffers (or the policy derives none).
template <class Policy, class Signature>
constexpr bool signature_agrees() {
  if constexpr (has_typed_signature<Policy> && is_kernel_signature<Signature>) {
    return signature_agrees_impl<Policy, Signature>::value();
  } else {
    return true;
  }
}

}  // namespace detail

/// @brief The signature `Policy`'s entry point has for a typed problem (see the file comment);
/// the policy declares kernel_capabilities::typed_signature.
template <class Policy, class Inputs, class Outputs, class... Extras>
requires detail::has_typed_signature<Policy>
using derived_signature_t = typename detail::derive_signature<Policy, Inputs, Outputs, Extras...>::type;

}  // namespace rocmtpl

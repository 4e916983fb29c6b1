// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief signature_rule: what a policy declares, as constexpr data, so that the signature of its
/// entry point is derived at compile time from the problem's buffer types (kernel_capabilities::typed_signature;
/// make_template() in kernel/typed_template.hpp derives and checks it). Plain data, no metaprogramming: a
/// policy header includes it at no cost.
///
/// @code{.cpp}
/// // in a policy: inputs X and an optional Bias, output Y, all f32/f16/bf16
/// static constexpr rocmtpl::signature_rule typed_signature(std::size_t inputs) noexcept {
///   rocmtpl::signature_rule r;
///   if (inputs < 1 || inputs > 2) return r.refuse("takes X and an optional Bias");
///   r.inputs[0] = {.name = "X", .dtypes = rocmtpl::float_dtypes, .min_rank = 2, .max_rank = 2};
///   if (inputs == 2) r.inputs[1] = {.name = "Bias", .dtypes = rocmtpl::float_dtypes, .min_rank = 1, .max_rank = 2};
///   r.output = {.name = "Y", .dtypes = rocmtpl::float_dtypes, .min_rank = 2, .max_rank = 2};
///   return r;
/// }
/// @endcode

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include <rocmtpl/ir/dtype.hpp>

namespace rocmtpl {

/// @brief A set of dtypes (one bit per dtype).
struct dtype_set {
  std::uint32_t bits = 0;  ///< bit `1 << dtype` set: the dtype is in the set

  /// @brief The set of `types`.
  [[nodiscard]] static constexpr dtype_set of(std::initializer_list<dtype> types) noexcept {
    dtype_set s;
    for (auto t : types) s.bits |= 1U << static_cast<unsigned>(t);
    return s;
  }
  /// @brief Every dtype.
  [[nodiscard]] static constexpr dtype_set all() noexcept { return {~0U}; }
  /// @brief True when `t` is in the set.
  [[nodiscard]] constexpr bool contains(dtype t) const noexcept { return (bits >> static_cast<unsigned>(t) & 1U) != 0; }
  /// @brief Member-wise equality.
  friend constexpr bool operator==(const dtype_set&, const dtype_set&) = default;
};

/// @brief float32, float16 and bfloat16: what the stock templates take.
inline constexpr dtype_set float_dtypes = dtype_set::of({dtype::f32, dtype::f16, dtype::bf16});

/// @brief What a policy accepts for one tensor parameter of its entry point.
struct tensor_rule {
  std::string_view name;  ///< the parameter's name (`X`); a buffer of the typed problem must have it
  /// Another name the parameter has under a run-time option (the GEMM's third input is Bias, or Residual
  /// with gemm_options::residual); a buffer may have either, and rendering checks which (signature_error).
  std::string_view other_name = {};
  dtype_set dtypes = dtype_set::all();  ///< the dtypes it takes
  int min_rank = 0;                     ///< the smallest rank it takes
  int max_rank = 8;                     ///< the largest rank it takes
};

/// @brief A runtime argument a policy's entry point takes: its name and C type (`int32_t`, `int64_t`,
/// `uint32_t`, `uint64_t` or `bool`, as in arg<>).
struct arg_rule {
  std::string_view name;    ///< `split_k`
  std::string_view c_type;  ///< `int32_t`
};

/// @brief The rule a policy's typed signature is derived from, for one number of inputs: parameter
/// names by position, the dtypes and ranks each takes, and the runtime arguments. The order of the
/// inputs (input_order<...>), the size symbols (every symbol of the tensors' sizes and strides, in
/// order of first appearance: policies that name their size arguments, kernel_capabilities::size_args,
/// do not declare this rule) and the tail workspace_size, workspace, stream follow from
/// kernel_signature.
struct signature_rule {
  static constexpr std::size_t max_inputs = 16;  ///< the most inputs a rule describes
  static constexpr std::size_t max_args = 4;     ///< the most runtime arguments a rule describes

  std::string_view refusal = {};                     ///< not empty: no problem has this many inputs, and why
  std::array<tensor_rule, max_inputs> inputs = {};   ///< the inputs in the template's order
  tensor_rule output = {};                           ///< the output
  std::array<arg_rule, max_args> runtime_args = {};  ///< the runtime arguments, in order
  std::size_t runtime_arg_count = 0;                 ///< how many of runtime_args are used
  /// True when the runtime arguments depend on a run-time option (the GEMM's split_k, with
  /// gemm_options::runtime_split_k): a typed problem declares all of them or none, and
  /// typed_template checks which when it is made (signature_error).
  bool runtime_args_optional = false;

  /// @brief This rule, refusing `why` (a string literal: "takes X and an optional Bias").
  [[nodiscard]] constexpr signature_rule refuse(std::string_view why) const noexcept {
    signature_rule r = *this;
    r.refusal = why;
    return r;
  }
};

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief gemm_problem: the typed descriptor of a GEMM of the family `rocmtpl-tune gemm` tunes,
/// Y = act(alpha * X @ W [+ bias]), that the tuning database keeps beside the problem's key.
/// gemm/policy.hpp turns one into its template (make_template()) and finds the one a template is
/// (describe_problem(), which the autotuner calls).

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/problem_descriptor.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/templates/activation.hpp>

namespace rocmtpl::templates {

/// @brief A GEMM problem Y = act(alpha * X @ W [+ bias]): X [batch, m, k] and W [batch, k, n]
/// row- or column-major, Y [batch, m, n] row-major (no batch dimension when batch is 1 and not
/// symbolic), a bias of n values, one dtype throughout. A problem_descriptor.
/// @code{.cpp}
/// templates::gemm_problem p{.m = 4096, .n = 4096, .k = 1024, .type = dtype::f16, .symbolic = {"M"}};
/// auto caller = make_template(p).generate(config, p.hints());
/// @endcode
struct gemm_problem {
  static constexpr std::string_view kind = "gemm";  ///< the descriptor's family

  std::int64_t m = 0;                   ///< rows of X and Y
  std::int64_t n = 0;                   ///< columns of W and Y
  std::int64_t k = 0;                   ///< columns of X, rows of W
  std::int64_t batch = 1;               ///< batch count (a leading dimension when > 1 or symbolic)
  dtype type = dtype::f32;              ///< dtype of X, W, the bias and Y
  std::string layout = "rr";            ///< X and W storage: r row-major, c column-major
  activation act = activation::none;    ///< the epilogue's activation
  float alpha = 1.0F;                   ///< scale of X @ W
  bool bias = false;                    ///< a bias of n values
  std::vector<std::string> symbolic{};  ///< sorted subset of "B", "K", "M", "N": sizes passed at run time

  /// @brief Calls `f(name, field)` for every field, in declaration order (problem_descriptor).
  template <class Self, class F>
  static void visit_fields(Self& p, F&& f) {
    using dtype_field = enum_field<std::conditional_t<std::is_const_v<Self>, const dtype, dtype>>;
    using act_field = enum_field<std::conditional_t<std::is_const_v<Self>, const activation, activation>>;
    f("m", p.m);
    f("n", p.n);
    f("k", p.k);
    f("batch", p.batch);
    f("dtype",
      dtype_field{&p.type, [](dtype d) { return name(d); }, [](std::string_view t) { return parse_dtype(t); }});
    f("layout", p.layout);
    f("activation", act_field{&p.act, [](activation a) { return to_string(a); },
                              [](std::string_view t) { return parse_activation(t); }});
    f("alpha", p.alpha);
    f("bias", p.bias);
    f("symbolic", p.symbolic);
  }

  /// @brief True when the size @p role ("M", "N", "K" or "B") is a kernel argument.
  [[nodiscard]] bool is_symbolic(std::string_view role) const;
  /// @brief True when the tensors have a leading batch dimension.
  [[nodiscard]] bool batched() const { return batch > 1 || is_symbolic("B"); }
  /// @brief The values of the symbolic sizes (the shape the problem was tuned at).
  [[nodiscard]] size_hints hints() const;
  /// @brief Field-wise equality.
  friend bool operator==(const gemm_problem&, const gemm_problem&) = default;
};

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/descriptor-inl.hpp>
#endif

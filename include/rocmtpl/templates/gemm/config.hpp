// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM's problem-level options (gemm_options, bias_dim). The tunable configuration is
/// per path: config.hpp in each path's folder under templates/gemm/, and gemm_config (templates/gemm/paths.hpp) is the
/// variant over them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/templates/activation.hpp>

namespace rocmtpl::templates {

/// @brief Which output dimension a rank-1 Bias (or Residual) runs along.
enum class bias_dim {
  n,  ///< [N]: one value per column, the same vector added to every row (nn.Linear)
  m,  ///< [M]: one value per row, broadcast along the columns
};

/// @brief Problem-level options of the GEMM (baked into the source, not tuned).
///
/// Inputs after X and W, in this order: Bias when the template has one more input than needed for
/// X, W and (when `residual`) Residual; then Residual.
struct gemm_options {
  activation act = activation::none;  ///< applied to alpha * X @ W + beta * Bias
  float alpha = 1.0F;                 ///< scale of X @ W
  float beta = 1.0F;                  ///< scale of Bias (addmm's beta * input)
  bias_dim bias_along = bias_dim::n;  ///< which dimension a rank-1 Bias or Residual runs along
  bool residual = false;              ///< the last input is added after the activation
  bool runtime_split_k = false;       ///< entry point takes `int32_t split_k`; configs may split K
};

/// @brief Checks the options before a policy keeps them: alpha and beta are rendered into the
/// kernels as float literals, so they must be finite (no literal spells NaN or an infinity).
/// @throws config_error naming the field and its value (`alpha=nan: alpha must be a finite number ...`).
void validate(const gemm_options& o);

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/config-inl.hpp>
#endif

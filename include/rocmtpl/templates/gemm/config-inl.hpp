// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/config.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE void validate(const gemm_options& o) {
  for (const auto& [field, value] : {std::pair<const char*, float>{"alpha", o.alpha}, {"beta", o.beta}}) {
    if (std::isfinite(value)) continue;
    const std::string text = std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
    throw config_error("gemm", std::string(field) + "=" + text,
                       std::string(field) + " must be a finite number (it is rendered into the kernel as a literal)");
  }
}

}  // namespace rocmtpl::templates

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

ROCMTPL_INLINE std::string gemm_config::to_string() const { return to_text().str(); }

ROCMTPL_INLINE std::string gemm_config::name() const { return name_text().str(); }

ROCMTPL_INLINE std::vector<std::pair<std::string, std::string>> describe(const gemm_config& c) {
  std::vector<std::pair<std::string, std::string>> d{{"math", std::string(to_string(c.math))},
                                                     {"block_m", std::to_string(c.block_m)},
                                                     {"block_n", std::to_string(c.block_n)},
                                                     {"block_k", std::to_string(c.block_k)}};
  if (is_skinny(c.math)) {
    d.emplace_back("warp_m", std::to_string(c.warp_m));
    d.emplace_back("warp_n", std::to_string(c.warp_n));
    d.emplace_back("thread_n", std::to_string(c.thread_n));
  } else if (c.math != gemm_math::simt) {
    d.emplace_back("warp_m", std::to_string(c.warp_m));
    d.emplace_back("warp_n", std::to_string(c.warp_n));
  } else {
    d.emplace_back("thread_m", std::to_string(c.thread_m));
    d.emplace_back("thread_n", std::to_string(c.thread_n));
  }
  d.emplace_back("group_m", std::to_string(c.group_m));
  d.emplace_back("stages", std::to_string(c.stages));
  d.emplace_back("vector", std::to_string(c.vector));
  d.emplace_back("split_k", std::to_string(c.split_k));
  return d;
}

ROCMTPL_INLINE void validate(const gemm_config& c) {
  if (const auto why = invalid_reason(c)) throw config_error("gemm", c.to_string(), std::string(*why));
}

ROCMTPL_INLINE void validate(const gemm_options& o) {
  for (const auto& [field, value] : {std::pair<const char*, float>{"alpha", o.alpha}, {"beta", o.beta}}) {
    if (std::isfinite(value)) continue;
    const std::string text = std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
    throw config_error("gemm", std::string(field) + "=" + text,
                       std::string(field) + " must be a finite number (it is rendered into the kernel as a literal)");
  }
}

}  // namespace rocmtpl::templates

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/detail/element_access.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/dtype.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE std::string load_as_float(dtype t, const std::string& expr) {
  std::string out(load_open(t));
  out += expr;
  out += ')';
  return out;
}

ROCMTPL_INLINE std::string store_from_float(dtype t, const std::string& expr) {
  const std::string_view open = store_open(t);
  if (open.empty()) return expr;
  std::string out(open);
  out += expr;
  out += ')';
  return out;
}

ROCMTPL_INLINE std::string round_trip_literal(float v) {
  // "%.9g" prints NaN and infinities as nan / inf, which are no literals: the options that reach
  // here are checked when their template is made (validate(gemm_options)); this is the backstop.
  if (!std::isfinite(v)) {
    throw invalid_argument_error("rocmtpl: a float option of value " + std::string(std::isnan(v) ? "NaN" : "infinity") +
                                 " cannot be rendered into generated code; give a finite number");
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace rocmtpl::templates::detail

// SPDX-License-Identifier: MIT
// A typed GEMM problem (X, W -> Y, size M) made with make_template and rendered with typed hints,
// for the typed-template compile-fail cases: each case defines one ROCMTPL_FAIL_* macro that
// spoils the problem or the hints; typed_complete.cpp (the passing twin) defines none.
#pragma once

#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace typed_fixture {
using namespace rocmtpl;

#if defined(ROCMTPL_FAIL_BUFFER_NAME)
using x_t = static_buffer<"A", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;  // the GEMM's X
#elif defined(ROCMTPL_FAIL_DTYPE)
using x_t = static_buffer<"X", row_major_layout<f64_t, dims<sym<"M">, ext<64>>>>;  // no float64 GEMM
#elif defined(ROCMTPL_FAIL_RANK)
using x_t = static_buffer<"X", row_major_layout<f16_t, dims<ext<2>, ext<2>, sym<"M">, ext<64>>>>;  // rank 4
#else
using x_t = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;
#endif
using w_t = static_buffer<"W", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
using y_t = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;
using bias_t = static_buffer<"Bias", row_major_layout<f16_t, dims<ext<32>>>>;
using residual_t = static_buffer<"Residual", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;

inline std::string use() {
#if defined(ROCMTPL_FAIL_INPUT_COUNT)
  const auto gemm = make_template(templates::gemm_policy{}, inputs<x_t, w_t, bias_t, residual_t, bias_t::layout_type>{},
                                  outputs<y_t>{});
#elif defined(ROCMTPL_FAIL_RUNTIME_ARGS)
  const auto gemm = make_template(templates::gemm_policy({.runtime_split_k = true}), inputs<x_t, w_t>{}, outputs<y_t>{},
                                  runtime_args<arg<"split_k", std::int64_t>>{});
#else
  // The passing twin: named buffers, the GEMM's optional inputs, its runtime argument, and
  // unnamed layouts that take the GEMM's names.
  const auto gemm = make_template(templates::gemm_policy({.residual = true, .runtime_split_k = true}),
                                  inputs<x_t, w_t, bias_t, residual_t>{}, outputs<y_t>{},
                                  runtime_args<arg<"split_k", std::int32_t>>{});
  const auto unnamed = make_template(templates::gemm_policy{}, inputs<x_t::layout_type, w_t::layout_type>{},
                                     outputs<y_t::layout_type>{});
  static_assert(std::is_same_v<decltype(unnamed)::signature,
                               kernel_signature<inputs<static_buffer<"X", x_t::layout_type>, w_t>, outputs<y_t>>>);
  (void)unnamed;
#endif
#if defined(ROCMTPL_FAIL_UNKNOWN_HINT)
  return gemm.generate(templates::gemm_config{}, hints<"M", "Q">{8, 1}).source();
#elif defined(ROCMTPL_FAIL_MISSING_HINT)
  return gemm.generate(templates::gemm_config{}).source();
#else
  return gemm.generate(templates::gemm_config{}, hints<"M">{8}).source();
#endif
}

}  // namespace typed_fixture

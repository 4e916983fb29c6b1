// SPDX-License-Identifier: MIT
// The main route's call, a runtime::typed_kernel of a GEMM signature (X, W, Y, M, then the stream),
// for the typed_call_* compile-fail cases: each case defines one ROCMTPL_FAIL_* macro that spoils
// the call in one way; without one it is the right call and builds (the *_twin.cpp cases).
#pragma once

#include <rocmtpl/runtime/launch/typed_kernel.hpp>

#include <cstdint>

using call_x = rocmtpl::static_buffer<
    "X", rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<64>>>>;
using call_w = rocmtpl::static_buffer<
    "W", rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::ext<64>, rocmtpl::ext<32>>>>;
using call_y = rocmtpl::static_buffer<
    "Y", rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<32>>>>;
using call_signature = rocmtpl::kernel_signature<rocmtpl::inputs<call_x, call_w>, rocmtpl::outputs<call_y>>;

inline void call_kernel(const rocmtpl::runtime::typed_kernel<call_signature>& kernel, const rocmtpl::half_t* x,
                        const rocmtpl::half_t* w, rocmtpl::half_t* y, std::int64_t m, void* stream) {
#if defined(ROCMTPL_FAIL_MISSING_OUTPUT)
  (void)y;
  kernel(x, w, m, stream);
#elif defined(ROCMTPL_FAIL_EXTRA_ARGUMENT)
  kernel(x, w, y, m, 1, stream);
#elif defined(ROCMTPL_FAIL_WRONG_ORDER)
  kernel(x, w, m, y, stream);
#elif defined(ROCMTPL_FAIL_WRONG_TYPE)
  kernel(x, w, reinterpret_cast<rocmtpl::bfloat16_t*>(y), m, stream);
#elif defined(ROCMTPL_FAIL_MISSING_STREAM)
  (void)stream;
  kernel(x, w, y, m);
#else
  kernel(x, w, y, m, stream);
#endif
}

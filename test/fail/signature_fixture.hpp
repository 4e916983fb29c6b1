// SPDX-License-Identifier: MIT
// A typed call of a GEMM entry point (X, W, Y, M, stream) for the signature compile-fail cases:
// each case defines one ROCMTPL_FAIL_* macro that spoils the call; without one it builds.
#pragma once

#include <rocmtpl/codegen/typed_entry.hpp>

#include <cstdint>

using fixture_x = rocmtpl::static_buffer<
    "X", rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<64>>>>;
using fixture_w = rocmtpl::static_buffer<
    "W", rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::ext<64>, rocmtpl::ext<32>>>>;
using fixture_y = rocmtpl::static_buffer<
    "Y", rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<32>>>>;
using fixture_signature = rocmtpl::kernel_signature<rocmtpl::inputs<fixture_x, fixture_w>, rocmtpl::outputs<fixture_y>>;

// Declared only: the case is compiled, never linked.
int fixture_entry(const std::uint16_t* X, const std::uint16_t* W, std::uint16_t* Y, std::int64_t u_M,
                  std::size_t* workspace_size, std::uint8_t* workspace, void* stream);

inline rocmtpl::kernel_status call_fixture(const rocmtpl::half_t* x, const rocmtpl::half_t* w, rocmtpl::half_t* y,
                                           std::int64_t m, void* stream) {
  const rocmtpl::typed_entry<fixture_signature> entry(&fixture_entry);
#if defined(ROCMTPL_FAIL_WRONG_POINTER)
  // An f16 input passed as bf16.
  const auto* bf = reinterpret_cast<const rocmtpl::bfloat16_t*>(x);
  return entry(bf, w, y, m, stream);
#elif defined(ROCMTPL_FAIL_MISSING_SIZE)
  (void)m;
  return entry(x, w, y, stream);
#elif defined(ROCMTPL_FAIL_EXTRA_ARGUMENT)
  return entry(x, w, y, m, stream, 1);
#else
  return entry(x, w, y, m, stream);
#endif
}

// expect-error: literal_layout_int64_overflow
// SPDX-License-Identifier: MIT
// A literal layout whose element count overflows int64_t does not compile; the error names the overflow.
// Twin: literal_layout_fits.cpp.
#include <rocmtpl/ir/layout.hpp>

constexpr std::int64_t big = std::int64_t{1} << 32;
[[maybe_unused]] constexpr auto l = rocmtpl::layout::row_major(rocmtpl::dtype::f32, {big, big});

// expect-error: literal_buffer_sizes_overflow_int64
// SPDX-License-Identifier: MIT
// A literal buffer whose storage bytes overflow int64_t does not compile (buffer checks the same at run time),
// although its element count fits. Twin: literal_buffer_fits.cpp.
#include <rocmtpl/ir/buffer.hpp>

constexpr std::int64_t count = std::numeric_limits<std::int64_t>::max() / 8 + 1;
[[maybe_unused]] constexpr rocmtpl::literal_buffer b("b", rocmtpl::layout::row_major(rocmtpl::dtype::f64, {count}));

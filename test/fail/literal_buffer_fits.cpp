// expect-success
// SPDX-License-Identifier: MIT
// Twin of literal_buffer_overflow.cpp: one element fewer fits in int64_t bytes and compiles.
#include <rocmtpl/ir/buffer.hpp>

constexpr std::int64_t count = std::numeric_limits<std::int64_t>::max() / 8;
[[maybe_unused]] constexpr rocmtpl::literal_buffer b("b", rocmtpl::layout::row_major(rocmtpl::dtype::f64, {count}));

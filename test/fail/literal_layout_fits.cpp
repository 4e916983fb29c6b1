// expect-success
// SPDX-License-Identifier: MIT
// Twin of literal_layout_overflow.cpp: the largest element count that fits compiles.
#include <rocmtpl/ir/layout.hpp>

constexpr std::int64_t big = std::int64_t{1} << 32;
[[maybe_unused]] constexpr auto l = rocmtpl::layout::row_major(rocmtpl::dtype::f32, {big, big / 2 - 1});

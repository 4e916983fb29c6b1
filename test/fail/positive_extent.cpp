// expect-success
// SPDX-License-Identifier: MIT
// Twin of negative_extent.cpp: the same use with extents 0 and 1 compiles.
#include <rocmtpl/ir/dim.hpp>

[[maybe_unused]] constexpr std::int64_t empty_extent = rocmtpl::ext<0>::value;
[[maybe_unused]] constexpr std::int64_t unit_extent = rocmtpl::ext<1>::value;

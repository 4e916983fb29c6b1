// expect-success
// SPDX-License-Identifier: MIT
// Twin of literal_layout_bad_symbol.cpp: the same layout with a valid symbol name compiles.
#include <rocmtpl/ir/layout.hpp>

[[maybe_unused]] constexpr auto l =
    rocmtpl::layout::row_major(rocmtpl::dtype::f32, {rocmtpl::literal_dim::symbol("rows"), 4});

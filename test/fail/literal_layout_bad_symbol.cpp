// expect-error: literal_layout_bad_symbol
// SPDX-License-Identifier: MIT
// A literal symbol must be a valid name: a keyword does not compile, the error names the symbol's problem.
// Twin: literal_layout_good_symbol.cpp.
#include <rocmtpl/ir/layout.hpp>

[[maybe_unused]] constexpr auto l =
    rocmtpl::layout::row_major(rocmtpl::dtype::f32, {rocmtpl::literal_dim::symbol("int"), 4});

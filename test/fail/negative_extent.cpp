// expect-error: rocmtpl: ext: a static extent must be non-negative
// SPDX-License-Identifier: MIT
// A negative static extent must not compile; the message names the problem. Twin: positive_extent.cpp.
#include <rocmtpl/ir/dim.hpp>

[[maybe_unused]] constexpr std::int64_t bad_extent = rocmtpl::ext<-1>::value;

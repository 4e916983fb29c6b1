// SPDX-License-Identifier: MIT
#pragma once

// String helpers shared by the whole library (one implementation each).

#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::detail {

/// Joins `parts` with `sep` between them ("a, b, c").
[[nodiscard]] std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ");

}  // namespace rocmtpl::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/detail/strings-inl.hpp>
#endif

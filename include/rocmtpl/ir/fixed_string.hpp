// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief fixed_string: a string usable as a C++20 non-type template parameter (symbol and buffer names).

#include <algorithm>
#include <cstddef>
#include <string_view>

#include <rocmtpl/ir/identifier.hpp>  // is_identifier(), checked on fixed_string names

namespace rocmtpl {

/// @brief A compile-time string literal that can be a template argument.
/// @tparam N size of the literal including its terminating zero.
/// @code{.cpp}
/// template <rocmtpl::fixed_string Name> struct named {};
/// named<"M"> m;
/// @endcode
template <std::size_t N>
struct fixed_string {
  char data[N]{};  ///< the characters and the terminating zero

  /// @brief Copies a string literal (implicit, so that `named<"M">` works).
  constexpr fixed_string(const char (&text)[N]) noexcept {  // NOLINT: implicit by design
    std::copy_n(text, N, data);
  }

  /// @brief Number of characters, without the terminating zero.
  [[nodiscard]] static constexpr std::size_t size() noexcept { return N - 1; }

  /// @brief The characters as a string_view.
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {data, N - 1}; }

  /// @brief view(), implicitly.
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT

  /// @brief Equal characters (the lengths may differ, then they are not equal).
  template <std::size_t M>
  friend constexpr bool operator==(const fixed_string& a, const fixed_string<M>& b) noexcept {
    return a.view() == b.view();
  }
};

/// @brief Deduces N from a string literal.
template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N>;

}  // namespace rocmtpl

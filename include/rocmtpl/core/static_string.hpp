// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief static_string: text of fixed capacity built in constant expressions (configuration names
/// in static_assert), where std::string cannot be kept (Clang with libstdc++ 12).
///
/// @code{.cpp}
/// static_assert(rocmtpl::templates::gemm_config{}.name_text() == "bm64_bn64_bk16_tm4_tn4_g8_s2_v4");
/// @endcode

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rocmtpl {

/// @brief Characters of at most `Capacity`, a literal type: appended to and compared in constant
/// expressions. Appending past the capacity throws std::length_error (a compile error in a
/// constant expression).
template <std::size_t Capacity>
class static_string {
 public:
  /// @brief Empty.
  constexpr static_string() noexcept = default;
  /// @brief A copy of `s`.
  constexpr explicit static_string(std::string_view s) { *this += s; }

  /// @brief Appends `s`.
  constexpr static_string& operator+=(std::string_view s) {
    if (s.size() > Capacity - size_) throw std::length_error("rocmtpl: static_string: capacity exceeded");
    for (char c : s) data_[size_++] = c;
    return *this;
  }
  /// @brief Appends one character.
  constexpr static_string& operator+=(char c) { return *this += std::string_view(&c, 1); }
  /// @brief Appends an integer in decimal, as std::to_string writes it.
  constexpr static_string& append_decimal(std::int64_t v) {
    char digits[20]{};
    std::size_t n = 0;
    const bool negative = v < 0;
    // Negative values are taken digit by digit as negatives, so the smallest one does not overflow.
    do {
      const auto d = v % 10;
      digits[n++] = static_cast<char>('0' + (d < 0 ? -d : d));
      v /= 10;
    } while (v != 0);
    if (negative) *this += '-';
    while (n > 0) *this += digits[--n];
    return *this;
  }

  /// @brief The characters.
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {data_, size_}; }
  /// @brief view(), implicitly.
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT: implicit by design
  /// @brief The characters as a std::string.
  [[nodiscard]] std::string str() const { return std::string(view()); }
  /// @brief Number of characters.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  /// @brief The most characters it holds.
  [[nodiscard]] static constexpr std::size_t capacity() noexcept { return Capacity; }

  /// @brief Equal characters.
  friend constexpr bool operator==(const static_string& a, std::string_view b) noexcept { return a.view() == b; }

 private:
  char data_[Capacity + 1]{};
  std::size_t size_ = 0;
};

}  // namespace rocmtpl

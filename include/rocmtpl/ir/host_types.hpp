// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Host element types of the typed kernel signatures: `half_t`, `bfloat16_t`,
/// `float8_e4m3_t`, `float8_e5m2_t` (distinct 8- and 16-bit storage structs, so that an fp16
/// pointer never converts to a bf16 one), and for every dtype its host type and its C ABI storage
/// type (the type `storage_type()` spells).
///
/// @code{.cpp}
/// static_assert(std::is_same_v<rocmtpl::host_type_t<rocmtpl::dtype::f16>, rocmtpl::half_t>);
/// static_assert(std::is_same_v<rocmtpl::storage_type_t<rocmtpl::dtype::f16>, std::uint16_t>);
/// @endcode

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include <rocmtpl/ir/dtype.hpp>

namespace rocmtpl {

/// @brief An IEEE binary16 value as its 16 bits (host storage only: no arithmetic).
struct half_t {
  std::uint16_t bits;  ///< the raw bits
  /// @brief Equal bits.
  friend constexpr bool operator==(half_t, half_t) noexcept = default;
};

/// @brief A bfloat16 value as its 16 bits (host storage only: no arithmetic).
struct bfloat16_t {
  std::uint16_t bits;  ///< the raw bits
  /// @brief Equal bits.
  friend constexpr bool operator==(bfloat16_t, bfloat16_t) noexcept = default;
};

/// @brief An fp8 e4m3 (fnuz) value as its 8 bits (host storage only).
struct float8_e4m3_t {
  std::uint8_t bits;  ///< the raw bits
  /// @brief Equal bits.
  friend constexpr bool operator==(float8_e4m3_t, float8_e4m3_t) noexcept = default;
};

/// @brief An fp8 e5m2 (fnuz) value as its 8 bits (host storage only).
struct float8_e5m2_t {
  std::uint8_t bits;  ///< the raw bits
  /// @brief Equal bits.
  friend constexpr bool operator==(float8_e5m2_t, float8_e5m2_t) noexcept = default;
};

namespace detail {
template <dtype D>
struct element_types;
template <class Host, class Storage>
struct element_pair {
  using host = Host;
  using storage = Storage;
  static_assert(sizeof(Host) == sizeof(Storage) && alignof(Host) == alignof(Storage) &&
                std::is_standard_layout_v<Host> && std::is_trivially_copyable_v<Host>);
};
template <>
struct element_types<dtype::f16> : element_pair<half_t, std::uint16_t> {};
template <>
struct element_types<dtype::bf16> : element_pair<bfloat16_t, std::uint16_t> {};
template <>
struct element_types<dtype::f32> : element_pair<float, float> {};
template <>
struct element_types<dtype::f64> : element_pair<double, double> {};
template <>
struct element_types<dtype::i8> : element_pair<std::int8_t, std::int8_t> {};
template <>
struct element_types<dtype::u8> : element_pair<std::uint8_t, std::uint8_t> {};
template <>
struct element_types<dtype::i32> : element_pair<std::int32_t, std::int32_t> {};
template <>
struct element_types<dtype::i64> : element_pair<std::int64_t, std::int64_t> {};
template <>
struct element_types<dtype::boolean> : element_pair<bool, bool> {};
template <>
struct element_types<dtype::f8e4m3> : element_pair<float8_e4m3_t, std::uint8_t> {};
template <>
struct element_types<dtype::f8e5m2> : element_pair<float8_e5m2_t, std::uint8_t> {};
}  // namespace detail

/// @brief The host element type of a dtype: `half_t` for f16, `bfloat16_t` for bf16, the
/// fp8 structs for fp8, else the arithmetic type (`float`, `std::int32_t`, ...).
template <dtype D>
using host_type_t = typename detail::element_types<D>::host;

/// @brief The C ABI element type of a dtype (`std::uint16_t` for f16 and bf16, `std::uint8_t` for
/// fp8): the C++ type of the text storage_type() returns.
template <dtype D>
using storage_type_t = typename detail::element_types<D>::storage;

/// @brief True for the host element types of some dtype (`half_t`, `float`, ...).
template <class T>
inline constexpr bool is_host_element_v =
    std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t> || std::is_same_v<T, float8_e4m3_t> ||
    std::is_same_v<T, float8_e5m2_t> || std::is_arithmetic_v<T>;

/// @brief The dtype whose host element type is `T` (`float` -> f32, `half_t` -> f16); empty for a
/// type that is none (`void`, `char`, `unsigned long`, ...).
template <class T>
inline constexpr std::optional<dtype> dtype_of_host_v = []<std::size_t... I>(std::index_sequence<I...>) {
  std::optional<dtype> found;
  ((std::is_same_v<T, host_type_t<static_cast<dtype>(I)>> ? (void)(found = static_cast<dtype>(I)) : (void)0), ...);
  return found;
}
(std::make_index_sequence<detail::dtype_table.size()>{});

}  // namespace rocmtpl

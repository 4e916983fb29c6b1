// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Compile-time dimensions: `ext<V>` (a static extent), `sym<"Name">` (a named size known at
/// run time) and `dims<...>` (a list of them), each with a lossless runtime value (sym_expr).
///
/// @code{.cpp}
/// using shape = rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<64>>;
/// static_assert(shape::rank == 2 && !rocmtpl::is_static_v<shape>);
/// static_assert(rocmtpl::static_product_v<rocmtpl::dims<rocmtpl::ext<4>, rocmtpl::ext<8>>> == 32);
/// std::vector<rocmtpl::sym_expr> sizes = shape::to_value();   // {M, 64}
/// @endcode

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

/// @brief A static extent: a size known at compile time, baked into generated sources.
/// @tparam V the extent, at least 0.
template <std::int64_t V>
struct ext {
  static_assert(V >= 0,
                "rocmtpl: ext: a static extent must be non-negative; use a size >= 0, or sym<\"name\"> for a size "
                "known only at run time");
  /// @brief The extent.
  static constexpr std::int64_t value = V;
  /// @brief The runtime value: the constant V.
  [[nodiscard]] static sym_expr to_value() { return sym_expr(V); }
};

/// @brief A symbolic size: a named size known at run time (an `int64_t` size argument of the kernel).
/// @tparam Name a C identifier, e.g. `sym<"M">`, not a C/C++ keyword and not an entry point ABI name
/// (see is_valid_name()).
template <fixed_string Name>
struct sym {
  static_assert(is_identifier(Name.view()),
                "rocmtpl: sym: a symbol name must be a C identifier; use letters, digits and '_', not starting "
                "with a digit");
  static_assert(!is_cpp_keyword(Name.view()), "rocmtpl: sym: a symbol name must not be a C or C++ keyword; rename it");
  static_assert(!is_entry_abi_name(Name.view()),
                "rocmtpl: sym: workspace_size, workspace and stream are entry point parameters; rename the symbol");
  /// @brief The symbol's name.
  static constexpr std::string_view name = Name.view();
  /// @brief The runtime value: the symbol `name`.
  [[nodiscard]] static sym_expr to_value() { return sym_expr::symbol(name); }
};

namespace detail {
template <class T>
inline constexpr bool is_ext = false;
template <std::int64_t V>
inline constexpr bool is_ext<ext<V>> = true;

template <class T>
inline constexpr bool is_sym = false;
template <fixed_string Name>
inline constexpr bool is_sym<sym<Name>> = true;
}  // namespace detail

/// @brief A static extent type `ext<V>`.
template <class D>
concept static_dim = detail::is_ext<D>;

/// @brief A symbolic size type `sym<"Name">`.
template <class D>
concept symbolic_dim = detail::is_sym<D>;

/// @brief A dimension type: `ext<V>` or `sym<"Name">`.
template <class D>
concept dim_type = static_dim<D> || symbolic_dim<D>;

/// @brief A list of dimensions (the sizes or the strides of a compile-time layout).
/// @tparam Dims each `ext<V>` or `sym<"Name">`.
template <dim_type... Dims>
struct dims {
  /// @brief Number of dimensions.
  static constexpr std::size_t rank = sizeof...(Dims);
  /// @brief Number of static extents.
  static constexpr std::size_t static_count = (std::size_t{0} + ... + (static_dim<Dims> ? 1U : 0U));
  /// @brief Number of symbolic sizes.
  static constexpr std::size_t symbolic_count = rank - static_count;
  /// @brief True when every dimension is a static extent (also for rank 0).
  static constexpr bool all_static = symbolic_count == 0;

  /// @brief The I-th dimension type.
  template <std::size_t I>
  requires(I < rank) using at = std::tuple_element_t<I, std::tuple<Dims...>>;

  /// @brief The runtime value: one sym_expr per dimension, in order.
  [[nodiscard]] static std::vector<sym_expr> to_value() { return {Dims::to_value()...}; }

  /// @brief Product of all dimensions as an expression (1 for rank 0).
  /// @throws evaluation_error when the product of the static extents overflows int64_t.
  [[nodiscard]] static sym_expr numel() { return product(to_value()); }

  /// @brief Names of the symbolic dimensions, sorted and unique.
  [[nodiscard]] static std::vector<std::string> free_symbols() {
    std::vector<std::string> names;
    (
        [&] {
          if constexpr (symbolic_dim<Dims>) names.emplace_back(Dims::name);
        }(),
        ...);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }
};

namespace detail {
template <class T>
inline constexpr bool is_dims = false;
template <class... Dims>
inline constexpr bool is_dims<dims<Dims...>> = true;

struct static_product_result {
  std::int64_t value;
  bool overflow;
};

template <std::int64_t... V>
consteval static_product_result static_product_of() {
  static_product_result r{1, false};
  ((r.overflow = r.overflow || __builtin_mul_overflow(r.value, V, &r.value)), ...);
  return r;
}

template <class T>
struct static_product_impl;
template <std::int64_t... V>
struct static_product_impl<dims<ext<V>...>> {
  static constexpr static_product_result result = static_product_of<V...>();
  static_assert(!result.overflow,
                "rocmtpl: static_product: the product of the static extents overflows int64_t; use smaller extents "
                "or a sym<\"name\"> for one of them");
  static constexpr std::int64_t value = result.value;
};
}  // namespace detail

/// @brief A `dims<...>` type.
template <class T>
concept dim_list = detail::is_dims<T>;

/// @brief A `dims<...>` whose every dimension is a static extent.
template <class T>
concept static_dim_list = dim_list<T> && T::all_static;

/// @brief True for `ext<V>` and for `dims<...>` of static extents only (rank 0 included);
/// false for `sym<...>`, a `dims<...>` with a symbol, and any other type.
template <class T>
inline constexpr bool is_static_v = static_dim<T> || static_dim_list<T>;

/// @brief Product of the extents of an all-static `dims<...>` (1 for rank 0); overflow is a compile error.
template <static_dim_list Dims>
inline constexpr std::int64_t static_product_v = detail::static_product_impl<Dims>::value;

/// @brief The extents of an all-static `dims<...>` as an array.
template <static_dim_list Dims>
inline constexpr auto static_extents_v = []<std::int64_t... V>(dims<ext<V>...>*) {
  return std::array<std::int64_t, sizeof...(V)>{V...};
}
(static_cast<Dims*>(nullptr));

}  // namespace rocmtpl

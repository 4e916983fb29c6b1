// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief hints: values of size symbols keyed by the symbols as template arguments, so that a
/// typed template (kernel/typed_template.hpp) checks them against its signature at compile time: a
/// hint for a symbol the signature does not have, or a symbol without a hint, is a compile error
/// naming it (`hint_for_unknown_size_symbol<"Q", "M">`, `size_symbol_without_hint<"M">`).
///
/// @code{.cpp}
/// auto caller = gemm.generate(config, rocmtpl::hints<"M">{8192});
/// auto tuned = rocmtpl::runtime::autotune(gemm, rocmtpl::hints<"M", "N">{8192, 4096}, options);
/// @endcode

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

namespace detail {
template <fixed_string Symbol>
struct hint_value {
  using type = std::int64_t;
};
template <fixed_string... Symbols>
constexpr bool distinct_symbols() {
  const std::array<std::string_view, sizeof...(Symbols)> names{Symbols.view()...};
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j) {
      if (names[i] == names[j]) return false;
    }
  }
  return true;
}
}  // namespace detail

/// @brief Values of the size symbols `Symbols`, in that order: `hints<"M", "N">{8192, 4096}`.
template <fixed_string... Symbols>
struct hints {
  static_assert(detail::distinct_symbols<Symbols...>(), "rocmtpl: hints: give each size symbol once");
  std::array<std::int64_t, sizeof...(Symbols)> values{};  ///< the values, in the order of Symbols

  /// @brief One value per symbol.
  constexpr hints(typename detail::hint_value<Symbols>::type... v) noexcept  // NOLINT: implicit by design
      : values{v...} {}

  /// @brief The symbols, in order.
  static constexpr std::array<std::string_view, sizeof...(Symbols)> symbols{Symbols.view()...};

  /// @brief The hints as the runtime-value route takes them.
  [[nodiscard]] size_hints to_map() const {
    size_hints out;
    for (std::size_t i = 0; i < values.size(); ++i) out.emplace(std::string(symbols[i]), values[i]);
    return out;
  }
};

/// @brief A typed hint names a size symbol the template does not have (the symbol, then the
/// template's symbols).
template <fixed_string Symbol, fixed_string TemplateSymbols>
struct hint_for_unknown_size_symbol {
  static_assert(detail::always_false<Symbol.size()>,
                "rocmtpl: typed_template: a hint names a size symbol the template does not have (the symbol and "
                "the template's symbols in the instantiation above); fix its spelling or remove it");
};
/// @brief A size symbol of the template has no typed hint.
template <fixed_string Symbol>
struct size_symbol_without_hint {
  static_assert(detail::always_false<Symbol.size()>,
                "rocmtpl: typed_template: a size symbol of the template has no hint (in the instantiation above); "
                "give hints<...> a value for every size symbol");
};

namespace detail {

// The signature's size symbols, "M, N", for diagnostics.
template <class Signature>
struct size_symbols_text {
  static constexpr auto text = [] {
    static_string<512> s;
    for (const auto& p : Signature::parameters) {
      if (p.kind != param_kind::size) continue;
      if (s.size() != 0) s += ", ";
      s += p.name;
    }
    if (s.size() == 0) s += "none";
    return s;
  }();
  static constexpr auto fixed = to_fixed_string<text.size()>(text.view());
};

template <class Signature>
constexpr bool has_size_symbol(std::string_view name) {
  for (const auto& p : Signature::parameters) {
    if (p.kind == param_kind::size && p.name == name) return true;
  }
  return false;
}

template <class Signature, fixed_string Symbol>
constexpr bool check_hint() {
  if constexpr (!has_size_symbol<Signature>(Symbol.view())) {
    (void)hint_for_unknown_size_symbol<Symbol, size_symbols_text<Signature>::fixed>{};
    return false;
  } else {
    return true;
  }
}

template <class Param, fixed_string... Symbols>
constexpr bool check_hinted() {
  if constexpr (Param::kind == param_kind::size && ((Param::name != Symbols.view()) && ...)) {
    (void)size_symbol_without_hint<Param::fixed_name>{};
    return false;
  } else {
    return true;
  }
}

template <class Params, fixed_string... Symbols>
struct check_all_hinted;
template <class... P, fixed_string... Symbols>
struct check_all_hinted<type_list<P...>, Symbols...> {
  static constexpr bool value = (check_hinted<P, Symbols...>() && ...);
};

/// True when `Symbols` are exactly the signature's size symbols (in any order); else the
/// diagnostics of the unknown and the missing ones.
template <class Signature, fixed_string... Symbols>
constexpr bool hints_match() {
  constexpr bool known = (check_hint<Signature, Symbols>() && ...);
  constexpr bool complete = check_all_hinted<typename Signature::params, Symbols...>::value;
  return known && complete;
}

}  // namespace detail

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief problem_descriptor: a typed description of a tuning problem. The autotuner stores it
/// beside the problem's tuning key (as JSON, runtime/db/descriptor_json.hpp) and tools read it back
/// (the export of pre-tuned kernels), so that nobody parses a problem's text or renders candidates
/// again to learn what a problem was. A policy offers one through `describe_problem(template, hints)`,
/// found by argument-dependent lookup (templates/gemm/descriptor.hpp has the GEMM's).

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>

namespace rocmtpl {

/// @brief An enumeration field of a descriptor and its text form (what the JSON holds).
/// @tparam E the enumeration, `const` when the descriptor is visited read-only.
template <class E>
struct enum_field {
  E* value;                                               ///< the field
  std::string_view (*to_text)(std::remove_const_t<E>);    ///< its name, e.g. `name(dtype)`
  std::remove_const_t<E> (*from_text)(std::string_view);  ///< the inverse; throws on an unknown name
};

/// @brief A typed problem description: `T::kind` names the family ("gemm"), and
/// `T::visit_fields(self, f)` calls `f(name, field)` for every field in a fixed order, on a const or
/// a mutable `T`. A field is an integer, a floating-point number, a bool, a std::string, a
/// std::vector<std::string> or an enum_field.
template <class T>
concept problem_descriptor = std::default_initializable<T> && requires(T& t, const T& c) {
  { T::kind } -> std::convertible_to<std::string_view>;
  T::visit_fields(t, [](std::string_view, auto&&) {});
  T::visit_fields(c, [](std::string_view, auto&&) {});
};

}  // namespace rocmtpl

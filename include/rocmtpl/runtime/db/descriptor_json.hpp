// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The JSON form of a problem_descriptor (core/problem_descriptor.hpp), which the tuning
/// database keeps beside a problem's key: `{"kind": "gemm", "m": 4096, ..., "dtype": "float16"}`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/problem_descriptor.hpp>

namespace rocmtpl::runtime {

namespace detail {
template <class T>
inline constexpr bool is_enum_field = false;
template <class E>
inline constexpr bool is_enum_field<enum_field<E>> = true;
}  // namespace detail

/// @brief The JSON text of @p d: its kind and every field by name (enumerations by their names).
template <problem_descriptor T>
[[nodiscard]] std::string descriptor_json(const T& d) {
  nlohmann::json j{{"kind", std::string(T::kind)}};
  T::visit_fields(d, [&](std::string_view name, const auto& field) {
    using F = std::remove_cvref_t<decltype(field)>;
    if constexpr (detail::is_enum_field<F>) {
      j[std::string(name)] = std::string(field.to_text(*field.value));
    } else {
      j[std::string(name)] = field;
    }
  });
  return j.dump();
}

/// @brief Reads a descriptor written by descriptor_json(): nullopt when @p text is empty or of
/// another kind.
/// @throws invalid_argument_error naming the field when the text is not JSON, a field is missing or
/// has another type, or an enumeration's name is unknown.
template <problem_descriptor T>
[[nodiscard]] std::optional<T> read_descriptor(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw invalid_argument_error("rocmtpl: problem descriptor: not a JSON object: " + std::string(text));
  }
  if (j.value("kind", std::string()) != T::kind) return std::nullopt;
  T d;
  T::visit_fields(d, [&](std::string_view name, auto&& field) {
    using F = std::remove_cvref_t<decltype(field)>;
    const auto it = j.find(std::string(name));
    if (it == j.end()) {
      throw invalid_argument_error("rocmtpl: problem descriptor '" + std::string(T::kind) + "': no field '" +
                                   std::string(name) + "' in " + std::string(text));
    }
    try {
      if constexpr (detail::is_enum_field<F>) {
        *field.value = field.from_text(it->template get<std::string>());
      } else {
        field = it->template get<F>();
      }
    } catch (const nlohmann::json::exception& e) {
      throw invalid_argument_error("rocmtpl: problem descriptor '" + std::string(T::kind) + "': field '" +
                                   std::string(name) + "': " + e.what());
    } catch (const invalid_argument_error& e) {  // an enumeration's unknown name
      throw invalid_argument_error("rocmtpl: problem descriptor '" + std::string(T::kind) + "': field '" +
                                   std::string(name) + "': " + e.what());
    }
  });
  return d;
}

}  // namespace rocmtpl::runtime

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Names in generated code: the C identifier rule, the C/C++ keywords and the entry point's
/// ABI names that no user name may take, and the renaming of user names on their way into
/// generated code (hygiene, issue 8).
///
/// Generated code is hygienic by renaming: every identifier that comes from the user (size
/// symbols, tensor names that become parameters) is written as `u_<name>`, and no identifier
/// that a template or the library writes itself starts with `u_`. So a user name never captures
/// an internal one (`p`, `block_m`, `split_k`, `stream`, `int64_t`, ...) and two user names never
/// meet one internal name. Human-facing text (comments, error messages, `to_string()`) keeps the
/// plain name.

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

/// @brief True when `text` is a C identifier: [A-Za-z_][A-Za-z0-9_]*.
[[nodiscard]] constexpr bool is_identifier(std::string_view text) noexcept {
  if (text.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(text.front())) return false;
  return std::all_of(text.begin(), text.end(), [&](char c) { return alpha(c) || digit(c); });
}

/// @brief The keywords of C11 and C++20 and the C++ alternative tokens (`and`, `bitor`, ...):
/// identifiers that can never name a variable in generated code.
inline constexpr auto cpp_keywords = std::to_array<std::string_view>(
    {// C++20 keywords
     "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t",
     "class", "concept", "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
     "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
     "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
     "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", "public", "register",
     "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast",
     "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
     "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
     // C++ alternative tokens
     "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor", "xor_eq",
     // C11 keywords that C++20 lacks
     "restrict", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
     "_Static_assert", "_Thread_local"});

/// @brief The parameter names every generated entry point ends with (docs/ARCHITECTURE.md's C ABI).
inline constexpr std::array<std::string_view, 3> entry_abi_names{"workspace_size", "workspace", "stream"};

/// @brief The prefix every user name takes in generated code; no internal identifier starts with it.
inline constexpr std::string_view user_identifier_prefix = "u_";

/// @brief True for a C11 or C++20 keyword or alternative token (see cpp_keywords).
[[nodiscard]] constexpr bool is_cpp_keyword(std::string_view name) noexcept {
  return std::find(cpp_keywords.begin(), cpp_keywords.end(), name) != cpp_keywords.end();
}

/// @brief True for `workspace_size`, `workspace` and `stream`.
[[nodiscard]] constexpr bool is_entry_abi_name(std::string_view name) noexcept {
  return std::find(entry_abi_names.begin(), entry_abi_names.end(), name) != entry_abi_names.end();
}

/// @brief What is wrong with `name` as a name in generated code, as the middle of an error
/// message ("is not a C identifier; ..."); empty when the name is fine.
[[nodiscard]] constexpr std::string_view identifier_problem(std::string_view name) noexcept {
  if (!is_identifier(name)) return "is not a C identifier; use letters, digits and '_', not starting with a digit";
  if (is_cpp_keyword(name)) return "is a C or C++ keyword; choose another name";
  if (is_entry_abi_name(name)) {
    return "is a parameter of every entry point (workspace_size, workspace, stream); choose another name";
  }
  return {};
}

/// @brief True when `name` may name a symbol, tensor or parameter: a C identifier that is not a
/// keyword and not one of the entry point's ABI names.
[[nodiscard]] constexpr bool is_valid_name(std::string_view name) noexcept { return identifier_problem(name).empty(); }

/// @brief Throws unless is_valid_name(name).
/// @param entity what the name names, for the message (`sym_expr: symbol name`, `buffer: name`)
/// @throws invalid_argument_error `rocmtpl: ENTITY 'NAME' is ...; FIX`
void check_name(std::string_view entity, std::string_view name);

/// @brief The identifier a user name has in generated code: `u_<name>`.
[[nodiscard]] std::string user_identifier(std::string_view name);

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/ir/identifier-inl.hpp>
#endif

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

/// @brief Names that the C library, the GPU runtime (HIP, or CUDA through the portable header) and
/// the generated code's own globals declare at global scope in a generated translation unit: a name
/// that generated code exports as it is (a module's or kernel's entry point, which cannot take the
/// `u_` prefix) must not be one. User names inside generated code need no such list: they are
/// renamed (user_identifier()). The list holds the C library's functions, objects and types a
/// module could plausibly be named after and the runtimes' built-ins; is_runtime_name() adds the
/// prefixes and families the runtimes keep (`hip...`, `cuda...`, `__...`, `sinf`, `float4`, ...).
inline constexpr auto runtime_names = std::to_array<std::string_view>(
    {// <cstdlib>
     "abort", "abs", "aligned_alloc", "at_quick_exit", "atexit", "atof", "atoi", "atol", "atoll", "bsearch", "calloc",
     "div", "exit", "free", "getenv", "labs", "ldiv", "llabs", "lldiv", "malloc", "posix_memalign", "qsort",
     "quick_exit", "rand", "realloc", "srand", "strtod", "strtof", "strtol", "strtold", "strtoll", "strtoul",
     "strtoull", "system",
     // <cstdio>
     "fclose", "feof", "ferror", "fflush", "fgetc", "fgets", "fopen", "fprintf", "fputc", "fputs", "fread", "fscanf",
     "fseek", "ftell", "fwrite", "getc", "getchar", "perror", "printf", "putc", "putchar", "puts", "remove", "rename",
     "rewind", "scanf", "setvbuf", "snprintf", "sprintf", "sscanf", "stderr", "stdin", "stdout", "tmpfile", "vfprintf",
     "vprintf", "vsnprintf", "vsprintf",
     // <cstring>
     "memchr", "memcmp", "memcpy", "memmove", "memset", "strcat", "strchr", "strcmp", "strcpy", "strdup", "strerror",
     "strlen", "strncat", "strncmp", "strncpy", "strrchr", "strstr", "strtok",
     // <cassert>, <cerrno>, <csignal>, <csetjmp>, <ctime>, <cstddef>, <cstdint>
     "assert", "errno", "signal", "raise", "setjmp", "longjmp", "time", "clock", "difftime", "offsetof", "NULL",
     "size_t", "ptrdiff_t", "max_align_t", "nullptr_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
     "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "std",
     // the GPU runtimes' device built-ins
     "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "min", "max", "clock64", "half", "half2",
     // the generated code's own globals (rocm_template::globals()); the rocmtpl_ prefix is refused apart
     "PT_EXPORT", "bfloat16"});

/// @brief The C math functions, also in their `f` and `l` forms (`sinf`, `sinl`) and the GPU
/// runtimes' fast forms (`__sinf`, caught by the `__` prefix).
inline constexpr auto runtime_math_names = std::to_array<std::string_view>(
    {"acos",      "acosh",    "asin",  "asinh",     "atan",  "atan2",  "atanh",  "cbrt",    "ceil",
     "copysign",  "cos",      "cosh",  "erf",       "erfc",  "exp",    "exp10",  "exp2",    "expm1",
     "fabs",      "fdim",     "floor", "fma",       "fmax",  "fmin",   "fmod",   "frexp",   "hypot",
     "ilogb",     "isfinite", "isinf", "isnan",     "ldexp", "lgamma", "llrint", "llround", "log",
     "log10",     "log1p",    "log2",  "logb",      "lrint", "lround", "modf",   "nan",     "nearbyint",
     "nextafter", "pow",      "rcbrt", "remainder", "rint",  "round",  "rsqrt",  "scalbn",  "signbit",
     "sin",       "sincos",   "sinh",  "sqrt",      "tan",   "tanh",   "tgamma", "trunc"});

/// @brief True for a name of runtime_names or runtime_math_names (bare or with an `f` or `l`
/// suffix), a vector type of the runtimes and its maker (`float4`, `make_float4`, `uchar2`), or a
/// name with a prefix the runtimes or the implementation keep: `hip`, `cuda`, `cu` and `nv` before
/// an upper-case letter or `_` (`hipMalloc`, `hip_bfloat16`, `cudaFree`, `cuInit`), `atomic` before
/// an upper-case letter, `__`, `_` before an upper-case letter.
[[nodiscard]] constexpr bool is_runtime_name(std::string_view name) noexcept {
  auto upper_or_underscore = [&](std::size_t at) {
    return at < name.size() && ((name[at] >= 'A' && name[at] <= 'Z') || name[at] == '_');
  };
  auto listed = [](const auto& list, std::string_view n) {
    return std::find(list.begin(), list.end(), n) != list.end();
  };
  if (listed(runtime_names, name) || listed(runtime_math_names, name)) return true;
  if ((name.ends_with('f') || name.ends_with('l')) && listed(runtime_math_names, name.substr(0, name.size() - 1))) {
    return true;
  }
  if (name.starts_with("__") || (name.starts_with('_') && upper_or_underscore(1) && name[1] != '_')) return true;
  if ((name.starts_with("hip") && upper_or_underscore(3)) || (name.starts_with("cuda") && upper_or_underscore(4))) {
    return true;
  }
  if ((name.starts_with("cu") || name.starts_with("nv")) && upper_or_underscore(2)) return true;
  if (name.starts_with("atomic") && upper_or_underscore(6) && name[6] != '_') return true;
  std::string_view vec = name.starts_with("make_") ? name.substr(5) : name;
  if (vec.size() >= 2 && vec.back() >= '1' && vec.back() <= '4') {
    vec.remove_suffix(1);
    for (std::string_view t : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong",
                               "ulonglong", "float", "double"}) {
      if (vec == t) return true;
    }
  }
  return false;
}

/// @brief What is wrong with `name` as a name that generated code exports as it is (a module's or a
/// kernel's entry point): identifier_problem(), then `main`, then is_runtime_name(); empty when fine.
[[nodiscard]] constexpr std::string_view exported_name_problem(std::string_view name) noexcept {
  if (auto problem = identifier_problem(name); !problem.empty()) return problem;
  if (name == "main") return "is the program's entry point; choose another name";
  if (is_runtime_name(name)) {
    return "is declared by the C library or the GPU runtime in every generated source (free, hipMalloc, sinf, "
           "float4, __syncthreads, ...): an entry point of that name does not compile; choose another name";
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

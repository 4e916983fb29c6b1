// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Element types: runtime `dtype` values, compile-time `dtype_tag` types, sizes and HIP spellings.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

/// @brief Element type of a tensor (the subset of torch dtypes the reference maps to HIP types).
enum class dtype : std::uint8_t { f16, bf16, f32, f64, i8, u8, i32, i64, boolean, f8e4m3, f8e5m2 };

namespace detail {
struct dtype_info {
  dtype value;
  std::string_view name;          // torch-like name, used in signatures and the CLI
  std::size_t size;               // bytes per element
  std::string_view storage_type;  // DTYPE_TO_ROCM_TYPE: pointer type in the C ABI
  std::string_view compute_type;  // the arithmetic type a kernel uses
  bool is_floating;
};

// Storage spellings follow rocm_utils.DTYPE_TO_ROCM_TYPE (fp16/bf16 -> uint16_t, fp8 -> uint8_t);
// compute spellings follow the reference's globals (`__half`, `hip_bfloat16` aliased `bfloat16`).
inline constexpr std::array<dtype_info, 11> dtype_table{{
    {dtype::f16, "float16", 2, "uint16_t", "__half", true},
    {dtype::bf16, "bfloat16", 2, "uint16_t", "hip_bfloat16", true},
    {dtype::f32, "float32", 4, "float", "float", true},
    {dtype::f64, "float64", 8, "double", "double", true},
    {dtype::i8, "int8", 1, "int8_t", "int8_t", false},
    {dtype::u8, "uint8", 1, "uint8_t", "uint8_t", false},
    {dtype::i32, "int32", 4, "int32_t", "int32_t", false},
    {dtype::i64, "int64", 8, "int64_t", "int64_t", false},
    {dtype::boolean, "bool", 1, "bool", "bool", false},
    {dtype::f8e4m3, "float8_e4m3fnuz", 1, "uint8_t", "uint8_t", true},
    {dtype::f8e5m2, "float8_e5m2fnuz", 1, "uint8_t", "uint8_t", true},
}};

[[nodiscard]] const dtype_info& info(dtype d);
}  // namespace detail

/// @brief Bytes per element.
/// @throws invalid_argument_error for a value outside the enumeration.
[[nodiscard]] inline std::size_t element_size(dtype d) { return detail::info(d).size; }

/// @brief Torch-like name ("float16", "bfloat16", "float32", ...).
[[nodiscard]] inline std::string_view name(dtype d) { return detail::info(d).name; }

/// @brief The C ABI pointer element type (the reference's DTYPE_TO_ROCM_TYPE): `uint16_t` for f16/bf16.
[[nodiscard]] inline std::string_view storage_type(dtype d) { return detail::info(d).storage_type; }

/// @brief The arithmetic type a kernel uses: `__half`, `hip_bfloat16`, `float`, ...
[[nodiscard]] inline std::string_view compute_type(dtype d) { return detail::info(d).compute_type; }

/// @brief True for floating-point element types (fp8 included).
[[nodiscard]] inline bool is_floating(dtype d) { return detail::info(d).is_floating; }

/// @brief Parses a name as printed by name(), plus the short forms f16, bf16, f32, f64, fp16, fp32, half, float.
/// @throws invalid_argument_error naming the text and the accepted names.
[[nodiscard]] dtype parse_dtype(std::string_view text);

/// @brief Prints name(d).
inline std::ostream& operator<<(std::ostream& os, dtype d) { return os << name(d); }

/// @brief The number that stands for a dtype wherever it crosses into compiled or generated code:
/// arguments of the runtime's fill/compare kernels, the benchmark worker's protocol, and generated
/// sources (through dtype_code_defines()). It is the enumerator's value: one numbering, no table
/// to keep in step. f16 0, bf16 1, f32 2, f64 3, i8 4, u8 5, i32 6, i64 7, bool 8, fp8 9 and 10.
[[nodiscard]] constexpr int dtype_code(dtype d) noexcept { return static_cast<int>(d); }

/// @brief The macro generated sources use for a dtype's code: `ROCMTPL_DTYPE_` and the upper-case
/// name ("ROCMTPL_DTYPE_FLOAT16", "ROCMTPL_DTYPE_BFLOAT16", "ROCMTPL_DTYPE_FLOAT32", ...).
/// @throws invalid_argument_error for a value outside the enumeration.
[[nodiscard]] std::string dtype_code_macro(dtype d);

/// @brief `#define ROCMTPL_DTYPE_<NAME> <dtype_code>` for every dtype, one per line: the text a
/// generated source includes to speak the same numbering as the host.
[[nodiscard]] std::string dtype_code_defines();

/// @brief Inverse of dtype_code().
/// @throws invalid_argument_error for a number that is no dtype's code.
[[nodiscard]] dtype dtype_from_code(std::int64_t code);

/// @brief Compile-time dtype: a tag type carrying the runtime value.
template <dtype D>
struct dtype_tag {
  static constexpr dtype value = D;  ///< the runtime value
  /// @brief The runtime value (lossless conversion of the type).
  [[nodiscard]] static constexpr dtype to_value() noexcept { return D; }
};

using f16_t = dtype_tag<dtype::f16>;        ///< float16 tag
using bf16_t = dtype_tag<dtype::bf16>;      ///< bfloat16 tag
using f32_t = dtype_tag<dtype::f32>;        ///< float32 tag
using f64_t = dtype_tag<dtype::f64>;        ///< float64 tag
using i8_t = dtype_tag<dtype::i8>;          ///< int8 tag
using u8_t = dtype_tag<dtype::u8>;          ///< uint8 tag
using i32_t = dtype_tag<dtype::i32>;        ///< int32 tag
using i64_t = dtype_tag<dtype::i64>;        ///< int64 tag
using bool_t = dtype_tag<dtype::boolean>;   ///< bool tag
using f8e4m3_t = dtype_tag<dtype::f8e4m3>;  ///< float8_e4m3fnuz tag
using f8e5m2_t = dtype_tag<dtype::f8e5m2>;  ///< float8_e5m2fnuz tag

namespace detail {
template <class T>
inline constexpr bool is_dtype_tag = false;
template <dtype D>
inline constexpr bool is_dtype_tag<dtype_tag<D>> = true;
}  // namespace detail

/// @brief A compile-time dtype tag.
template <class T>
concept dtype_tag_type = detail::is_dtype_tag<T>;

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/ir/dtype-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Pieces every template's translation unit shares: the size symbols appended to a kernel's
/// parameter and argument lists, and the overflow-checked size arithmetic of entry points (the
/// includes and globals are parts of their own: codegen/rendered_source.hpp).

#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

// Appends `, int64_t S` to `params` and `, S` to `args` for each size symbol S.
void append_size_symbols(std::string& params, std::string& args, const std::vector<std::string>& symbols);

// The grid-stride loop of the elementwise and pointwise kernels' bodies (one line each, written at
// the body's indentation), shared with the constant-evaluation renderer (templates/static_source.hpp).
inline constexpr std::string_view grid_stride_step_line =
    "const int64_t step = static_cast<int64_t>(gridDim.x) * block_threads;";
inline constexpr std::string_view grid_stride_loop_line =
    "for (int64_t i = static_cast<int64_t>(blockIdx.x) * block_threads + threadIdx.x; i < total; i += step) {";

// Host helpers of generated entry points (in their anonymous namespace): products of sizes that
// refuse to wrap, so that an entry point returns ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT instead of
// launching with a wrapped element count, byte count or grid. Left out of device-only compiles.
inline constexpr std::string_view checked_size_helpers_text =
    R"hip(// Overflow-checked size products (host): false when the exact result does not fit.
#if !defined(ROCMTPL_DEVICE_ONLY)
[[maybe_unused]] inline bool rocmtpl_checked_mul(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
[[maybe_unused]] inline bool rocmtpl_checked_bytes(int64_t count, int64_t factor, size_t element_size, size_t& out) {
    size_t n = 0;
    return count >= 0 && factor >= 0 &&
           !__builtin_mul_overflow(static_cast<size_t>(count), static_cast<size_t>(factor), &n) &&
           !__builtin_mul_overflow(n, element_size, &out);
}
// Ceiling division of a non-negative size that cannot wrap (a + b - 1 could).
[[maybe_unused]] inline int64_t rocmtpl_cdiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
#endif  // !ROCMTPL_DEVICE_ONLY
)hip";

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/detail/source_parts-inl.hpp>
#endif

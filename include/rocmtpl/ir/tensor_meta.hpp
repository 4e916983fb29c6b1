// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief tensor_meta: concrete (hinted) shape of a buffer, what benchmarking allocates.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>

namespace rocmtpl {

/// @brief Concrete description of a tensor for benchmarking (the reference's TensorMeta).
struct tensor_meta {
  std::string name;                   ///< the buffer's name
  dtype type = dtype::f32;            ///< element type
  std::vector<std::int64_t> sizes;    ///< sizes, one per dimension
  std::vector<std::int64_t> strides;  ///< strides in elements
  std::int64_t offset = 0;            ///< offset of the first element, in elements

  /// @brief Resolves a buffer's symbolic layout with size hints.
  /// @throws evaluation_error naming the buffer and the symbol that has no hint, or the expression
  /// whose value overflows int64_t.
  [[nodiscard]] static tensor_meta from_buffer(const buffer& b, const size_hints& hints);

  /// @brief Number of elements.
  /// @throws evaluation_error naming the tensor when a size is negative or the product overflows int64_t.
  [[nodiscard]] std::int64_t numel() const;

  /// @brief Elements the allocation must hold (offset + span of the strides): 0 plus the offset
  /// when a size is 0.
  /// @throws evaluation_error naming the tensor when a size, stride or the offset is negative, or the
  /// extent overflows int64_t.
  [[nodiscard]] std::int64_t storage_elements() const;

  /// @brief Bytes the allocation must hold.
  /// @throws evaluation_error naming the tensor when storage_elements() throws or the byte count
  /// overflows int64_t.
  [[nodiscard]] std::size_t storage_bytes() const;

  /// @brief Member-wise equality.
  friend bool operator==(const tensor_meta&, const tensor_meta&) = default;

 private:
  [[noreturn]] void fail(const std::string& what) const;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/ir/tensor_meta-inl.hpp>
#endif

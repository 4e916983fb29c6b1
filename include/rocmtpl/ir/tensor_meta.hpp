// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief tensor_meta: concrete (hinted) shape of a buffer, what benchmarking allocates.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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
  [[nodiscard]] static tensor_meta from_buffer(const buffer& b, const size_hints& hints) {
    auto value = [&](const sym_expr& e, const char* what) {
      try {
        return e.evaluate(hints);
      } catch (const evaluation_error& err) {
        throw evaluation_error("rocmtpl: tensor_meta: " + std::string(what) + " of '" + b.name() + "' " +
                               b.get_layout().to_string() + ": " + err.what());
      }
    };
    tensor_meta m{b.name(), b.type(), {}, {}, value(b.get_layout().offset(), "offset")};
    for (const auto& s : b.sizes()) m.sizes.push_back(value(s, "a size"));
    for (const auto& s : b.strides()) m.strides.push_back(value(s, "a stride"));
    return m;
  }

  /// @brief Number of elements.
  /// @throws evaluation_error naming the tensor when a size is negative or the product overflows int64_t.
  [[nodiscard]] std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto s : sizes) {
      if (s < 0) fail("has a negative size " + std::to_string(s));
      if (__builtin_mul_overflow(n, s, &n)) fail("has more elements than int64_t counts");
    }
    return n;
  }

  /// @brief Elements the allocation must hold (offset + span of the strides): 0 plus the offset
  /// when a size is 0.
  /// @throws evaluation_error naming the tensor when a size, stride or the offset is negative, or the
  /// extent overflows int64_t.
  [[nodiscard]] std::int64_t storage_elements() const {
    if (offset < 0) fail("has a negative offset " + std::to_string(offset));
    if (strides.size() != sizes.size())
      fail("has " + std::to_string(sizes.size()) + " sizes but " + std::to_string(strides.size()) + " strides");
    for (auto s : sizes) {
      if (s < 0) fail("has a negative size " + std::to_string(s));
      if (s == 0) return offset;
    }
    std::int64_t span = 1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (strides[i] < 0) fail("has a negative stride " + std::to_string(strides[i]));
      std::int64_t step = 0;
      if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) || __builtin_add_overflow(span, step, &span)) {
        fail("spans more elements than int64_t counts");
      }
    }
    if (__builtin_add_overflow(offset, span, &span)) fail("spans more elements than int64_t counts");
    return span;
  }

  /// @brief Bytes the allocation must hold.
  /// @throws evaluation_error naming the tensor when storage_elements() throws or the byte count
  /// overflows int64_t.
  [[nodiscard]] std::size_t storage_bytes() const {
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(storage_elements(), static_cast<std::int64_t>(element_size(type)), &bytes)) {
      fail("needs more bytes than int64_t counts");
    }
    return static_cast<std::size_t>(bytes);
  }

  /// @brief Member-wise equality.
  friend bool operator==(const tensor_meta&, const tensor_meta&) = default;

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw evaluation_error("rocmtpl: tensor_meta: '" + name + "' " + what +
                           "; sizes, strides and offset must be non-negative and its extent must fit in int64_t");
  }
};

}  // namespace rocmtpl

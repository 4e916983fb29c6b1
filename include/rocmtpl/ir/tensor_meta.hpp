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
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;

  /// @brief Resolves a buffer's symbolic layout with size hints.
  /// @throws evaluation_error naming a symbol that has no hint.
  [[nodiscard]] static tensor_meta from_buffer(const buffer& b, const size_hints& hints) {
    tensor_meta m{b.name(), b.type(), {}, {}, b.get_layout().offset().evaluate(hints)};
    for (const auto& s : b.sizes()) m.sizes.push_back(s.evaluate(hints));
    for (const auto& s : b.strides()) m.strides.push_back(s.evaluate(hints));
    return m;
  }

  /// @brief Number of elements.
  [[nodiscard]] std::int64_t numel() const noexcept {
    std::int64_t n = 1;
    for (auto s : sizes) n *= s;
    return n;
  }

  /// @brief Elements the allocation must hold (offset + span of the strides).
  [[nodiscard]] std::int64_t storage_elements() const noexcept {
    std::int64_t span = 1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == 0) return offset;
      span += (sizes[i] - 1) * strides[i];
    }
    return offset + span;
  }

  /// @brief Bytes the allocation must hold.
  [[nodiscard]] std::size_t storage_bytes() const {
    return static_cast<std::size_t>(storage_elements()) * element_size(type);
  }

  friend bool operator==(const tensor_meta&, const tensor_meta&) = default;
};

}  // namespace rocmtpl

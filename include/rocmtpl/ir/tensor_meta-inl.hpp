// SPDX-License-Identifier: MIT
#pragma once

// The implementation of ir/tensor_meta.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <cstddef>
#include <cstdint>
#include <string>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

ROCMTPL_INLINE tensor_meta tensor_meta::from_buffer(const buffer& b, const size_hints& hints) {
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

ROCMTPL_INLINE std::int64_t tensor_meta::numel() const {
  std::int64_t n = 1;
  for (auto s : sizes) {
    if (s < 0) fail("has a negative size " + std::to_string(s));
    if (__builtin_mul_overflow(n, s, &n)) fail("has more elements than int64_t counts");
  }
  return n;
}

ROCMTPL_INLINE std::int64_t tensor_meta::storage_elements() const {
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

ROCMTPL_INLINE std::size_t tensor_meta::storage_bytes() const {
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(storage_elements(), static_cast<std::int64_t>(element_size(type)), &bytes)) {
    fail("needs more bytes than int64_t counts");
  }
  return static_cast<std::size_t>(bytes);
}

ROCMTPL_INLINE void tensor_meta::fail(const std::string& what) const {
  throw evaluation_error("rocmtpl: tensor_meta: '" + name + "' " + what +
                         "; sizes, strides and offset must be non-negative and its extent must fit in int64_t");
}

}  // namespace rocmtpl

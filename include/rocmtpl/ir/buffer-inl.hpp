// SPDX-License-Identifier: MIT
#pragma once

// The implementation of ir/buffer.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

ROCMTPL_INLINE buffer::buffer(std::string name, rocmtpl::layout layout)
    : name_(std::move(name)), layout_(std::make_shared<const rocmtpl::layout>(std::move(layout))) {
  check_name("buffer: name", name_);
  check_static_extent();
}

ROCMTPL_INLINE bool operator==(const buffer& a, const buffer& b) {
  return a.name_ == b.name_ && (a.layout_ == b.layout_ || *a.layout_ == *b.layout_);
}

// Constant element counts and byte counts must fit in int64_t (sym_expr arithmetic is checked).
ROCMTPL_INLINE void buffer::check_static_extent() const {
  try {
    (void)layout_->numel();
    const auto storage = layout_->storage_size().constant();
    if (storage) {
      std::int64_t bytes = 0;
      if (__builtin_mul_overflow(*storage, static_cast<std::int64_t>(element_size(type())), &bytes)) {
        throw evaluation_error("its storage of " + std::to_string(*storage) +
                               " elements does not fit in int64_t bytes");
      }
    }
  } catch (const evaluation_error& e) {
    throw evaluation_error("rocmtpl: buffer: '" + name_ + "' " + layout_->to_string() + ": sizes overflow int64_t (" +
                           e.what() + "); use smaller sizes");
  }
}

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/gpu/handles.hpp: included at its end (header-only) or compiled once by
// src/runtime/gpu.cpp, after it (so it does not include it back).

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE device_buffer::device_buffer(std::size_t bytes, const gpu_runtime& runtime)
    : runtime_(&runtime), ptr_(runtime.malloc(bytes)), size_(bytes) {}

ROCMTPL_INLINE device_buffer& device_buffer::operator=(device_buffer&& other) noexcept {
  if (this != &other) {
    reset();
    runtime_ = other.runtime_;
    ptr_ = std::exchange(other.ptr_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

ROCMTPL_INLINE void device_buffer::reset() noexcept {
  if (ptr_ != nullptr && runtime_ != nullptr) runtime_->free(ptr_);
  ptr_ = nullptr;
  size_ = 0;
}

ROCMTPL_INLINE void device_buffer::copy_from_host(const void* src, std::optional<std::size_t> bytes) {
  const std::size_t n = checked(bytes);
  runtime_->memcpy_to_device(ptr_, src, n);
}

ROCMTPL_INLINE void device_buffer::copy_to_host(void* dst, std::optional<std::size_t> bytes) const {
  const std::size_t n = checked(bytes);
  runtime_->memcpy_to_host(dst, ptr_, n);
}

ROCMTPL_INLINE std::size_t device_buffer::checked(std::optional<std::size_t> bytes) const {
  const std::size_t n = bytes.value_or(size_);
  if (n > size_) {
    throw out_of_range_error("rocmtpl: device_buffer: copy of " + std::to_string(n) + " bytes into a buffer of " +
                             std::to_string(size_));
  }
  if (runtime_ == nullptr) throw no_gpu_error("copy an empty device_buffer", -1, "the buffer holds no memory");
  return n;
}

}  // namespace rocmtpl::runtime

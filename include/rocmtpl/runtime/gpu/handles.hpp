// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief RAII handles over the GPU runtime: `device_buffer` (device memory), `stream` and
/// `event`, each owned by one move-only object and released on destruction.

#include <cstddef>
#include <optional>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/gpu/error.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>

namespace rocmtpl::runtime {

/// @brief Device memory owned by one object (move-only). Freed on destruction.
class device_buffer {
 public:
  /// @brief No memory.
  device_buffer() noexcept = default;
  /// @brief Allocates `bytes` bytes on the current device.
  /// @throws no_gpu_error without a GPU; gpu_error when out of memory.
  explicit device_buffer(std::size_t bytes, const gpu_runtime& runtime = gpu_runtime::instance());
  /// @brief Takes `other`'s memory; `other` is left empty.
  device_buffer(device_buffer&& other) noexcept
      : runtime_(other.runtime_), ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  /// @brief Frees this buffer's memory, then takes `other`'s; `other` is left empty.
  device_buffer& operator=(device_buffer&& other) noexcept;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { reset(); }

  /// @brief The device pointer (nullptr when empty).
  [[nodiscard]] void* get() const noexcept { return ptr_; }
  /// @brief The device pointer as `T*`.
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }
  /// @brief Size in bytes.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// @brief True when it holds memory.
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  /// @brief Frees the memory now.
  void reset() noexcept;
  /// @brief Copies `bytes` (default: size()) from host memory into the buffer.
  /// @throws out_of_range_error when bytes > size(); no_gpu_error for an empty buffer; gpu_error on failure.
  void copy_from_host(const void* src, std::optional<std::size_t> bytes = std::nullopt);
  /// @brief Copies `bytes` (default: size()) from the buffer into host memory.
  /// @throws out_of_range_error when bytes > size(); no_gpu_error for an empty buffer; gpu_error on failure.
  void copy_to_host(void* dst, std::optional<std::size_t> bytes = std::nullopt) const;

 private:
  [[nodiscard]] std::size_t checked(std::optional<std::size_t> bytes) const;

  const gpu_runtime* runtime_ = nullptr;
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};

namespace detail {

// A runtime object (stream, event) owned by one C++ object: made by `Create`, released by
// `Destroy` (which ignores nullptr, so a moved-from handle releases nothing).
template <void* (gpu_runtime::*Create)() const, void (gpu_runtime::*Destroy)(void*) const noexcept>
class owned_handle {
 public:
  explicit owned_handle(const gpu_runtime& runtime) : runtime_(&runtime), handle_((runtime.*Create)()) {}
  owned_handle(owned_handle&& other) noexcept
      : runtime_(other.runtime_), handle_(std::exchange(other.handle_, nullptr)) {}
  owned_handle& operator=(owned_handle&& other) noexcept {
    if (this != &other) {
      (runtime_->*Destroy)(handle_);
      runtime_ = other.runtime_;
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  owned_handle(const owned_handle&) = delete;
  owned_handle& operator=(const owned_handle&) = delete;
  ~owned_handle() { (runtime_->*Destroy)(handle_); }

  [[nodiscard]] void* get() const noexcept { return handle_; }

 protected:
  [[nodiscard]] const gpu_runtime& runtime() const noexcept { return *runtime_; }

 private:
  const gpu_runtime* runtime_;
  void* handle_;
};

}  // namespace detail

/// @brief A GPU stream owned by one object (move-only).
class stream : public detail::owned_handle<&gpu_runtime::create_stream, &gpu_runtime::destroy_stream> {
 public:
  /// @brief Creates a stream.
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  explicit stream(const gpu_runtime& runtime = gpu_runtime::instance()) : owned_handle(runtime) {}

  /// @brief The cudaStream_t / hipStream_t to pass to kernels (the C ABI's `hipStream_t stream`).
  [[nodiscard]] void* get() const noexcept { return owned_handle::get(); }
  /// @brief Waits for the stream's work.
  /// @throws gpu_error when that work failed.
  void synchronize() const { runtime().synchronize(get()); }
};

/// @brief A GPU timing event owned by one object (move-only).
class event : public detail::owned_handle<&gpu_runtime::create_event, &gpu_runtime::destroy_event> {
 public:
  /// @brief Creates an event.
  /// @throws no_gpu_error without a GPU; gpu_error on failure.
  explicit event(const gpu_runtime& runtime = gpu_runtime::instance()) : owned_handle(runtime) {}

  /// @brief The cudaEvent_t / hipEvent_t.
  [[nodiscard]] void* get() const noexcept { return owned_handle::get(); }
  /// @brief Records the event on `on` (nullptr: the default stream).
  /// @throws gpu_error on failure.
  void record(void* on = nullptr) const { runtime().record_event(get(), on); }
  /// @brief Milliseconds from `start` to this event (waits for this event).
  /// @throws gpu_error when an event was not recorded.
  [[nodiscard]] float elapsed_ms_since(const event& start) const { return runtime().elapsed_ms(start.get(), get()); }
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/gpu/handles-inl.hpp>
#endif

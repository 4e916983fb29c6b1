// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Calling a generated entry point whose signature is known only at run time.
///
/// The C ABI (ARCHITECTURE.md) has only integer-class parameters: tensor pointers, `int64_t` size
/// arguments, integer runtime arguments, `size_t*`, `uint8_t*` and the stream handle. On the
/// System V x86-64 and AAPCS64 ABIs every such parameter occupies one 64-bit integer register or
/// stack slot, so the entry point can be called through a function type taking N `std::uint64_t`
/// slots (narrower runtime arguments are passed sign-extended, the callee reads their low bits).
/// That is what libffi would do for these types, without the dependency.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/error.hpp>
#include <rocmtpl/runtime/shared_library.hpp>

#if !(defined(__x86_64__) || defined(__aarch64__))
#error "rocmtpl: kernel_call: only x86-64 and AArch64 calling conventions are supported"
#endif

namespace rocmtpl::runtime {

/// @brief A generated entry point returned a non-zero status (null argument, unsupported sizes,
/// launch failure). Nothing is thrown across the C ABI; the host turns the code into this.
class kernel_status_error : public error {
 public:
  /// @param kernel the entry point's name
  /// @param status what it returned (never kernel_status::ok)
  kernel_status_error(std::string kernel, kernel_status status)
      : error("rocmtpl: kernel " + kernel + " returned status " + std::to_string(status_code(status)) + " (" +
              std::string(describe(status)) + ")"),
        kernel_(std::move(kernel)),
        status_(status) {}
  /// @brief What the entry point returned.
  [[nodiscard]] kernel_status code() const noexcept { return status_; }
  /// @brief The entry point's name.
  [[nodiscard]] const std::string& kernel() const noexcept { return kernel_; }

 private:
  std::string kernel_;
  kernel_status status_;
};

/// @brief Throws kernel_status_error for any status but kernel_status::ok.
/// @throws kernel_status_error naming `kernel` and the status
inline void check_status(const std::string& kernel, kernel_status status) {
  if (status != kernel_status::ok) throw kernel_status_error(kernel, status);
}

namespace detail {
inline constexpr std::size_t max_call_slots = 48;

template <std::size_t... I>
int call_slots(void* fn, const std::uint64_t* slots, std::index_sequence<I...>) {
  using function = int (*)(decltype((void)I, std::uint64_t{})...);
  return reinterpret_cast<function>(fn)(slots[I]...);
}

template <std::size_t N>
int call_n(void* fn, const std::uint64_t* slots) {
  return call_slots(fn, slots, std::make_index_sequence<N>{});
}

template <std::size_t... N>
constexpr auto make_call_table(std::index_sequence<N...>) {
  return std::array<int (*)(void*, const std::uint64_t*), sizeof...(N)>{&call_n<N>...};
}

inline constexpr auto call_table = make_call_table(std::make_index_sequence<max_call_slots + 1>{});

inline std::uint64_t slot(const void* p) noexcept { return reinterpret_cast<std::uintptr_t>(p); }
inline std::uint64_t slot(std::int64_t v) noexcept { return static_cast<std::uint64_t>(v); }
}  // namespace detail

/// @brief A generated entry point in a loaded library, with its argument counts.
///
/// Call layout: `tensor_count` pointers (inputs then outputs), `extra_count` integers (size
/// arguments then runtime arguments), then workspace_size, workspace, stream.
class kernel_entry {
 public:
  /// @throws symbol_not_found_error when the library has no such symbol.
  kernel_entry(std::shared_ptr<shared_library> library, std::string name, std::size_t tensor_count,
               std::size_t extra_count)
      : library_(std::move(library)), name_(std::move(name)), tensors_(tensor_count), extras_(extra_count) {
    if (tensors_ + extras_ + 3 > detail::max_call_slots) {
      throw invalid_argument_error("rocmtpl: kernel_entry: " + name_ + " has " +
                                   std::to_string(tensors_ + extras_ + 3) + " parameters; at most " +
                                   std::to_string(detail::max_call_slots) + " are supported");
    }
    fn_ = library_->raw_symbol(name_);
  }

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::shared_ptr<shared_library>& library() const noexcept { return library_; }

  /// @brief Calls the entry point and returns its status (no exception for a status other than ok).
  /// @throws invalid_argument_error when the argument counts do not match.
  [[nodiscard]] kernel_status call(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra,
                                   std::size_t* workspace_size, void* workspace, void* stream) const {
    if (tensors.size() != tensors_ || extra.size() != extras_) {
      throw invalid_argument_error("rocmtpl: kernel_entry: " + name_ + " takes " + std::to_string(tensors_) +
                                   " tensors and " + std::to_string(extras_) + " integer arguments, got " +
                                   std::to_string(tensors.size()) + " and " + std::to_string(extra.size()));
    }
    std::array<std::uint64_t, detail::max_call_slots> slots{};
    std::size_t n = 0;
    for (const void* t : tensors) slots[n++] = detail::slot(t);
    for (auto v : extra) slots[n++] = detail::slot(v);
    slots[n++] = detail::slot(static_cast<const void*>(workspace_size));
    slots[n++] = detail::slot(workspace);
    slots[n++] = detail::slot(stream);
    return to_kernel_status(detail::call_table[n](fn_, slots.data()));
  }

  /// @brief The workspace query: null tensors, real sizes; works without a GPU.
  /// @throws kernel_status_error on a non-zero status.
  [[nodiscard]] std::size_t workspace_size(const std::vector<std::int64_t>& extra) const {
    std::size_t bytes = 0;
    const std::vector<const void*> nulls(tensors_, nullptr);
    check_status(name_, call(nulls, extra, &bytes, nullptr, nullptr));
    return bytes;
  }

  /// @brief Launches on `stream`.
  /// @throws kernel_status_error on a non-zero status.
  void launch(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra, void* workspace,
              void* stream) const {
    check_status(name_, call(tensors, extra, nullptr, workspace, stream));
  }

 private:
  std::shared_ptr<shared_library> library_;
  std::string name_;
  std::size_t tensors_;
  std::size_t extras_;
  void* fn_ = nullptr;
};

}  // namespace rocmtpl::runtime

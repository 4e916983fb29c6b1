// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Calling a generated entry point whose signature is known only at run time, through its
/// packed twin.
///
/// Every generated library exports, next to the entry `NAME` (docs/ARCHITECTURE.md's C ABI), two
/// functions rendered from the entry's signature (codegen/rendered_source.hpp):
/// @code{.unparsed}
/// extern "C" int NAME_packed(void* const* args, size_t* workspace_size, uint8_t* workspace, void* stream);
/// extern "C" const char* NAME_signature(void);   // "int NAME(const float* X, ..., hipStream_t stream)"
/// @endcode
/// kernel_entry checks the library's signature text against the signature the caller expects
/// (entry_signature, carried by the benchmark request or a module's manifest), then calls
/// `NAME_packed` through its real function type: `args[i]` points to a value of parameter i's own
/// type (a `void*` for a tensor, an `int64_t` for a size, the runtime argument's C type). No
/// function pointer is cast to another function type, so this works on every platform and ABI.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

/// @brief A generated entry point returned a non-zero status (null argument, unsupported sizes,
/// launch failure). Nothing is thrown across the C ABI; the host turns the code into this.
class kernel_status_error : public error {
 public:
  /// @param kernel the entry point's name
  /// @param status what it returned (never kernel_status::ok)
  kernel_status_error(std::string kernel, kernel_status status);
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

/// @brief A loaded library declares an entry point with another signature than the caller expects
/// (a stale or foreign library, or a request that does not describe it).
class signature_mismatch_error : public error {
 public:
  /// @param kernel the entry point's name
  /// @param library the library file
  /// @param expected the declaration the caller expects
  /// @param actual the declaration the library's `NAME_signature()` returns
  signature_mismatch_error(std::string kernel, const std::filesystem::path& library, std::string expected,
                           std::string actual);
  /// @brief The entry point's name.
  [[nodiscard]] const std::string& kernel() const noexcept { return kernel_; }
  /// @brief The declaration the caller expects.
  [[nodiscard]] const std::string& expected() const noexcept { return expected_; }
  /// @brief The declaration the library exports.
  [[nodiscard]] const std::string& actual() const noexcept { return actual_; }

 private:
  std::string kernel_;
  std::string expected_;
  std::string actual_;
};

namespace detail {
extern "C" {
// The exported twins' real function types. typedef (not using) inside the linkage specification, so
// that the function types have C language linkage as the definitions do.
// NOLINTNEXTLINE(modernize-use-using)
typedef int packed_entry_fn(void* const* args, std::size_t* workspace_size, std::uint8_t* workspace, void* stream);
// NOLINTNEXTLINE(modernize-use-using)
typedef const char* signature_fn(void);
}

// How one parameter's value is held for the packed call: the slot points to the member of its type.
enum class slot_type { pointer, i64, i32, u32, u64, int_, bool_ };

union packed_value {
  void* pointer;
  std::int64_t i64;
  std::int32_t i32;
  std::uint32_t u32;
  std::uint64_t u64;
  int int_;
  bool bool_;
};

slot_type slot_type_of(const entry_param& p);

template <class T>
bool fits(std::int64_t v) noexcept {
  if constexpr (std::is_same_v<T, bool>) {
    return v == 0 || v == 1;
  } else if constexpr (std::is_unsigned_v<T>) {
    return v >= 0 && static_cast<std::uint64_t>(v) <= std::numeric_limits<T>::max();
  } else {
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
  }
}

void* store(packed_value& slot, slot_type type, std::int64_t v, bool& ok) noexcept;
}  // namespace detail

/// @brief A generated entry point in a loaded library, called through its packed twin after its
/// signature was checked against the caller's description.
///
/// Call layout: `tensors` are the tensor parameters (inputs then outputs), `extra` the integer
/// parameters (sizes then runtime arguments, each converted to its C type), then workspace_size,
/// workspace, stream.
/// @code{.cpp}
/// rocmtpl::runtime::kernel_entry k(lib, caller.bmreq().kernel_name, caller.bmreq().signature);
/// std::size_t bytes = k.workspace_size(caller.bmreq().extra_args);   // no GPU needed
/// @endcode
class kernel_entry {
 public:
  /// @brief Resolves `NAME_signature` and `NAME_packed` and checks the signature.
  /// @param library the loaded library
  /// @param name the entry point's name
  /// @param expected the signature the caller expects (rocm_benchmark_request::signature)
  /// @throws invalid_argument_error for an invalid description (entry_signature::validate());
  /// symbol_not_found_error when the library lacks either twin; signature_mismatch_error naming both
  /// declarations when the library's differs.
  kernel_entry(std::shared_ptr<shared_library> library, std::string name, entry_signature expected);

  /// @brief The declaration a library's `NAME_signature()` returns (for a library this program did
  /// not render: read it, then describe the entry).
  /// @throws symbol_not_found_error when the library has no `NAME_signature`
  [[nodiscard]] static std::string exported_signature(const shared_library& library, std::string_view name);

  /// @brief The entry point's name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// @brief The library it lives in (kept loaded while the entry lives).
  [[nodiscard]] const std::shared_ptr<shared_library>& library() const noexcept { return library_; }
  /// @brief The checked signature.
  [[nodiscard]] const entry_signature& signature() const noexcept { return signature_; }

  /// @brief Calls the entry point and returns its status (no exception for a status other than ok).
  /// @throws invalid_argument_error when the counts differ from the signature's tensors and integer
  /// parameters, or a runtime argument's value does not fit its C type.
  [[nodiscard]] kernel_status call(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra,
                                   std::size_t* workspace_size, void* workspace, void* stream) const;

  /// @brief The workspace query: null tensors, real sizes; works without a GPU.
  /// @throws kernel_status_error on a non-zero status; invalid_argument_error as call()
  [[nodiscard]] std::size_t workspace_size(const std::vector<std::int64_t>& extra) const;

  /// @brief Launches on `stream`.
  /// @throws kernel_status_error on a non-zero status; invalid_argument_error as call()
  void launch(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra, void* workspace,
              void* stream) const {
    check_status(name_, call(tensors, extra, nullptr, workspace, stream));
  }

 private:
  static constexpr std::size_t inline_slots = 32;

  void check_counts(std::size_t tensors, std::size_t extras) const;

  void pack(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra,
            detail::packed_value* values, void** args) const;

  kernel_status invoke(void* const* args, std::size_t* workspace_size, void* workspace, void* stream) const {
    return to_kernel_status(fn_(args, workspace_size, static_cast<std::uint8_t*>(workspace), stream));
  }

  std::shared_ptr<shared_library> library_;
  std::string name_;
  entry_signature signature_;
  std::vector<detail::slot_type> types_;
  std::size_t tensors_ = 0;
  std::size_t extras_ = 0;
  detail::packed_entry_fn* fn_ = nullptr;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/launch/kernel_call-inl.hpp>
#endif

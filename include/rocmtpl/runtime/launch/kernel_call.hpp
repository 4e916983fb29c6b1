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

#include <array>
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
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

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

/// @brief A loaded library declares an entry point with another signature than the caller expects
/// (a stale or foreign library, or a request that does not describe it).
class signature_mismatch_error : public error {
 public:
  /// @param kernel the entry point's name
  /// @param library the library file
  /// @param expected the declaration the caller expects
  /// @param actual the declaration the library's `NAME_signature()` returns
  signature_mismatch_error(std::string kernel, const std::filesystem::path& library, std::string expected,
                           std::string actual)
      : error("rocmtpl: kernel_entry: " + kernel + " in " + library.string() + " is declared '" + actual +
              "' but the caller expects '" + expected +
              "'; rebuild the library from the same rendering, or describe the entry it has"),
        kernel_(std::move(kernel)),
        expected_(std::move(expected)),
        actual_(std::move(actual)) {}
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

inline slot_type slot_type_of(const entry_param& p) {
  if (p.kind == param_kind::tensor_in || p.kind == param_kind::tensor_out) return slot_type::pointer;
  if (p.type == "int64_t") return slot_type::i64;
  if (p.type == "int32_t") return slot_type::i32;
  if (p.type == "uint32_t") return slot_type::u32;
  if (p.type == "uint64_t") return slot_type::u64;
  if (p.type == "int") return slot_type::int_;
  return slot_type::bool_;  // validate() admits no other type
}

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

// Stores `v` in the member of `type` and returns the member's address; false in `ok` when `v` does
// not fit the type.
inline void* store(packed_value& slot, slot_type type, std::int64_t v, bool& ok) noexcept {
  switch (type) {
    case slot_type::i32:
      ok = fits<std::int32_t>(v);
      slot.i32 = static_cast<std::int32_t>(v);
      return &slot.i32;
    case slot_type::u32:
      ok = fits<std::uint32_t>(v);
      slot.u32 = static_cast<std::uint32_t>(v);
      return &slot.u32;
    case slot_type::u64:
      ok = fits<std::uint64_t>(v);
      slot.u64 = static_cast<std::uint64_t>(v);
      return &slot.u64;
    case slot_type::int_:
      ok = fits<int>(v);
      slot.int_ = static_cast<int>(v);
      return &slot.int_;
    case slot_type::bool_:
      ok = fits<bool>(v);
      slot.bool_ = v != 0;
      return &slot.bool_;
    case slot_type::i64:
    case slot_type::pointer: break;
  }
  ok = true;
  slot.i64 = v;
  return &slot.i64;
}
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
  kernel_entry(std::shared_ptr<shared_library> library, std::string name, entry_signature expected)
      : library_(std::move(library)), name_(std::move(name)), signature_(std::move(expected)) {
    signature_.validate();
    const auto actual = exported_signature(*library_, name_);
    const auto wanted = signature_.declaration(name_);
    if (actual != wanted) throw signature_mismatch_error(name_, library_->path(), wanted, actual);
    fn_ = library_->symbol<detail::packed_entry_fn>(packed_entry_name(name_));
    types_.reserve(signature_.params.size());
    for (const auto& p : signature_.params) types_.push_back(detail::slot_type_of(p));
    tensors_ = signature_.tensor_count();
    extras_ = signature_.extra_count();
  }

  /// @brief The declaration a library's `NAME_signature()` returns (for a library this program did
  /// not render: read it, then describe the entry).
  /// @throws symbol_not_found_error when the library has no `NAME_signature`
  [[nodiscard]] static std::string exported_signature(const shared_library& library, std::string_view name) {
    const char* text = library.symbol<detail::signature_fn>(signature_function_name(name))();
    return text != nullptr ? std::string(text) : std::string();
  }

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
                                   std::size_t* workspace_size, void* workspace, void* stream) const {
    check_counts(tensors.size(), extra.size());
    const std::size_t n = types_.size();
    if (n <= inline_slots) {
      std::array<detail::packed_value, inline_slots> values;  // written before read, by pack()
      std::array<void*, inline_slots> args{};
      pack(tensors, extra, values.data(), args.data());
      return invoke(args.data(), workspace_size, workspace, stream);
    }
    std::vector<detail::packed_value> values(n);
    std::vector<void*> args(n);
    pack(tensors, extra, values.data(), args.data());
    return invoke(args.data(), workspace_size, workspace, stream);
  }

  /// @brief The workspace query: null tensors, real sizes; works without a GPU.
  /// @throws kernel_status_error on a non-zero status; invalid_argument_error as call()
  [[nodiscard]] std::size_t workspace_size(const std::vector<std::int64_t>& extra) const {
    std::size_t bytes = 0;
    const std::vector<const void*> nulls(tensors_, nullptr);
    check_status(name_, call(nulls, extra, &bytes, nullptr, nullptr));
    return bytes;
  }

  /// @brief Launches on `stream`.
  /// @throws kernel_status_error on a non-zero status; invalid_argument_error as call()
  void launch(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra, void* workspace,
              void* stream) const {
    check_status(name_, call(tensors, extra, nullptr, workspace, stream));
  }

 private:
  static constexpr std::size_t inline_slots = 32;

  void check_counts(std::size_t tensors, std::size_t extras) const {
    if (tensors != tensors_ || extras != extras_) {
      throw invalid_argument_error("rocmtpl: kernel_entry: " + signature_.declaration(name_) + " takes " +
                                   std::to_string(tensors_) + " tensors and " + std::to_string(extras_) +
                                   " integer arguments, got " + std::to_string(tensors) + " and " +
                                   std::to_string(extras));
    }
  }

  // Holds each value in the member of its parameter's type and points args[i] at it.
  void pack(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra,
            detail::packed_value* values, void** args) const {
    std::size_t t = 0;
    std::size_t e = 0;
    for (std::size_t i = 0; i < types_.size(); ++i) {
      if (types_[i] == detail::slot_type::pointer) {
        // The callee converts the void* back to the parameter's pointer type (const for inputs).
        values[i].pointer = const_cast<void*>(tensors[t++]);
        args[i] = &values[i].pointer;
        continue;
      }
      bool ok = true;
      args[i] = detail::store(values[i], types_[i], extra[e], ok);
      if (!ok) {
        const auto& p = signature_.params[i];
        throw invalid_argument_error("rocmtpl: kernel_entry: " + name_ + ": value " + std::to_string(extra[e]) +
                                     " of " + std::string(to_string(p.kind)) + " '" + p.name + "' does not fit " +
                                     p.type);
      }
      ++e;
    }
  }

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

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/launch/kernel_call.hpp: included at its end (header-only) or compiled once by
// src/runtime/launch.cpp, after it (so it does not include it back).

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE kernel_status_error::kernel_status_error(std::string kernel, kernel_status status)
    : error("rocmtpl: kernel " + kernel + " returned status " + std::to_string(status_code(status)) + " (" +
            std::string(describe(status)) + ")"),
      kernel_(std::move(kernel)),
      status_(status) {}

ROCMTPL_INLINE signature_mismatch_error::signature_mismatch_error(std::string kernel,
                                                                  const std::filesystem::path& library,
                                                                  std::string expected, std::string actual)
    : error("rocmtpl: kernel_entry: " + kernel + " in " + library.string() + " is declared '" + actual +
            "' but the caller expects '" + expected +
            "'; rebuild the library from the same rendering, or describe the entry it has"),
      kernel_(std::move(kernel)),
      expected_(std::move(expected)),
      actual_(std::move(actual)) {}

namespace detail {

ROCMTPL_INLINE slot_type slot_type_of(const entry_param& p) {
  if (p.kind == param_kind::tensor_in || p.kind == param_kind::tensor_out) return slot_type::pointer;
  if (p.type == "int64_t") return slot_type::i64;
  if (p.type == "int32_t") return slot_type::i32;
  if (p.type == "uint32_t") return slot_type::u32;
  if (p.type == "uint64_t") return slot_type::u64;
  if (p.type == "int") return slot_type::int_;
  return slot_type::bool_;  // validate() admits no other type
}

// Stores `v` in the member of `type` and returns the member's address; false in `ok` when `v` does
// not fit the type.
ROCMTPL_INLINE void* store(packed_value& slot, slot_type type, std::int64_t v, bool& ok) noexcept {
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

ROCMTPL_INLINE kernel_entry::kernel_entry(std::shared_ptr<shared_library> library, std::string name,
                                          entry_signature expected)
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

ROCMTPL_INLINE std::string kernel_entry::exported_signature(const shared_library& library, std::string_view name) {
  const char* text = library.symbol<detail::signature_fn>(signature_function_name(name))();
  return text != nullptr ? std::string(text) : std::string();
}

ROCMTPL_INLINE kernel_status kernel_entry::call(const std::vector<const void*>& tensors,
                                                const std::vector<std::int64_t>& extra, std::size_t* workspace_size,
                                                void* workspace, void* stream) const {
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

ROCMTPL_INLINE std::size_t kernel_entry::workspace_size(const std::vector<std::int64_t>& extra) const {
  std::size_t bytes = 0;
  const std::vector<const void*> nulls(tensors_, nullptr);
  check_status(name_, call(nulls, extra, &bytes, nullptr, nullptr));
  return bytes;
}

ROCMTPL_INLINE void kernel_entry::check_counts(std::size_t tensors, std::size_t extras) const {
  if (tensors != tensors_ || extras != extras_) {
    throw invalid_argument_error("rocmtpl: kernel_entry: " + signature_.declaration(name_) + " takes " +
                                 std::to_string(tensors_) + " tensors and " + std::to_string(extras_) +
                                 " integer arguments, got " + std::to_string(tensors) + " and " +
                                 std::to_string(extras));
  }
}

// Holds each value in the member of its parameter's type and points args[i] at it.
ROCMTPL_INLINE void kernel_entry::pack(const std::vector<const void*>& tensors, const std::vector<std::int64_t>& extra,
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
      throw invalid_argument_error("rocmtpl: kernel_entry: " + name_ + ": value " + std::to_string(extra[e]) + " of " +
                                   std::string(to_string(p.kind)) + " '" + p.name + "' does not fit " + p.type);
    }
    ++e;
  }
}

}  // namespace rocmtpl::runtime

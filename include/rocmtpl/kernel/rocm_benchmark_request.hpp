// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief rocm_benchmark_request: everything needed to compile, run and time one rendered choice
/// (the reference's ROCmBenchmarkRequest, as data; the runtime layer acts on it).
///
/// The reference's protocol on it (precompile, update_workspace_size, benchmark) is carried out by
/// rocm_template_caller's members of those names, through the runtime layer
/// (rocmtpl/runtime/bench/caller_runtime.hpp); what they learn is stored here: `library_path` (the
/// reference's source_file / DLL) and `workspace_size`.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>

namespace rocmtpl {

/// @brief A rendered choice ready for benchmarking: source, entry point, concrete tensors, extra args.
struct rocm_benchmark_request {
  std::string kernel_name;                     ///< exported symbol in the compiled library
  entry_signature signature;                   ///< the entry's parameters (checked against the library)
  std::vector<tensor_meta> input_tensor_meta;  ///< in C ABI order (input_reorder applied, unique)
  tensor_meta output_tensor_meta;              ///< the output tensor
  std::vector<std::int64_t> extra_args;        ///< size-symbol hints, then runtime argument values
  std::size_t size_arg_count = 0;              ///< how many of extra_args are size arguments
  std::vector<std::string> size_arg_names;     ///< the size symbols of those size arguments, in order
  std::string source_code;                     ///< the complete translation unit
  /// @brief The workspace in bytes at these extra_args: from workspace_bytes at the hints, or from
  /// the compiled library's workspace query (the reference's update_workspace_size); nullopt until known.
  std::optional<std::size_t> workspace_size;
  /// @brief The workspace as an expression of the size symbols, when the template describes it
  /// (kernel_capabilities::workspace); nullopt when only the compiled library knows it.
  std::optional<sym_expr> workspace_bytes;
  /// @brief The compiled library, once precompile() built it (empty before).
  std::string library_path;

  /// @brief The size hints the size arguments were evaluated at: size_arg_names -> extra_args.
  [[nodiscard]] size_hints size_arg_hints() const;

  /// @brief Hash of the source alone: equal sources share one compiled library.
  [[nodiscard]] std::string source_hash() const;

  /// @brief Identifies the measurement: source hash plus the extra arguments (runtime args included,
  /// unlike the reference, so choices differing only in a runtime argument never share a timing).
  [[nodiscard]] std::string hash_key() const;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/kernel/rocm_benchmark_request-inl.hpp>
#endif

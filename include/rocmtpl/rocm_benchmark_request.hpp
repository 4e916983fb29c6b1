// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief rocm_benchmark_request: everything needed to compile, run and time one rendered choice
/// (the reference's ROCmBenchmarkRequest, as data; the runtime layer acts on it).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>

namespace rocmtpl {

/// @brief A rendered choice ready for benchmarking: source, entry point, concrete tensors, extra args.
struct rocm_benchmark_request {
  std::string kernel_name;                     ///< exported symbol in the compiled library
  entry_signature signature;                   ///< the entry's parameters (checked against the library)
  std::vector<tensor_meta> input_tensor_meta;  ///< in C ABI order (input_reorder applied, unique)
  tensor_meta output_tensor_meta;
  std::vector<std::int64_t> extra_args;  ///< size-symbol hints, then runtime argument values
  std::size_t size_arg_count = 0;        ///< how many of extra_args are size arguments
  std::string source_code;
  std::optional<std::size_t> workspace_size;  ///< filled by the runtime's workspace query

  /// @brief Hash of the source alone: equal sources share one compiled library.
  [[nodiscard]] std::string source_hash() const { return detail::hash_hex(source_code); }

  /// @brief Identifies the measurement: source hash plus the extra arguments (runtime args included,
  /// unlike the reference, so choices differing only in a runtime argument never share a timing).
  [[nodiscard]] std::string hash_key() const {
    std::string key = source_hash();
    for (auto a : extra_args) {
      // Appended in two steps: g++ 12 at -O3 reports a false -Werror=restrict inside
      // operator+(const char*, std::string&&).
      key += '_';
      key += std::to_string(a);
    }
    return key;
  }
};

}  // namespace rocmtpl

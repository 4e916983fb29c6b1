// SPDX-License-Identifier: MIT
#pragma once

// The implementation of kernel/rocm_benchmark_request.hpp: included at its end (header-only) or compiled once by
// src/kernel.cpp, after it (so it does not include it back).

#include <cstddef>
#include <string>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/detail/hash.hpp>

namespace rocmtpl {

ROCMTPL_INLINE size_hints rocm_benchmark_request::size_arg_hints() const {
  size_hints h;
  for (std::size_t i = 0; i < size_arg_names.size() && i < size_arg_count && i < extra_args.size(); ++i) {
    h.emplace(size_arg_names[i], extra_args[i]);
  }
  return h;
}

ROCMTPL_INLINE std::string rocm_benchmark_request::source_hash() const { return detail::hash_hex(source_code); }

ROCMTPL_INLINE std::string rocm_benchmark_request::hash_key() const {
  std::string key = source_hash();
  for (auto a : extra_args) {
    // Appended in two steps: g++ 12 at -O3 reports a false -Werror=restrict inside
    // operator+(const char*, std::string&&).
    key += '_';
    key += std::to_string(a);
  }
  return key;
}

}  // namespace rocmtpl

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of kernel/rocm_template.hpp: included by it (header-only) or compiled once by src/kernel.cpp.

#include <atomic>
#include <cstdint>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>

namespace rocmtpl::detail {

// Process-wide choice counter, the reference's ROCmTemplate.index_counter.
ROCMTPL_INLINE std::atomic<std::uint64_t>& choice_counter() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter;
}

}  // namespace rocmtpl::detail

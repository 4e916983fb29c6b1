// SPDX-License-Identifier: MIT
#pragma once

// The implementation of kernel/rocm_template.hpp: included at its end (header-only) or compiled once by src/kernel.cpp,
// after it (so it does not include it back).

#include <atomic>
#include <cstdint>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::detail {

// Process-wide choice counter, the reference's ROCmTemplate.index_counter.
ROCMTPL_INLINE std::atomic<std::uint64_t>& choice_counter() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter;
}

}  // namespace rocmtpl::detail

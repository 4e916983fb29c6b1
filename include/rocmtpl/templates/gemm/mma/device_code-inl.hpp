// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/mma/device_code.hpp: included at its end (header-only) or
// compiled once by src/templates.cpp, after it (so it does not include it back).

#include <string>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE const std::string& gemm_matrix_core_text() {
  static const std::string text = [] {
    const std::string warp_block_start = std::string(gemm_warp_block_start_head) + std::string(gemm_block_start_text) +
                                         std::string(gemm_warp_block_start_tail);
    return std::string(gemm_nvidia_head) + warp_block_start + std::string(gemm_nvidia_tail_amd_head) +
           gemm_stage_members_text(lds_stage_spelling) + std::string(gemm_amd_store) +
           std::string(gemm_store_slots_head) + std::string(gemm_amd_store_rest) + warp_block_start +
           std::string(gemm_amd_tail);
  }();
  return text;
}

}  // namespace rocmtpl::templates::detail

// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/simt/device_code.hpp: included at its end (header-only) or
// compiled once by src/templates.cpp, after it (so it does not include it back).

#include <string>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE const std::string& gemm_simt_text() {
  static const std::string text = std::string(gemm_simt_head) + gemm_stage_members_text(simt_stage_spelling) +
                                  std::string(gemm_simt_store) + std::string(gemm_store_slots_head) +
                                  std::string(gemm_simt_store_rest) + std::string(gemm_block_start_text) +
                                  std::string(gemm_simt_tail);
  return text;
}

}  // namespace rocmtpl::templates::detail

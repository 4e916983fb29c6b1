// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/device_code.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <string>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE std::string gemm_stage_members_text(const gemm_stage_spelling& s) {
  std::string text;
  for (const auto& piece : gemm_stage_members_pieces) {
    text += piece.text;
    if (piece.field != nullptr) text += s.*piece.field;
  }
  return text;
}

}  // namespace rocmtpl::templates::detail

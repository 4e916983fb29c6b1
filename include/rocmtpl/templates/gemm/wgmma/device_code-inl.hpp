// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/wgmma/device_code.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <string>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE std::string sm90_wgmma_text(int n, bool bf16) {
  const int regs = n / 2;
  const std::string ab = bf16 ? "bf16" : "f16";
  std::string dlist;
  std::string outs;
  for (int i = 0; i < regs; ++i) {
    dlist += (i ? ", %" : "%") + std::to_string(i);
    outs += std::string(i ? ", " : "") + "\"+f\"(d[" + std::to_string(i) + "])";
  }
  std::string s = "// D[64 x " + std::to_string(n) + "] (+)= A[64 x 16] * B[16 x " + std::to_string(n) + "], " + ab +
                  ", A K-major, B N-major (both 128-byte swizzled).\n";
  s += "__device__ __forceinline__ void gemm_sm90_wgmma(float (&d)[" + std::to_string(regs) +
       "], uint64_t desc_a, uint64_t desc_b, int scale_d) {\n";
  s += "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + std::to_string(regs + 2) + ", 0;\\n\"\n";
  s +=
      "                 \"wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." + ab + "." + ab + " \"\n";
  s += "                 \"{" + dlist + "}, %" + std::to_string(regs) + ", %" + std::to_string(regs + 1) +
       ", p, 1, 1, 0, 1;\\n}\\n\"\n";
  s += "                 : " + outs + "\n";
  s += "                 : \"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d));\n";
  s += "}\n";
  return s;
}

}  // namespace rocmtpl::templates::detail

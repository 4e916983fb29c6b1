// SPDX-License-Identifier: MIT
// templates/gemm/simt/device_code.hpp: the SIMT main loop is assembled once from the shared parts,
// with its stage converting every operand to fp32.
#include <rocmtpl/templates/gemm/simt/device_code.hpp>

#include <rocmtpl/templates/gemm/device_code.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {
namespace td = rocmtpl::templates::detail;
using gemm_test::contains;
using gemm_test::count;

TEST(GemmSimtDeviceCode, LoopHoldsItsStageWithFp32Conversion) {
  const std::string& simt = td::gemm_simt_text();
  EXPECT_EQ(&simt, &td::gemm_simt_text());  // assembled once
  EXPECT_TRUE(contains(simt,
                       "struct simt_stage {\n    using T = typename D::storage;\n"
                       "    static constexpr bool along_k = KContig || !MnContig;\n"
                       "    static constexpr bool fast = Vec > 1;\n"));
  EXPECT_TRUE(contains(simt, "    float v[slots][Vec];\n    const T* base;\n"));
  EXPECT_TRUE(contains(simt, "v[s][e] = D::to_float(x.v[e]);"));
  EXPECT_TRUE(contains(simt, ": 0.0f;"));
  EXPECT_EQ(count(simt, std::string(td::gemm_block_start_text)), 1U);
  EXPECT_TRUE(contains(simt, std::string(td::gemm_simt_head)));
  EXPECT_FALSE(contains(simt, "AlongK"));
  EXPECT_FALSE(contains(simt, "mma.sync"));
}
}  // namespace

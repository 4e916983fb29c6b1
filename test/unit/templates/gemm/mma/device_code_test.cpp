// SPDX-License-Identifier: MIT
// templates/gemm/mma/device_code.hpp: the matrix-core main loops (NVIDIA mma.sync and AMD MFMA in
// one block) share their block start, and the AMD stage keeps the operands' raw bits.
#include <rocmtpl/templates/gemm/mma/device_code.hpp>

#include <rocmtpl/templates/gemm/device_code.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {
namespace td = rocmtpl::templates::detail;
using gemm_test::contains;
using gemm_test::count;

TEST(GemmMmaDeviceCode, LoopsShareTheirStartAndTheAmdStageKeepsRawBits) {
  const std::string& mc = td::gemm_matrix_core_text();
  EXPECT_EQ(&mc, &td::gemm_matrix_core_text());                      // assembled once
  EXPECT_EQ(count(mc, std::string(td::gemm_block_start_text)), 2U);  // NVIDIA and AMD
  EXPECT_EQ(count(mc, std::string(td::gemm_warp_block_start_head)), 2U);
  EXPECT_TRUE(contains(mc,
                       "struct gemm_lds_stage {\n    static constexpr bool fast = Vec > 1;\n"
                       "    static constexpr int per_line = (AlongK ? block_k : Rows) / Vec;\n"));
  EXPECT_TRUE(contains(mc, "    uint16_t v[slots][Vec];\n    const uint16_t* base;\n    const uint16_t* ptr;\n"));
  EXPECT_TRUE(contains(mc, "v[s][e] = x.v[e];"));
  EXPECT_TRUE(contains(mc, ": static_cast<uint16_t>(0);"));
  EXPECT_FALSE(contains(mc, "D::to_float"));
  EXPECT_FALSE(contains(mc, "along_k"));
  // One NVIDIA and one AMD main loop, chosen by the platform macros.
  EXPECT_EQ(count(mc, "__device__ __forceinline__ void gemm_mainloop("), 2U);
  EXPECT_TRUE(contains(mc, "#elif defined(ROCMTPL_PLATFORM_AMD)"));
  EXPECT_TRUE(contains(mc, std::string(td::gemm_nvidia_head)));
}
}  // namespace

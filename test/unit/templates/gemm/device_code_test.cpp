// SPDX-License-Identifier: MIT
// templates/gemm/device_code.hpp: the main-loop texts are assembled from shared parts, and each
// copy struct gets its own spelling of the shared members.
#include <rocmtpl/templates/gemm/device_code.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

namespace {
namespace td = rocmtpl::templates::detail;
using gemm_test::contains;
using gemm_test::count;

TEST(GemmDeviceCode, SimtLoopHoldsItsStageWithFp32Conversion) {
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
  EXPECT_FALSE(contains(simt, "AlongK"));
  EXPECT_FALSE(contains(simt, "mma.sync"));
}

TEST(GemmDeviceCode, MatrixCoreLoopsShareTheirStartAndTheAmdStageKeepsRawBits) {
  const std::string& mc = td::gemm_matrix_core_text();
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
}

TEST(GemmDeviceCode, StageMembersFollowTheSpelling) {
  const auto simt = td::gemm_stage_members_text(td::simt_stage_spelling);
  const auto lds = td::gemm_stage_members_text(td::lds_stage_spelling);
  EXPECT_EQ(count(simt, "along_k ?"), count(lds, "AlongK ?"));
  EXPECT_GT(count(simt, "along_k ?"), 5U);
  EXPECT_TRUE(contains(simt, "// Moves to the next K tile."));
  EXPECT_FALSE(contains(lds, "// Moves to the next K tile."));
  EXPECT_TRUE(contains(lds, "reinterpret_cast<const gemm_vector<uint16_t, Vec>*>(src)"));
}

TEST(GemmDeviceCode, DtypeKindsAndCommonHelpers) {
  EXPECT_TRUE(contains(std::string(td::gemm_dtype_kind_text[0]), "struct gemm_dtype<0> {"));
  EXPECT_TRUE(contains(std::string(td::gemm_dtype_kind_text[1]), "__half2float"));
  EXPECT_TRUE(contains(std::string(td::gemm_dtype_kind_text[2]), "rocmtpl_dev::bf16_bits_to_float"));
  EXPECT_TRUE(contains(std::string(td::gemm_common_text), "gemm_tile_origin"));
  EXPECT_TRUE(contains(std::string(td::gemm_common_text), "gemm_k_range"));
}
}  // namespace

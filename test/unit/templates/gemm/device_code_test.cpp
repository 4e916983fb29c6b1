// SPDX-License-Identifier: MIT
// templates/gemm/device_code.hpp: what the block-tiled paths' main loops share (their texts are
// simt/device_code.hpp's and mma/device_code.hpp's): each copy struct gets its own spelling of the
// shared members; the dtype kinds and common helpers.
#include <rocmtpl/templates/gemm/device_code.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

namespace {
namespace td = rocmtpl::templates::detail;
using gemm_test::contains;
using gemm_test::count;

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

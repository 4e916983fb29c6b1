// SPDX-License-Identifier: MIT
// templates/gemm/wgmma/config.hpp: the Hopper path's fixed facts (gemm_wgmma_facts), wgmma_config's
// derived values (the warpgroup tile, shared memory as benchmark/hopper/NOTES.md lays it out,
// registers), its name and members, and its rules.
#include <rocmtpl/templates/gemm/wgmma/config.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using gemm_test::contains;
using rocmtpl::templates::gemm_wgmma_facts;
using rocmtpl::templates::wgmma_config;

std::string reason(const wgmma_config& c) { return std::string(c.invalid_reason().value_or("")); }

wgmma_config hopper(int bm, int bn, int stages) { return {.block_m = bm, .block_n = bn, .stages = stages}; }

static_assert(gemm_wgmma_facts::threads == 384 && gemm_wgmma_facts::block_k == 64);
static_assert(wgmma_config::block_k == 64 && wgmma_config::vector == 8 && wgmma_config::math == "wgmma");
static_assert(!wgmma_config{}.invalid_reason().has_value());

TEST(GemmWgmmaConfig, WarpgroupTileIsDerived) {
  const auto c = hopper(256, 128, 4);
  EXPECT_EQ(c.warp_m(), 128);  // two consumer warpgroups split block_m
  EXPECT_EQ(c.warp_n(), 128);  // one wgmma N spans block_n
  EXPECT_EQ(c.threads(), 384);
  EXPECT_EQ(c.warps(), 12);
  EXPECT_EQ(c.register_estimate(), 128 / 64 * 128 / 2 + 128 / 8 + 48);
  EXPECT_EQ(wgmma_config{}, hopper(128, 256, 4));
}

// The configurations measured in benchmark/hopper/NOTES.md, with its shared-memory formula
// 1024 + stages * (bm + bn) * 128 + 18432 + 16 * stages + 16 and 384 threads.
TEST(GemmWgmmaConfig, MeasuredConfigsFollowTheNotes) {
  for (const auto& c : {hopper(128, 256, 4), hopper(256, 128, 4), hopper(128, 128, 6), hopper(128, 64, 8)}) {
    EXPECT_FALSE(c.invalid_reason().has_value()) << c.name_text().view() << ": " << reason(c);
    EXPECT_EQ(c.shared_bytes(), 1024 + c.stages * (c.block_m + c.block_n) * 128 + 18432 + 16 * c.stages + 16);
    EXPECT_LE(c.shared_bytes(), gemm_wgmma_facts::max_shared);
    EXPECT_LE(c.register_estimate(), gemm_wgmma_facts::consumer_registers) << c.name_text().view();
  }
  EXPECT_EQ(hopper(128, 256, 4).shared_bytes(), 216144);
  EXPECT_EQ(hopper(128, 256, 4).name_text().view(), "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8");
  auto split = hopper(128, 64, 8);
  split.split_k = 3;
  EXPECT_EQ(split.name_text().view(), "wgmma_bm128_bn64_bk64_wm64_wn64_g8_s8_v8_sk3");
}

// 128 x 160 (cuBLAS's tile at 3072 x 768 x 4096): its stages hold W in whole 64-column slabs
// (three, 192 columns), so it takes the shared memory of 128 x 192: 5 stages fit, 6 do not; its
// registers are those of a 160-wide accumulator tile.
TEST(GemmWgmmaConfig, A160ColumnTileLoadsWholeSlabs) {
  const auto c = hopper(128, 160, 5);
  EXPECT_FALSE(c.invalid_reason().has_value()) << reason(c);
  EXPECT_EQ(c.loaded_n(), 192);
  EXPECT_EQ(hopper(128, 256, 4).loaded_n(), 256);
  EXPECT_EQ(c.shared_bytes(), hopper(128, 192, 5).shared_bytes());
  EXPECT_EQ(c.shared_bytes(), 1024 + 5 * (128 + 192) * 128 + 18432 + 16 * 5 + 16);
  EXPECT_TRUE(contains(reason(hopper(128, 160, 6)), "227 KiB"));
  EXPECT_EQ(c.register_estimate(), 160 / 2 + 160 / 8 + 48);
  EXPECT_EQ(c.name_text().view(), "wgmma_bm128_bn160_bk64_wm64_wn160_g8_s5_v8");
}

TEST(GemmWgmmaConfig, VisitsEveryMemberInOrder) {
  const wgmma_config c{1, 2, 3, 4, 5};
  std::vector<std::pair<std::string, int>> fields;
  c.visit_fields([&](std::string_view name, int v) { fields.emplace_back(name, v); });
  EXPECT_EQ(fields, (std::vector<std::pair<std::string, int>>{
                        {"block_m", 1}, {"block_n", 2}, {"group_m", 3}, {"stages", 4}, {"split_k", 5}}));
}

TEST(GemmWgmmaConfig, InvalidTilingsAreExplained) {
  EXPECT_TRUE(contains(reason(hopper(128, 256, 5)), "227 KiB"));
  EXPECT_TRUE(contains(reason(hopper(256, 256, 2)), "register"));
  EXPECT_TRUE(contains(reason(hopper(128, 96, 4)), "64, 128, 160, 192 or 256"));
  // Two consumer warpgroups of m64 blocks: block_m 2 x a multiple of 64, one TMA box of 256 rows.
  EXPECT_TRUE(contains(reason(hopper(192, 128, 4)), "wgmma block_m must be 2 x a multiple of 64"));
  EXPECT_TRUE(contains(reason(hopper(64, 128, 4)), "wgmma block_m must be 2 x a multiple of 64"));
  EXPECT_TRUE(contains(reason(hopper(384, 64, 2)), "block_m above 256"));
  EXPECT_TRUE(contains(reason(hopper(128, 64, 1)), "stages must be 2 to 16"));
  EXPECT_TRUE(contains(reason(hopper(128, 64, 17)), "stages must be 2 to 16"));
  // Split-K is served (fp32 partials through the workspace, then the reduction kernel).
  auto c = hopper(128, 128, 4);
  c.split_k = 2;
  EXPECT_FALSE(c.invalid_reason().has_value()) << reason(c);
  c.split_k = 0;
  EXPECT_TRUE(contains(reason(c), "positive"));
  EXPECT_TRUE(contains(reason({.group_m = 0}), "positive"));
}

// Ping-pong: one consumer warpgroup owns the whole tile (warp_m == block_m), so 64-row tiles are
// valid and 128 x 256 (256 accumulators a thread) is not; the name and the visited members say so.
TEST(GemmWgmmaConfig, PingPongTilesBelongToOneWarpgroup) {
  wgmma_config c{.block_m = 64, .block_n = 256, .stages = 5, .pingpong = 1};
  EXPECT_FALSE(c.invalid_reason().has_value()) << reason(c);
  EXPECT_EQ(c.tile_consumers(), 1);
  EXPECT_EQ(c.warp_m(), 64);
  EXPECT_EQ(c.shared_bytes(), 1024 + 5 * (64 + 256) * 128 + 18432 + 16 * 5 + 16);
  EXPECT_EQ(c.name_text().view(), "wgmma_bm64_bn256_bk64_wm64_wn256_g8_s5_v8_pp");
  std::vector<std::string> names;
  c.visit_fields([&](std::string_view name, int) { names.emplace_back(name); });
  EXPECT_EQ(names.back(), "pingpong");
  c.block_m = 128;
  EXPECT_TRUE(contains(reason(c), "register"));
  c = {.block_m = 192, .block_n = 64, .stages = 4, .pingpong = 1};
  EXPECT_FALSE(c.invalid_reason().has_value()) << reason(c);  // three m64 blocks in one warpgroup
  c.pingpong = 2;
  EXPECT_TRUE(contains(reason(c), "pingpong must be 0"));
  EXPECT_EQ(hopper(128, 128, 4).tile_consumers(), 2);
}

// Stream-K: 2 to 64 blocks per tile at most, unsplit only, either schedule; named and visited
// only when set.
TEST(GemmWgmmaConfig, StreamKIsUnsplit) {
  auto c = hopper(128, 256, 4);
  c.stream_k = 2;
  EXPECT_FALSE(c.invalid_reason().has_value()) << reason(c);
  EXPECT_EQ(c.name_text().view(), "wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8_stk2");
  std::vector<std::string> names;
  c.visit_fields([&](std::string_view name, int) { names.emplace_back(name); });
  EXPECT_EQ(names.back(), "stream_k");
  for (int bad : {1, -2, 65}) {
    c.stream_k = bad;
    EXPECT_TRUE(contains(reason(c), "stream_k must be 0 (off) or 2 to 64")) << bad;
  }
  c.stream_k = 4;
  c.split_k = 2;
  EXPECT_TRUE(contains(reason(c), "wgmma stream_k needs split_k 1 (it splits K itself)"));
  c = {.block_m = 128, .block_n = 128, .stages = 6, .pingpong = 1, .stream_k = 2};
  EXPECT_FALSE(c.invalid_reason().has_value()) << reason(c);
  EXPECT_EQ(c.name_text().view(), "wgmma_bm128_bn128_bk64_wm128_wn128_g8_s6_v8_pp_stk2");
}
}  // namespace

// SPDX-License-Identifier: MIT
// The workspace liveness planner (rocmtpl/module/workspace_plan.hpp): buffers whose lifetimes
// overlap never share a slot, a slot is reused once its buffer is dead, alignment, symbolic sizes,
// the empty plan and bad input.
#include <rocmtpl/module/workspace_plan.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <utility>
#include <vector>

#ifdef ROCMTPL_VERSION_MAJOR
#error "rocmtpl/module/workspace_plan.hpp is pure: it must not pull in the emitter or the umbrella"
#endif

namespace {
using namespace rocmtpl;

sym_expr bytes(std::int64_t n) { return sym_expr(n); }

TEST(WorkspacePlan, EmptyPlanHasNoSlotAndNoBytes) {
  const auto plan = plan_workspace({});
  EXPECT_TRUE(plan.slots().empty());
  const auto sizes = plan.evaluate();
  EXPECT_TRUE(sizes.offsets.empty());
  EXPECT_EQ(sizes.total, 0u);
  EXPECT_FALSE(plan.find("h"));
  EXPECT_THROW((void)plan.slot_of("h"), invalid_argument_error);
}

TEST(WorkspacePlan, ASlotIsReusedOnceItsBufferIsDead) {
  // A chain: h1 (calls 0-1), h2 (1-2), h3 (2-3). h3 is written after h1's last reader ran.
  const auto plan = plan_workspace({{"h1", 0, 1, bytes(64)}, {"h2", 1, 2, bytes(64)}, {"h3", 2, 3, bytes(64)}});
  ASSERT_EQ(plan.slots().size(), 2u);
  EXPECT_TRUE(plan.share_slot("h1", "h3"));
  EXPECT_FALSE(plan.share_slot("h1", "h2"));
  EXPECT_FALSE(plan.share_slot("h2", "h3"));
  EXPECT_EQ(plan.slots()[0].buffers, (std::vector<std::string>{"h1", "h3"}));
  EXPECT_EQ(plan.slots()[0].busy_until, 3u);
}

TEST(WorkspacePlan, ACallNeverWritesOverABufferItReads) {
  // a is last read by call 2, which writes b: they are alive together during call 2.
  const auto plan = plan_workspace({{"a", 0, 2, bytes(8)}, {"b", 2, 3, bytes(8)}, {"c", 3, 4, bytes(8)}});
  EXPECT_FALSE(plan.share_slot("a", "b"));
  EXPECT_TRUE(plan.share_slot("a", "c"));
}

TEST(WorkspacePlan, ABufferAliveFromTheStartGetsASlotOfItsOwn) {
  const auto plan = plan_workspace({{"a", 1, 1, bytes(8)}, {"whole", 0, 5, bytes(8)}, {"b", 6, 7, bytes(8)}});
  EXPECT_FALSE(plan.share_slot("a", "whole"));
  EXPECT_EQ(plan.slot_of("whole"), 1u);
  EXPECT_EQ(plan.slot_of("b"), 0u);  // the first free slot
}

TEST(WorkspacePlan, OverlappingLifetimesNeverShareASlot) {
  std::mt19937 rng(8u);
  for (int round = 0; round < 200; ++round) {
    std::vector<workspace_buffer> buffers;
    std::size_t first = 0;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      first += rng() % 3;
      std::string name = "b";  // not "b" + to_string(): g++ 12 -O3 false -Wrestrict (GCC bug 105329)
      name += std::to_string(i);
      buffers.push_back({std::move(name), first, first + rng() % 5, bytes(16)});
    }
    const auto plan = plan_workspace(buffers);
    std::size_t placed = 0;
    for (const auto& slot : plan.slots()) placed += slot.buffers.size();
    ASSERT_EQ(placed, buffers.size());
    for (const auto& a : buffers) {
      for (const auto& b : buffers) {
        if (&a == &b || !plan.share_slot(a.name, b.name)) continue;
        const bool disjoint = a.last_use < b.first_use || b.last_use < a.first_use;
        EXPECT_TRUE(disjoint) << a.name << " [" << a.first_use << ", " << a.last_use << "] and " << b.name << " ["
                              << b.first_use << ", " << b.last_use << "] share slot " << plan.slot_of(a.name);
      }
    }
  }
}

TEST(WorkspacePlan, SlotsAreAlignedAndFollowEachOther) {
  const auto plan = plan_workspace({{"a", 0, 1, bytes(1000)}, {"b", 1, 2, bytes(10)}, {"c", 2, 3, bytes(0)}});
  const auto sizes = plan.evaluate({}, 256);
  ASSERT_EQ(sizes.bytes.size(), 2u);
  EXPECT_EQ(sizes.bytes[0], 1024u);  // max(align(1000), align(0))
  EXPECT_EQ(sizes.bytes[1], 256u);
  EXPECT_EQ(sizes.offsets, (std::vector<std::size_t>{0, 1024}));
  EXPECT_EQ(sizes.total, 1280u);
  const auto packed = plan.evaluate({}, 1);
  EXPECT_EQ(packed.offsets, (std::vector<std::size_t>{0, 1000}));
  EXPECT_EQ(packed.total, 1010u);
  for (std::size_t bad : {std::size_t{0}, std::size_t{3}, std::size_t{96}}) {
    EXPECT_THROW((void)plan.evaluate({}, bad), invalid_argument_error) << bad;
  }
}

TEST(WorkspacePlan, SymbolicSizesAreEvaluatedWithTheSizeHints) {
  const auto m = sym_expr::symbol("M");
  const auto n = sym_expr::symbol("N");
  // x and z share a slot; its size is the larger of the two for the given M and N.
  const auto plan = plan_workspace({{"x", 0, 1, m * bytes(4)}, {"y", 1, 2, n * bytes(2)}, {"z", 2, 3, n * bytes(8)}});
  ASSERT_TRUE(plan.share_slot("x", "z"));
  EXPECT_EQ(plan.slots()[0].bytes[1], n * bytes(8));
  auto sizes = plan.evaluate({{"M", 100}, {"N", 10}}, 16);
  EXPECT_EQ(sizes.bytes, (std::vector<std::size_t>{400, 32}));
  sizes = plan.evaluate({{"M", 1}, {"N", 100}}, 16);
  EXPECT_EQ(sizes.bytes, (std::vector<std::size_t>{800, 208}));
  EXPECT_EQ(sizes.total, 1008u);
  EXPECT_THROW((void)plan.evaluate({{"M", 1}}, 16), evaluation_error);
  EXPECT_THROW((void)plan.evaluate({{"M", -1}, {"N", 1}}, 16), invalid_argument_error);
}

TEST(WorkspacePlan, RejectsBadLifetimesAndRepeatedNames) {
  EXPECT_THROW((void)plan_workspace({{"a", 3, 2, bytes(1)}}), invalid_argument_error);
  EXPECT_THROW((void)plan_workspace({{"a", 0, 1, bytes(1)}, {"a", 2, 3, bytes(1)}}), invalid_argument_error);
}

}  // namespace

// SPDX-License-Identifier: MIT
// codegen/typed_hints.hpp: hints<"M", ...> keyed by size symbols, their run-time map, and the
// compile-time match against a signature's symbols (the failing cases are test/fail/typed_hint_*).
#include <rocmtpl/codegen/typed_hints.hpp>

#include <gtest/gtest.h>

namespace {
using namespace rocmtpl;

using x = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, sym<"K">>>>;
using w = static_buffer<"W", row_major_layout<f16_t, dims<sym<"K">, ext<32>>>>;
using y = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;
using sig = kernel_signature<inputs<x, w>, outputs<y>>;
using fixed = kernel_signature<inputs<static_buffer<"X", row_major_layout<f32_t, dims<ext<4>>>>>,
                               outputs<static_buffer<"Y", row_major_layout<f32_t, dims<ext<4>>>>>>;

static_assert(detail::hints_match<sig, "M", "K">() && detail::hints_match<sig, "K", "M">());
static_assert(detail::hints_match<fixed>());
static_assert(hints<"M", "K">::symbols[0] == "M" && hints<"M", "K">::symbols[1] == "K");
static_assert(hints<"M">{7}.values[0] == 7);

TEST(TypedHints, BecomeTheRuntimeRoutesMap) {
  const hints<"M", "K"> h{100, 64};
  EXPECT_EQ(h.to_map(), (size_hints{{"M", 100}, {"K", 64}}));
  EXPECT_TRUE(hints<>{}.to_map().empty());
}
}  // namespace

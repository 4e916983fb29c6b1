// SPDX-License-Identifier: MIT
// codegen/signature_rule.hpp: the constexpr data a policy declares for its typed signature (names
// by position, dtype sets, ranks, runtime arguments, a refusal). Deriving signatures from it is
// derived_signature_test.cpp's.
#include <rocmtpl/codegen/signature_rule.hpp>

#include <gtest/gtest.h>

namespace {
using namespace rocmtpl;

static_assert(float_dtypes.contains(dtype::f16) && float_dtypes.contains(dtype::bf16) &&
              float_dtypes.contains(dtype::f32));
static_assert(!float_dtypes.contains(dtype::f64) && !float_dtypes.contains(dtype::i32));
static_assert(dtype_set::all().contains(dtype::f8e5m2) && !dtype_set{}.contains(dtype::f16));
static_assert(dtype_set::of({dtype::i8, dtype::u8}) == dtype_set::of({dtype::u8, dtype::i8}));

constexpr signature_rule rule(std::size_t inputs) {
  signature_rule r;
  if (inputs != 1) return r.refuse("takes X");
  r.inputs[0] = {.name = "X", .dtypes = float_dtypes, .min_rank = 1, .max_rank = 2};
  r.output = {.name = "Y"};
  return r;
}
static_assert(rule(1).refusal.empty() && rule(1).inputs[0].name == "X" && rule(1).output.name == "Y");
static_assert(rule(2).refusal == "takes X");
// refuse() keeps what was declared before it.
static_assert(signature_rule{.output = {.name = "Y"}}.refuse("no").output.name == "Y");

TEST(SignatureRule, DtypeSetsHoldOneBitPerDtype) {
  const auto s = dtype_set::of({dtype::f32, dtype::i64});
  int count = 0;
  for (int d = 0; d <= static_cast<int>(dtype::f8e5m2); ++d) count += s.contains(static_cast<dtype>(d)) ? 1 : 0;
  EXPECT_EQ(count, 2);
  EXPECT_TRUE(s.contains(dtype::i64));
}
}  // namespace

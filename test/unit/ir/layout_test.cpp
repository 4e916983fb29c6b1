// SPDX-License-Identifier: MIT
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::sym_expr;

const sym_expr M = sym_expr::symbol("M");
const sym_expr N = sym_expr::symbol("N");

TEST(Layout, RowMajorStrides) {
  auto l = layout::row_major(dtype::f32, {2, 3, 4});
  EXPECT_EQ(l.strides(), (std::vector<sym_expr>{12, 4, 1}));
  EXPECT_TRUE(l.is_contiguous());
  EXPECT_TRUE(l.is_row_major());
  EXPECT_FALSE(l.is_col_major());
  EXPECT_EQ(l.leading_dimension(), sym_expr(4));
  EXPECT_EQ(l.numel(), sym_expr(24));
}

TEST(Layout, ColMajorStridesAndLeadingDimension) {
  auto l = layout::col_major(dtype::f16, {5, M, 7});
  EXPECT_EQ(l.strides(), (std::vector<sym_expr>{M * 7, 1, M}));
  EXPECT_TRUE(l.is_col_major());
  EXPECT_FALSE(l.is_row_major());
  EXPECT_FALSE(l.is_contiguous());
  EXPECT_EQ(l.leading_dimension(), M);  // stride[-1] when stride[-1] != 1
}

TEST(Layout, SymbolicRowMajor) {
  auto l = layout::row_major(dtype::bf16, {M, N});
  EXPECT_EQ(l.stride(0), N);
  EXPECT_EQ(l.stride(-1), sym_expr(1));
  EXPECT_EQ(l.leading_dimension(), N);
  EXPECT_EQ(l.free_symbols(), (std::vector<std::string>{"M", "N"}));
  EXPECT_FALSE(l.is_static());
}

TEST(Layout, StorageSizeOfAStridedView) {
  // A [4, 3] view with row stride 10 starting at 5: last element at 5 + 3*10 + 2.
  layout l(dtype::f32, {4, 3}, {10, 1}, 5);
  EXPECT_EQ(l.storage_size(), sym_expr(5 + 3 * 10 + 2 + 1));
  EXPECT_EQ(layout::row_major(dtype::f32, {0, 3}).storage_size(), sym_expr(0));
}

TEST(Layout, BadInputIsRejectedWithTheValues) {
  try {
    layout l(dtype::f32, {4, -2}, {1, 1});
    FAIL();
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("negative size -2 at dimension 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(layout(dtype::f32, {4}, {1, 1}), rocmtpl::invalid_argument_error);
  EXPECT_THROW(layout(dtype::f32, {4}, {-1}), rocmtpl::invalid_argument_error);
  EXPECT_THROW(layout(dtype::f32, {4}, {1}, -3), rocmtpl::invalid_argument_error);
  EXPECT_THROW((void)layout::col_major(dtype::f32, {4}), rocmtpl::invalid_argument_error);
  EXPECT_THROW((void)layout::row_major(dtype::f32, {4}).size(1), rocmtpl::out_of_range_error);
  EXPECT_THROW((void)layout::row_major(dtype::f32, {4}).stride(-2), rocmtpl::out_of_range_error);
}

TEST(Layout, TextIsStable) {
  EXPECT_EQ(layout::row_major(dtype::f16, {M, 64}).to_string(), "float16[M, 64] strides [64, 1] offset 0");
}

TEST(Layout, StaticLayoutConvertsLosslessly) {
  using rocmtpl::dims;
  using rocmtpl::ext;
  using rocmtpl::sym;
  using row = rocmtpl::row_major_layout<rocmtpl::f16_t, dims<sym<"M">, ext<64>>>;
  static_assert(row::rank == 2);
  static_assert(row::type == dtype::f16);
  EXPECT_EQ(row::to_value(), layout::row_major(dtype::f16, {M, 64}));
  using strided = rocmtpl::static_layout<rocmtpl::f32_t, dims<ext<4>, ext<3>>, dims<ext<1>, ext<4>>, 2>;
  EXPECT_EQ(strided::to_value(), layout(dtype::f32, {4, 3}, {1, 4}, 2));
  EXPECT_TRUE(strided::to_value().is_col_major());
}

// Issue 22 item 6: overlap_of() decides whether two indices of a layout address one element (what
// an output must not do): by stride, each stride at least the previous stride times its size.
TEST(LayoutOverlap, StaticLayoutsAreDecided) {
  using rocmtpl::overlap_kind;
  using rocmtpl::overlap_of;
  const auto kind = [](std::vector<sym_expr> sizes, std::vector<sym_expr> strides) {
    return overlap_of(layout(dtype::f32, std::move(sizes), std::move(strides))).kind;
  };
  // Disjoint: row-major, column-major (transposed), padded rows, batched, permuted batch, one-element dims.
  EXPECT_EQ(kind({4, 8}, {8, 1}), overlap_kind::disjoint);
  EXPECT_EQ(kind({4, 8}, {1, 4}), overlap_kind::disjoint);
  EXPECT_EQ(kind({4, 8}, {10, 1}), overlap_kind::disjoint);
  EXPECT_EQ(kind({2, 4, 8}, {32, 8, 1}), overlap_kind::disjoint);
  EXPECT_EQ(kind({2, 4, 8}, {8, 16, 1}), overlap_kind::disjoint);
  EXPECT_EQ(kind({1, 8}, {0, 1}), overlap_kind::disjoint);
  EXPECT_EQ(kind({4, 1}, {1, 0}), overlap_kind::disjoint);
  EXPECT_EQ(kind({}, {}), overlap_kind::disjoint);
  // Overlapping: a row stride below the row length, a stride 0, batches that share rows, equal strides.
  EXPECT_EQ(kind({4, 8}, {4, 1}), overlap_kind::overlapping);
  EXPECT_EQ(kind({4, 8}, {0, 1}), overlap_kind::overlapping);
  EXPECT_EQ(kind({2, 4, 8}, {16, 8, 1}), overlap_kind::overlapping);
  EXPECT_EQ(kind({4, 8}, {1, 1}), overlap_kind::overlapping);
  EXPECT_EQ(kind({4, 8}, {1, 3}), overlap_kind::overlapping);  // columns of 4 rows every 3 elements
  // Interleaved layouts outside the rule are refused too, though they do not overlap.
  EXPECT_EQ(kind({2, 3}, {3, 2}), overlap_kind::overlapping);
  const auto o = overlap_of(layout(dtype::f32, {4, 8}, {4, 1}));
  EXPECT_EQ(o.reason,
            "dimension 0 (size 4, stride 4) overlaps dimension 1 (size 8, stride 1): 4 < 1 * 8, so two indices "
            "address one element");
  EXPECT_EQ(overlap_of(layout(dtype::f32, {M, 8}, {0, 1})).reason,
            "stride 0 in dimension 0 (size M) puts its elements in one place");
}

TEST(LayoutOverlap, SymbolicLayoutsAreProvenOrLeftToTheRun) {
  using rocmtpl::overlap_kind;
  using rocmtpl::overlap_of;
  const sym_expr B = sym_expr::symbol("B");
  const sym_expr S = sym_expr::symbol("S");
  const auto kind = [](const layout& l) { return overlap_of(l).kind; };
  // Contiguous layouts of any symbolic sizes chain.
  EXPECT_EQ(kind(layout::row_major(dtype::f32, {M, N})), overlap_kind::disjoint);
  EXPECT_EQ(kind(layout::col_major(dtype::f32, {B, M, N})), overlap_kind::disjoint);
  EXPECT_EQ(kind(layout::row_major(dtype::f32, {B, M, N})), overlap_kind::disjoint);
  EXPECT_EQ(kind(layout(dtype::f32, {M, N}, {N + 4, 1})), overlap_kind::disjoint);  // padded by a constant
  EXPECT_EQ(kind(layout(dtype::f32, {M, 64}, {64, 1})), overlap_kind::disjoint);
  // A symbolic size counts as more than one element.
  EXPECT_EQ(kind(layout(dtype::f32, {M, 64}, {32, 1})), overlap_kind::overlapping);
  EXPECT_EQ(kind(layout(dtype::f32, {B, M, 64}, {S, 32, 1})), overlap_kind::overlapping);
  // The values decide: a symbolic row stride, a constant stride against a symbolic row length.
  EXPECT_EQ(kind(layout(dtype::f32, {M, N}, {S, 1})), overlap_kind::depends);
  EXPECT_EQ(kind(layout(dtype::f32, {M, N}, {64, 1})), overlap_kind::depends);
  EXPECT_EQ(kind(layout(dtype::f32, {B, M, N}, {S, N, 1})), overlap_kind::depends);
}

TEST(Buffer, NameMustBeAnIdentifier) {
  EXPECT_THROW(rocmtpl::buffer("1x", layout::row_major(dtype::f32, {1})), rocmtpl::invalid_argument_error);
  rocmtpl::buffer b("X", layout::row_major(dtype::f32, {M}));
  EXPECT_EQ(b.name(), "X");
  using sb = rocmtpl::static_buffer<"X", rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::sym<"M">>>>;
  EXPECT_EQ(sb::to_value(), b);
}

TEST(TensorMeta, ResolvesHints) {
  rocmtpl::buffer b("X", layout::row_major(dtype::bf16, {M, N}));
  auto m = rocmtpl::tensor_meta::from_buffer(b, {{"M", 3}, {"N", 5}});
  EXPECT_EQ(m.sizes, (std::vector<std::int64_t>{3, 5}));
  EXPECT_EQ(m.strides, (std::vector<std::int64_t>{5, 1}));
  EXPECT_EQ(m.numel(), 15);
  EXPECT_EQ(m.storage_bytes(), 30U);
  EXPECT_THROW((void)rocmtpl::tensor_meta::from_buffer(b, {{"M", 3}}), rocmtpl::evaluation_error);
}
}  // namespace

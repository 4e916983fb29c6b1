// SPDX-License-Identifier: MIT
// Tests of include/rocmtpl/ir/dim.hpp: the runtime values of compile-time dimensions.
// (The compile-time properties are checked by test/compile/dim_static_test.cpp.)

#include <rocmtpl/ir/dim.hpp>

#if defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H) || defined(__CUDA_RUNTIME_H__) || defined(_DLFCN_H) || \
    defined(FMT_VERSION) || defined(NLOHMANN_JSON_VERSION_MAJOR)
#error "rocmtpl/ir/dim.hpp pulled in a heavier header"
#endif

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

using rocmtpl::dims;
using rocmtpl::ext;
using rocmtpl::sym;
using rocmtpl::sym_expr;

const sym_expr M = sym_expr::symbol("M");
const sym_expr K = sym_expr::symbol("K");

TEST(Dim, ExtToValueIsTheConstant) {
  EXPECT_EQ(ext<0>::to_value(), sym_expr(0));
  EXPECT_EQ(ext<128>::to_value().constant(), 128);
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(ext<max>::to_value().constant(), max);
  EXPECT_TRUE(ext<3>::to_value().is_constant());
}

TEST(Dim, SymToValueIsTheSymbol) {
  EXPECT_EQ(sym<"M">::to_value(), M);
  EXPECT_TRUE(sym<"M">::to_value().is_symbol());
  EXPECT_EQ(sym<"batch_0">::to_value().symbol_name(), "batch_0");
  EXPECT_EQ(sym<"batch_0">::to_value().to_string(), "batch_0");
  EXPECT_EQ(sym<"batch_0">::to_value().to_cpp(), "u_batch_0");
  EXPECT_NE(sym<"M">::to_value(), sym<"N">::to_value());
}

TEST(Dim, DimsToValueKeepsOrder) {
  using shape = dims<sym<"M">, ext<64>, sym<"K">, ext<2>>;
  const std::vector<sym_expr> expected{M, 64, K, 2};
  EXPECT_EQ(shape::to_value(), expected);
  EXPECT_EQ(shape::to_value().size(), shape::rank);
  EXPECT_TRUE(dims<>::to_value().empty());
  EXPECT_EQ(dims<ext<7>>::to_value(), std::vector<sym_expr>{7});
}

TEST(Dim, NumelIsTheProduct) {
  EXPECT_EQ((dims<sym<"M">, ext<64>, sym<"K">>::numel()), 64 * M * K);
  EXPECT_EQ((dims<ext<4>, ext<8>>::numel()), sym_expr(rocmtpl::static_product_v<dims<ext<4>, ext<8>>>));
  EXPECT_EQ(dims<>::numel(), sym_expr(1));
  EXPECT_EQ((dims<sym<"M">, ext<0>>::numel()), sym_expr(0));
  EXPECT_EQ((dims<sym<"M">, sym<"M">>::numel()), M * M);
}

TEST(Dim, NumelOverflowOfStaticExtentsThrows) {
  using huge = dims<ext<(std::int64_t{1} << 40)>, sym<"M">, ext<(std::int64_t{1} << 40)>>;
  EXPECT_THROW((void)huge::numel(), rocmtpl::evaluation_error);
}

TEST(Dim, FreeSymbolsSortedUnique) {
  EXPECT_EQ((dims<sym<"N">, ext<3>, sym<"K">, sym<"N">>::free_symbols()), (std::vector<std::string>{"K", "N"}));
  EXPECT_TRUE((dims<ext<1>, ext<2>>::free_symbols().empty()));
  EXPECT_TRUE(dims<>::free_symbols().empty());
}

TEST(Dim, StaticExtentsMatchTheRuntimeValue) {
  using shape = dims<ext<3>, ext<5>, ext<7>>;
  const auto extents = rocmtpl::static_extents_v<shape>;
  const auto values = shape::to_value();
  ASSERT_EQ(extents.size(), values.size());
  for (std::size_t i = 0; i < extents.size(); ++i) EXPECT_EQ(values[i].constant(), extents[i]);
  EXPECT_EQ(rocmtpl::static_product_v<shape>, 105);
  EXPECT_EQ(shape::numel().constant(), rocmtpl::static_product_v<shape>);
}

}  // namespace

// SPDX-License-Identifier: MIT
// templates/detail/element_access.hpp: element loads, stores and literals shared by the templates.
#include <rocmtpl/templates/detail/element_access.hpp>

#include <gtest/gtest.h>

namespace {
namespace td = rocmtpl::templates::detail;
using rocmtpl::dtype;

TEST(ElementAccess, LoadsAndStoresPerDtype) {
  EXPECT_EQ(td::load_as_float(dtype::f32, "X[i]"), "static_cast<float>(X[i])");
  EXPECT_EQ(td::load_as_float(dtype::f16, "X[i]"), "rocmtpl_dev::half_bits_to_float(X[i])");
  EXPECT_EQ(td::load_as_float(dtype::bf16, "X[i]"), "rocmtpl_dev::bf16_bits_to_float(X[i])");
  EXPECT_EQ(td::store_from_float(dtype::f32, "v"), "v");
  EXPECT_EQ(td::store_from_float(dtype::f16, "v"), "rocmtpl_dev::float_to_half_bits(v)");
  EXPECT_EQ(td::store_from_float(dtype::bf16, "v"), "rocmtpl_dev::float_to_bf16_bits(v)");
  EXPECT_EQ(td::storage_text(rocmtpl::buffer("x", rocmtpl::layout::row_major(dtype::f16, {4}))), "uint16_t");
}

TEST(ElementAccess, LiteralsRoundTrip) {
  EXPECT_EQ(td::float_literal(1.0F), "1.0f");
  EXPECT_EQ(td::float_literal(0.5F), "0.5f");
  EXPECT_EQ(td::double_literal(2.0F), "2.0");
  EXPECT_EQ(td::float_literal(0.1F), "0.100000001f");
  EXPECT_EQ(std::stof(td::double_literal(1e-20F)), 1e-20F);
}
}  // namespace

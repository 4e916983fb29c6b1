// SPDX-License-Identifier: MIT
#include <rocmtpl/ir/dtype.hpp>

#include <gtest/gtest.h>

namespace {
using rocmtpl::dtype;

TEST(Dtype, ElementSizes) {
  EXPECT_EQ(rocmtpl::element_size(dtype::f16), 2U);
  EXPECT_EQ(rocmtpl::element_size(dtype::bf16), 2U);
  EXPECT_EQ(rocmtpl::element_size(dtype::f32), 4U);
  EXPECT_EQ(rocmtpl::element_size(dtype::f64), 8U);
  EXPECT_EQ(rocmtpl::element_size(dtype::i8), 1U);
  EXPECT_EQ(rocmtpl::element_size(dtype::u8), 1U);
  EXPECT_EQ(rocmtpl::element_size(dtype::i32), 4U);
  EXPECT_EQ(rocmtpl::element_size(dtype::i64), 8U);
  EXPECT_EQ(rocmtpl::element_size(dtype::boolean), 1U);
  EXPECT_EQ(rocmtpl::element_size(dtype::f8e4m3), 1U);
  EXPECT_EQ(rocmtpl::element_size(dtype::f8e5m2), 1U);
}

TEST(Dtype, StorageSpellingsFollowTheReference) {
  EXPECT_EQ(rocmtpl::storage_type(dtype::f16), "uint16_t");
  EXPECT_EQ(rocmtpl::storage_type(dtype::bf16), "uint16_t");
  EXPECT_EQ(rocmtpl::storage_type(dtype::f8e4m3), "uint8_t");
  EXPECT_EQ(rocmtpl::storage_type(dtype::f8e5m2), "uint8_t");
  EXPECT_EQ(rocmtpl::storage_type(dtype::f32), "float");
  EXPECT_EQ(rocmtpl::storage_type(dtype::i64), "int64_t");
  EXPECT_EQ(rocmtpl::storage_type(dtype::boolean), "bool");
}

TEST(Dtype, ComputeSpellings) {
  EXPECT_EQ(rocmtpl::compute_type(dtype::f16), "__half");
  EXPECT_EQ(rocmtpl::compute_type(dtype::bf16), "hip_bfloat16");
  EXPECT_EQ(rocmtpl::compute_type(dtype::f64), "double");
}

TEST(Dtype, ParseRoundTripsEveryName) {
  for (const auto& entry : rocmtpl::detail::dtype_table) {
    EXPECT_EQ(rocmtpl::parse_dtype(entry.name), entry.value) << entry.name;
  }
  EXPECT_EQ(rocmtpl::parse_dtype("fp16"), dtype::f16);
  EXPECT_EQ(rocmtpl::parse_dtype("bf16"), dtype::bf16);
  EXPECT_EQ(rocmtpl::parse_dtype("f32"), dtype::f32);
}

TEST(Dtype, UnknownNameListsTheAcceptedOnes) {
  try {
    (void)rocmtpl::parse_dtype("float128");
    FAIL() << "expected invalid_argument_error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("float128"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("bfloat16"), std::string::npos);
  }
}

TEST(Dtype, ValueOutsideTheEnumerationHasNoSpelling) {
  const auto bogus = static_cast<dtype>(200);
  EXPECT_THROW((void)rocmtpl::storage_type(bogus), rocmtpl::invalid_argument_error);
  EXPECT_THROW((void)rocmtpl::element_size(bogus), rocmtpl::invalid_argument_error);
}

TEST(Dtype, TagsConvertToValues) {
  static_assert(rocmtpl::f16_t::to_value() == dtype::f16);
  static_assert(rocmtpl::bf16_t::value == dtype::bf16);
  static_assert(rocmtpl::dtype_tag_type<rocmtpl::f32_t>);
  static_assert(!rocmtpl::dtype_tag_type<float>);
  EXPECT_EQ(rocmtpl::f8e5m2_t::to_value(), dtype::f8e5m2);
}

TEST(Dtype, PureLayerPullsInNoGpuHeaders) {
#if defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H) || defined(__CUDA_RUNTIME_H__) || defined(_DLFCN_H)
  FAIL() << "the pure layer included a GPU or dlopen header";
#else
  SUCCEED();
#endif
}
}  // namespace

// SPDX-License-Identifier: MIT
// rocmtpl/ir/host_types.hpp: every dtype's host and storage types; the storage type is the one
// storage_type() spells, and the 8- and 16-bit float types are distinct structs of that size.
#include <rocmtpl/ir/host_types.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace {
using namespace rocmtpl;

static_assert(std::is_same_v<host_type_t<dtype::f16>, half_t>);
static_assert(std::is_same_v<host_type_t<dtype::bf16>, bfloat16_t>);
static_assert(std::is_same_v<host_type_t<dtype::f8e4m3>, float8_e4m3_t>);
static_assert(std::is_same_v<host_type_t<dtype::f8e5m2>, float8_e5m2_t>);
static_assert(std::is_same_v<host_type_t<dtype::f32>, float>);
static_assert(std::is_same_v<host_type_t<dtype::i64>, std::int64_t>);
static_assert(!std::is_same_v<host_type_t<dtype::f16>, host_type_t<dtype::bf16>>);
static_assert(!std::is_convertible_v<half_t*, bfloat16_t*> && !std::is_convertible_v<half_t*, std::uint16_t*>);
static_assert(sizeof(half_t) == 2 && sizeof(bfloat16_t) == 2 && sizeof(float8_e4m3_t) == 1);
static_assert(std::is_standard_layout_v<half_t> && std::is_trivially_copyable_v<bfloat16_t>);
static_assert(is_host_element_v<half_t> && is_host_element_v<float> && !is_host_element_v<void>);
static_assert(half_t{0x3c00} == half_t{0x3c00} && !(bfloat16_t{1} == bfloat16_t{2}));

// The C++ storage type's spelling, for the types storage_type() uses.
template <class T>
constexpr std::string_view spelling() {
  if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16_t";
  if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8_t";
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8_t";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32_t";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  return "?";
}

template <dtype D>
void expect_consistent() {
  EXPECT_EQ(spelling<storage_type_t<D>>(), storage_type(D)) << name(D);
  EXPECT_EQ(sizeof(host_type_t<D>), element_size(D)) << name(D);
  EXPECT_EQ(sizeof(storage_type_t<D>), element_size(D)) << name(D);
}

TEST(HostTypes, StorageTypesAreTheOnesTheCAbiSpells) {
  expect_consistent<dtype::f16>();
  expect_consistent<dtype::bf16>();
  expect_consistent<dtype::f32>();
  expect_consistent<dtype::f64>();
  expect_consistent<dtype::i8>();
  expect_consistent<dtype::u8>();
  expect_consistent<dtype::i32>();
  expect_consistent<dtype::i64>();
  expect_consistent<dtype::boolean>();
  expect_consistent<dtype::f8e4m3>();
  expect_consistent<dtype::f8e5m2>();
}
}  // namespace

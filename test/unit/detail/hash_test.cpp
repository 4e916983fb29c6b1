// SPDX-License-Identifier: MIT
// rocmtpl/detail/hash.hpp: xxh3-64 of a text, printed as 16 lowercase hex digits.
#include <rocmtpl/detail/hash.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
using namespace rocmtpl::detail;

TEST(Hash, Hex16IsZeroPaddedLowercase) {
  EXPECT_EQ(hex16(0), "0000000000000000");
  EXPECT_EQ(hex16(0xABCDEFull), "0000000000abcdef");
  EXPECT_EQ(hex16(~0ull), "ffffffffffffffff");
}

TEST(Hash, HashHexIsXxh3Of64Bits) {
  EXPECT_EQ(hash64(""), 0x2D06800538D394C2ull);  // XXH3_64bits of the empty input (seed 0)
  EXPECT_EQ(hash_hex(""), "2d06800538d394c2");
  EXPECT_EQ(hash_hex("kernel"), hex16(hash64("kernel")));
  EXPECT_NE(hash_hex("kernel"), hash_hex("kernel "));
  EXPECT_EQ(hash_hex("kernel").size(), 16u);
}

}  // namespace

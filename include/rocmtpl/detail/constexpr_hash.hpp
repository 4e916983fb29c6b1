// SPDX-License-Identifier: MIT
#pragma once

// XXH3-64 (xxHash 0.8, seed 0, the default secret) in constant evaluation: the value
// detail::hash64() computes at run time through xxhash.h, for text rendered at compile time
// (templates/static_source.hpp). A straight port of xxhash.h's scalar path (XXH3_64bits():
// XXH3_len_0to16_64b, XXH3_len_17to128_64b, XXH3_len_129to240_64b, XXH3_hashLong_64b with
// XXH3_accumulate_512_scalar and XXH3_scrambleAcc_scalar), reading the bytes little-endian one by
// one so that no memcpy or reinterpret_cast is needed. test/unit/detail/constexpr_hash_test.cpp
// compares it with hash64() for every length up to a few kilobytes.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rocmtpl::detail {

namespace xxh3_impl {

inline constexpr std::uint64_t prime32_1 = 0x9E3779B1U;
inline constexpr std::uint64_t prime32_2 = 0x85EBCA77U;
inline constexpr std::uint64_t prime32_3 = 0xC2B2AE3DU;
inline constexpr std::uint64_t prime64_1 = 0x9E3779B185EBCA87ULL;
inline constexpr std::uint64_t prime64_2 = 0xC2B2AE3D27D4EB4FULL;
inline constexpr std::uint64_t prime64_3 = 0x165667B19E3779F9ULL;
inline constexpr std::uint64_t prime64_4 = 0x85EBCA77C2B2AE63ULL;
inline constexpr std::uint64_t prime64_5 = 0x27D4EB2F165667C5ULL;

inline constexpr std::array<std::uint8_t, 192> secret{
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c, 0xde, 0xd4,
    0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f, 0xcb, 0x79, 0xe6, 0x4e,
    0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21, 0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43,
    0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c, 0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb,
    0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3, 0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19,
    0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8, 0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7,
    0xc7, 0x0b, 0x4f, 0x1d, 0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78,
    0x73, 0x64, 0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e, 0x2b, 0x16,
    0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce, 0x45, 0xcb, 0x3a, 0x8f,
    0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

constexpr std::uint64_t read64(std::string_view s, std::size_t at) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 8; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}
constexpr std::uint32_t read32(std::string_view s, std::size_t at) noexcept {
  std::uint32_t v = 0;
  for (std::size_t i = 4; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}
constexpr std::uint64_t key64(std::size_t at) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 8; i-- > 0;) v = (v << 8) | secret[at + i];
  return v;
}
constexpr std::uint64_t key32(std::size_t at) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 4; i-- > 0;) v = (v << 8) | secret[at + i];
  return v;
}

constexpr std::uint64_t rotl64(std::uint64_t x, int r) noexcept { return (x << r) | (x >> (64 - r)); }
constexpr std::uint64_t swap64(std::uint64_t x) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | ((x >> (8 * i)) & 0xFF);
  return v;
}

// The 128-bit product of two 64-bit values, its halves folded by xor (XXH3_mul128_fold64's portable form).
constexpr std::uint64_t mul128_fold64(std::uint64_t lhs, std::uint64_t rhs) noexcept {
  const std::uint64_t lo_lo = (lhs & 0xFFFFFFFF) * (rhs & 0xFFFFFFFF);
  const std::uint64_t hi_lo = (lhs >> 32) * (rhs & 0xFFFFFFFF);
  const std::uint64_t lo_hi = (lhs & 0xFFFFFFFF) * (rhs >> 32);
  const std::uint64_t hi_hi = (lhs >> 32) * (rhs >> 32);
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFF) + lo_hi;
  const std::uint64_t upper = (hi_lo >> 32) + (cross >> 32) + hi_hi;
  const std::uint64_t lower = (cross << 32) | (lo_lo & 0xFFFFFFFF);
  return lower ^ upper;
}

constexpr std::uint64_t xxh64_avalanche(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= prime64_2;
  h ^= h >> 29;
  h *= prime64_3;
  h ^= h >> 32;
  return h;
}
constexpr std::uint64_t avalanche(std::uint64_t h) noexcept {
  h ^= h >> 37;
  h *= 0x165667919E3779F9ULL;
  h ^= h >> 32;
  return h;
}
constexpr std::uint64_t rrmxmx(std::uint64_t h, std::uint64_t len) noexcept {
  h ^= rotl64(h, 49) ^ rotl64(h, 24);
  h *= 0x9FB21C651E98DF25ULL;
  h ^= (h >> 35) + len;
  h *= 0x9FB21C651E98DF25ULL;
  return h ^ (h >> 28);
}

constexpr std::uint64_t len_0to16(std::string_view s) noexcept {
  const std::size_t len = s.size();
  if (len > 8) {
    const std::uint64_t bitflip1 = key64(24) ^ key64(32);
    const std::uint64_t bitflip2 = key64(40) ^ key64(48);
    const std::uint64_t lo = read64(s, 0) ^ bitflip1;
    const std::uint64_t hi = read64(s, len - 8) ^ bitflip2;
    return avalanche(len + swap64(lo) + hi + mul128_fold64(lo, hi));
  }
  if (len >= 4) {
    const std::uint64_t in1 = read32(s, 0);
    const std::uint64_t in2 = read32(s, len - 4);
    const std::uint64_t bitflip = key64(8) ^ key64(16);  // minus the seed (0)
    return rrmxmx((in2 + (in1 << 32)) ^ bitflip, len);
  }
  if (len > 0) {
    const std::uint32_t c1 = static_cast<unsigned char>(s[0]);
    const std::uint32_t c2 = static_cast<unsigned char>(s[len >> 1]);
    const std::uint32_t c3 = static_cast<unsigned char>(s[len - 1]);
    const std::uint32_t combined = (c1 << 16) | (c2 << 24) | (c3 << 0) | (static_cast<std::uint32_t>(len) << 8);
    const std::uint64_t bitflip = key32(0) ^ key32(4);
    return xxh64_avalanche(static_cast<std::uint64_t>(combined) ^ bitflip);
  }
  return xxh64_avalanche(key64(56) ^ key64(64));
}

constexpr std::uint64_t mix16(std::string_view s, std::size_t at, std::size_t key) noexcept {
  return mul128_fold64(read64(s, at) ^ key64(key), read64(s, at + 8) ^ key64(key + 8));
}

constexpr std::uint64_t len_17to128(std::string_view s) noexcept {
  const std::size_t len = s.size();
  std::uint64_t acc = len * prime64_1;
  if (len > 32) {
    if (len > 64) {
      if (len > 96) {
        acc += mix16(s, 48, 96);
        acc += mix16(s, len - 64, 112);
      }
      acc += mix16(s, 32, 64);
      acc += mix16(s, len - 48, 80);
    }
    acc += mix16(s, 16, 32);
    acc += mix16(s, len - 32, 48);
  }
  acc += mix16(s, 0, 0);
  acc += mix16(s, len - 16, 16);
  return avalanche(acc);
}

constexpr std::uint64_t len_129to240(std::string_view s) noexcept {
  const std::size_t len = s.size();
  std::uint64_t acc = len * prime64_1;
  const std::size_t rounds = len / 16;
  for (std::size_t i = 0; i < 8; ++i) acc += mix16(s, 16 * i, 16 * i);
  acc = avalanche(acc);
  for (std::size_t i = 8; i < rounds; ++i) acc += mix16(s, 16 * i, 16 * (i - 8) + 3);
  acc += mix16(s, len - 16, 136 - 17);
  return avalanche(acc);
}

constexpr void accumulate_512(std::array<std::uint64_t, 8>& acc, std::string_view s, std::size_t at,
                              std::size_t key) noexcept {
  for (std::size_t i = 0; i < 8; ++i) {
    const std::uint64_t data_val = read64(s, at + 8 * i);
    const std::uint64_t data_key = data_val ^ key64(key + 8 * i);
    acc[i ^ 1] += data_val;
    acc[i] += (data_key & 0xFFFFFFFF) * (data_key >> 32);
  }
}

constexpr void scramble(std::array<std::uint64_t, 8>& acc, std::size_t key) noexcept {
  for (std::size_t i = 0; i < 8; ++i) {
    std::uint64_t a = acc[i];
    a ^= a >> 47;
    a ^= key64(key + 8 * i);
    a *= prime32_1;
    acc[i] = a;
  }
}

constexpr std::uint64_t hash_long(std::string_view s) noexcept {
  constexpr std::size_t stripe = 64;
  constexpr std::size_t secret_size = secret.size();
  constexpr std::size_t stripes_per_block = (secret_size - stripe) / 8;
  constexpr std::size_t block_len = stripe * stripes_per_block;
  const std::size_t len = s.size();
  const std::size_t blocks = (len - 1) / block_len;
  std::array<std::uint64_t, 8> acc{prime32_3, prime64_1, prime64_2, prime64_3,
                                   prime64_4, prime32_2, prime64_5, prime32_1};
  for (std::size_t n = 0; n < blocks; ++n) {
    for (std::size_t k = 0; k < stripes_per_block; ++k) accumulate_512(acc, s, n * block_len + k * stripe, k * 8);
    scramble(acc, secret_size - stripe);
  }
  const std::size_t stripes = ((len - 1) - block_len * blocks) / stripe;
  for (std::size_t k = 0; k < stripes; ++k) accumulate_512(acc, s, blocks * block_len + k * stripe, k * 8);
  accumulate_512(acc, s, len - stripe, secret_size - stripe - 7);
  std::uint64_t result = len * prime64_1;
  for (std::size_t i = 0; i < 4; ++i) {
    result += mul128_fold64(acc[2 * i] ^ key64(11 + 16 * i), acc[2 * i + 1] ^ key64(11 + 16 * i + 8));
  }
  return avalanche(result);
}

}  // namespace xxh3_impl

/// XXH3_64bits(text) with seed 0: detail::hash64()'s value, usable in constant expressions.
[[nodiscard]] constexpr std::uint64_t xxh3_64(std::string_view text) noexcept {
  namespace impl = xxh3_impl;
  if (text.size() <= 16) return impl::len_0to16(text);
  if (text.size() <= 128) return impl::len_17to128(text);
  if (text.size() <= 240) return impl::len_129to240(text);
  return impl::hash_long(text);
}

}  // namespace rocmtpl::detail

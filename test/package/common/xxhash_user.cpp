// SPDX-License-Identifier: MIT
// A program that uses xxHash itself next to rocmtpl: <xxhash.h> included (without XXH_INLINE_ALL)
// before and after rocmtpl's hash header, and XXH3_64bits called directly. Built with the compiler
// alone (no -lxxhash, no define): rocmtpl's inlining must neither break the user's includes nor
// leave a call to the library. Exits non-zero when the two hashes of one text differ.
#include <xxhash.h>

#include <rocmtpl/detail/hash.hpp>

#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <string_view>

int main() {
  constexpr std::string_view text = "rocmtpl";
  const std::uint64_t own = XXH3_64bits(text.data(), text.size());
  const std::uint64_t theirs = rocmtpl::detail::hash64(text);
  if (own != theirs) {
    std::fprintf(stderr, "xxhash_user: XXH3_64bits %016llx, rocmtpl::detail::hash64 %016llx\n",
                 static_cast<unsigned long long>(own), static_cast<unsigned long long>(theirs));
    return 1;
  }
  std::printf("xxhash_user: %s\n", rocmtpl::detail::hex16(own).c_str());
  return 0;
}

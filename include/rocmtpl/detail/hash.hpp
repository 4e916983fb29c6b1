// SPDX-License-Identifier: MIT
#pragma once

// Stable content hashes (xxHash XXH3-64) as fixed-width lowercase hex.

#include <cstdint>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>

// Header-only: xxHash is compiled into the including translation unit (XXH_INLINE_ALL), so a
// program needs neither a define nor -lxxhash. In that mode xxhash.h declares every function
// `static inline` under the prefix XXH_INLINE_ (XXH3_64bits names XXH_INLINE_XXH3_64bits), which
// holds even where the user included <xxhash.h> before: no symbol clashes with a linked libxxhash,
// and the user's later XXH* calls resolve to the same inlined functions. A user's own XXH_INLINE_ALL
// is left as it is; ours is undefined again after the include.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#define ROCMTPL_DETAIL_XXH_INLINE_ALL_DEFINED
#endif
#include <xxhash.h>
#ifdef ROCMTPL_DETAIL_XXH_INLINE_ALL_DEFINED
#undef XXH_INLINE_ALL
#undef ROCMTPL_DETAIL_XXH_INLINE_ALL_DEFINED
#endif

namespace rocmtpl::detail {

[[nodiscard]] std::uint64_t hash64(std::string_view text) noexcept;

[[nodiscard]] std::string hex16(std::uint64_t value);

[[nodiscard]] inline std::string hash_hex(std::string_view text) { return hex16(hash64(text)); }

}  // namespace rocmtpl::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/detail/hash-inl.hpp>
#endif

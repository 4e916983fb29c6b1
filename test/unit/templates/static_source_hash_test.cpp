// SPDX-License-Identifier: MIT
// The constant-evaluation renders' hashes, checked at compile time: for each problem of
// test/support/static_source_cases.hpp, static_assert(Source::hash == K) where K is the XXH3-64 of
// the run-time render, kept in the golden file test/golden/expected/static_source_hashes.inc
// (golden_tests writes and checks it: ROCMTPL_UPDATE_GOLDEN=1). This file compiling is the test; the
// TEST below checks the same K against the run-time render once more, at run time.
#include <rocmtpl/detail/constexpr_hash.hpp>
#include <rocmtpl/detail/hash.hpp>

#include "support/static_source_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace {
namespace cases = rocmtpl::test::static_cases;

// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): expands the golden file's lines
#define ROCMTPL_STATIC_HASH(name, k)                                                                             \
  static_assert(cases::name::source::hash == (k),                                                                \
                "rocmtpl: the constant render of " #name                                                         \
                " does not hash to the run-time render's value in static_source_hashes.inc; if the run-time "    \
                "text changed on purpose, regenerate the file (ROCMTPL_UPDATE_GOLDEN=1 golden_tests), else the " \
                "constant renderer (templates/static_source.hpp) differs from the run-time one");                \
  static_assert(cases::name::source::hash == rocmtpl::detail::xxh3_64(cases::name::source::text.view()));
#include "golden/expected/static_source_hashes.inc"
#undef ROCMTPL_STATIC_HASH

// Every case has its line in the file (a missing line would check nothing).
constexpr int golden_lines = 0
#define ROCMTPL_STATIC_HASH(name, k) +1
#include "golden/expected/static_source_hashes.inc"
#undef ROCMTPL_STATIC_HASH
    ;
#define ROCMTPL_COUNT_CASE(name) +1
constexpr int case_count = 0 ROCMTPL_STATIC_SOURCE_CASES(ROCMTPL_COUNT_CASE);
#undef ROCMTPL_COUNT_CASE
static_assert(golden_lines == case_count,
              "rocmtpl: static_source_hashes.inc lists another set of cases than static_source_cases.hpp; regenerate "
              "it (ROCMTPL_UPDATE_GOLDEN=1 golden_tests)");

TEST(StaticSourceHash, TheGoldenHashesAreTheRuntimeRenders) {
#define ROCMTPL_STATIC_HASH(name, k) \
  EXPECT_EQ(rocmtpl::detail::hash64(cases::name::render()), std::uint64_t{k}) << #name;
#include "golden/expected/static_source_hashes.inc"
#undef ROCMTPL_STATIC_HASH
}

}  // namespace

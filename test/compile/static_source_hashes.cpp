// SPDX-License-Identifier: MIT
// The constant-evaluation renders of test/support/static_source_cases.hpp hash (XXH3-64, in constant
// evaluation) to the values the run-time renders hash to, kept in the golden file
// test/golden/expected/static_source_hashes.inc (golden_tests writes and checks it; refresh with
// ROCMTPL_UPDATE_GOLDEN=1). Building this file is the test, under each compiler a preset uses
// (unit_templates_tests' static_source_hash_test.cpp asserts the same under the sanitizer build).
#include "../support/static_source_cases.hpp"

namespace cases = rocmtpl::test::static_cases;

// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): expands the golden file's lines
#define ROCMTPL_STATIC_HASH(name, k)                                                                         \
  static_assert(cases::name::source::hash == (k),                                                            \
                "rocmtpl: the constant render of " #name                                                     \
                " does not hash to the run-time render's value in static_source_hashes.inc; regenerate the " \
                "file if the run-time text changed on purpose (ROCMTPL_UPDATE_GOLDEN=1 golden_tests), else " \
                "the constant renderer (templates/static_source.hpp) differs from the run-time one");
#include "../golden/expected/static_source_hashes.inc"
#undef ROCMTPL_STATIC_HASH

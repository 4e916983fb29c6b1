// SPDX-License-Identifier: MIT
// The owner of a test kind's precompiled headers (test/CMakeLists.txt, ROCMTPL_TEST_PCH): compiled
// with the same flags as the kind's test programs, which reuse its precompiled headers.
namespace rocmtpl::test {
[[maybe_unused]] constexpr int pch_owner = 0;
}  // namespace rocmtpl::test

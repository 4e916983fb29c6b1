// SPDX-License-Identifier: MIT
#pragma once

// Test support: comparing a rendered source with a checked-in golden file in test/golden/expected/.
// With ROCMTPL_UPDATE_GOLDEN=1 in the environment the file is rewritten instead (and the test is
// reported as skipped); review the diff before committing it.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rocmtpl::test {

// Compares `actual` with test/golden/expected/<name> (ROCMTPL_TEST_SOURCE_DIR is the test folder).
void check_golden(const std::string& name, const std::string& actual);

}  // namespace rocmtpl::test

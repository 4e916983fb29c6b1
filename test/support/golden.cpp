// SPDX-License-Identifier: MIT
#include "support/golden.hpp"

namespace rocmtpl::test {

void check_golden(const std::string& name, const std::string& actual) {
  const std::filesystem::path file = std::filesystem::path(ROCMTPL_TEST_SOURCE_DIR) / "golden" / "expected" / name;
  if (const char* update = std::getenv("ROCMTPL_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(file, std::ios::binary) << actual;
    GTEST_SKIP() << "regenerated " << file;
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << file << "; run with ROCMTPL_UPDATE_GOLDEN=1";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "rendered source differs from " << file
                                    << "; if intended, regenerate with ROCMTPL_UPDATE_GOLDEN=1";
}

}  // namespace rocmtpl::test

// SPDX-License-Identifier: MIT
// rocmtpl/codegen/status.hpp: the codes generated entry points return, their text and their #defines.
#include <rocmtpl/codegen/status.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
using rocmtpl::describe;
using rocmtpl::kernel_status;
using rocmtpl::kernel_status_defines;

TEST(KernelStatus, DefinesMatchTheEnumerators) {
  const std::string defines(kernel_status_defines);
  auto defined = [&](const std::string& name, kernel_status s) {
    return defines.find("#define ROCMTPL_STATUS_" + name + " " + std::to_string(static_cast<int>(s)) + "\n") !=
           std::string::npos;
  };
  EXPECT_TRUE(defined("OK", kernel_status::ok));
  EXPECT_TRUE(defined("LAUNCH_FAILED", kernel_status::launch_failed));
  EXPECT_TRUE(defined("NULL_ARGUMENT", kernel_status::null_argument));
  EXPECT_TRUE(defined("UNSUPPORTED_ARGUMENT", kernel_status::unsupported_argument));
  EXPECT_TRUE(defined("WORKSPACE_TOO_SMALL", kernel_status::workspace_too_small));
  EXPECT_EQ(static_cast<int>(kernel_status::ok), 0);  // the C ABI: 0 is success
}

TEST(KernelStatus, EveryCodeHasItsOwnText) {
  static_assert(describe(0) == "ok");
  const std::string unknown(describe(-1));
  EXPECT_EQ(describe(99), unknown);
  for (int code = 1; code <= 4; ++code) {
    EXPECT_NE(std::string(describe(code)), unknown) << code;
    EXPECT_NE(describe(code), describe(code - 1)) << code;
  }
  EXPECT_NE(std::string(describe(static_cast<int>(kernel_status::null_argument))).find("null"), std::string::npos);
}

}  // namespace

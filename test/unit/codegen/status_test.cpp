// SPDX-License-Identifier: MIT
// rocmtpl/codegen/status.hpp: the codes generated entry points return, their text and their
// #defines; kernel_status is the host's type for them (issue 8).
#include <rocmtpl/codegen/status.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace {
using rocmtpl::describe;
using rocmtpl::kernel_status;
using rocmtpl::kernel_status_defines;
using rocmtpl::status_code;
using rocmtpl::to_kernel_status;

static_assert(to_kernel_status(0) == kernel_status::ok);
static_assert(to_kernel_status(4) == kernel_status::workspace_too_small);
static_assert(status_code(kernel_status::null_argument) == 2);

TEST(KernelStatus, DefinesMatchTheEnumerators) {
  const std::string defines(kernel_status_defines);
  auto defined = [&](const std::string& name, kernel_status s) {
    return defines.find("#define ROCMTPL_STATUS_" + name + " " + std::to_string(status_code(s)) + "\n") !=
           std::string::npos;
  };
  EXPECT_TRUE(defined("OK", kernel_status::ok));
  EXPECT_TRUE(defined("LAUNCH_FAILED", kernel_status::launch_failed));
  EXPECT_TRUE(defined("NULL_ARGUMENT", kernel_status::null_argument));
  EXPECT_TRUE(defined("UNSUPPORTED_ARGUMENT", kernel_status::unsupported_argument));
  EXPECT_TRUE(defined("WORKSPACE_TOO_SMALL", kernel_status::workspace_too_small));
  EXPECT_EQ(status_code(kernel_status::ok), 0);  // the C ABI: 0 is success
  // The compile-time check behind the header's static_assert can fail.
  EXPECT_FALSE(rocmtpl::detail::defines_status("ROCMTPL_STATUS_OK", kernel_status::launch_failed));
  EXPECT_FALSE(rocmtpl::detail::defines_status("ROCMTPL_STATUS_MISSING", kernel_status::ok));
}

TEST(KernelStatus, EveryCodeHasItsOwnText) {
  static_assert(describe(kernel_status::ok) == "ok");
  const std::string unknown(describe(to_kernel_status(-1)));
  // A code from a newer generated library stays representable and is named as unknown.
  EXPECT_EQ(describe(to_kernel_status(99)), unknown);
  EXPECT_EQ(status_code(to_kernel_status(99)), 99);
  for (int code = 1; code <= 4; ++code) {
    EXPECT_NE(std::string(describe(to_kernel_status(code))), unknown) << code;
    EXPECT_NE(describe(to_kernel_status(code)), describe(to_kernel_status(code - 1))) << code;
  }
  EXPECT_NE(std::string(describe(kernel_status::null_argument)).find("null"), std::string::npos);
}

TEST(KernelStatus, PrintsCodeAndText) {
  std::ostringstream os;
  os << kernel_status::unsupported_argument;
  EXPECT_EQ(os.str(), "3 (arguments not supported by this kernel configuration)");
}

}  // namespace

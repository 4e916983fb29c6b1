// SPDX-License-Identifier: MIT
// kernel_status: the host's type for what a generated entry point returns (issue 8).
#include <rocmtpl/codegen/status.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace {

using rocmtpl::kernel_status;

static_assert(rocmtpl::to_kernel_status(0) == kernel_status::ok);
static_assert(rocmtpl::to_kernel_status(4) == kernel_status::workspace_too_small);
static_assert(rocmtpl::status_code(kernel_status::null_argument) == 2);

TEST(KernelStatus, DescribesKnownAndUnknownCodes) {
  EXPECT_EQ(rocmtpl::describe(kernel_status::ok), "ok");
  EXPECT_EQ(rocmtpl::describe(kernel_status::null_argument), "null tensor argument with a non-zero size");
  // A code from a newer generated library stays representable and is named as unknown.
  EXPECT_EQ(rocmtpl::describe(rocmtpl::to_kernel_status(77)), "unknown status");
  EXPECT_EQ(rocmtpl::status_code(rocmtpl::to_kernel_status(77)), 77);
  std::ostringstream os;
  os << kernel_status::unsupported_argument;
  EXPECT_EQ(os.str(), "3 (arguments not supported by this kernel configuration)");
}

TEST(KernelStatus, DefinesForGeneratedSourcesMatchTheEnum) {
  const std::string defines(rocmtpl::kernel_status_defines);
  EXPECT_NE(defines.find("#define ROCMTPL_STATUS_OK 0\n"), std::string::npos);
  EXPECT_NE(defines.find("#define ROCMTPL_STATUS_WORKSPACE_TOO_SMALL 4\n"), std::string::npos);
  EXPECT_FALSE(rocmtpl::detail::defines_status("ROCMTPL_STATUS_OK", kernel_status::launch_failed));
  EXPECT_FALSE(rocmtpl::detail::defines_status("ROCMTPL_STATUS_MISSING", kernel_status::ok));
}

}  // namespace

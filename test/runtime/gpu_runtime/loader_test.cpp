// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu_runtime/loader.hpp on a machine without a GPU: loading never
// throws for a missing library or device, the status says why no GPU can be used, every operation
// throws no_gpu_error. Where a runtime library is installed, the test checks that it was found and
// probed (not merely absent). An invalid ROCMTPL_PLATFORM makes gpu_runtime::instance() throw.
#include <rocmtpl/runtime/gpu_runtime/loader.hpp>

#include "runtime/gpu_runtime/gpu_runtime_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

using rocmtpl::runtime::gpu_runtime;
using rocmtpl::runtime::gpu_runtime_options;
using rocmtpl::runtime::no_gpu_error;
using rocmtpl::runtime::platform;
using rocmtpl::test::expect_every_operation_refused;
using rocmtpl::test::loadable;

gpu_runtime_options only(platform kind) {
  auto options = gpu_runtime_options::from_environment();
  options.platform_choice = kind;
  return options;
}

TEST(GpuRuntime, InstanceLoadsWithoutThrowingAndExplainsItself) {
  gpu_runtime* rt = nullptr;
  ASSERT_NO_THROW(rt = &gpu_runtime::instance());
  EXPECT_EQ(rt, &gpu_runtime::instance()) << "one instance per process";
  ASSERT_FALSE(rt->status().empty());
  if (rt->available()) {
    EXPECT_GT(rt->device_count(), 0);
    EXPECT_TRUE(rt->kind().has_value());
    EXPECT_NE(rt->status().find(" device"), std::string::npos) << rt->status();
    GTEST_SKIP() << "a GPU is present (" << rt->status() << "); test/gpu covers it";
  }
  EXPECT_TRUE(rt->status().starts_with("no GPU: ")) << rt->status();
  std::cout << "status: " << rt->status() << '\n';
  expect_every_operation_refused(*rt);
}

TEST(GpuRuntime, MissingLibrariesGiveAClearStatus) {
  const gpu_runtime rt(rocmtpl::test::no_runtime_options());
  EXPECT_FALSE(rt.available());
  EXPECT_FALSE(rt.kind().has_value());
  EXPECT_TRUE(rt.library().empty());
  EXPECT_EQ(rt.runtime_version(), 0);
  EXPECT_NE(rt.status().find("nvidia runtime not found"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("librocmtpl-no-such-cudart.so"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("amd runtime not found"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("/nonexistent/librocmtpl-no-such-hip.so"), std::string::npos) << rt.status();
  EXPECT_EQ(rt.last_error_text(2), "error 2");
  expect_every_operation_refused(rt);
  try {
    (void)rt.malloc(1);
  } catch (const no_gpu_error& e) {
    EXPECT_EQ(e.code(), -1) << "no library: no runtime error code";
    EXPECT_EQ(e.api(), "allocate device memory");
  }
}

// Regression (issue 8): an invalid ROCMTPL_PLATFORM used to give a runtime whose status said "no
// GPU", so a typo turned a GPU machine into a compile-only one without a word. Now the first
// request for the runtime throws, naming the variable and its value, and loads nothing; a later
// request reads the environment again. Run in a fresh process: the instance is process-wide.
TEST(GpuRuntimeDeathTest, InstanceRefusesAnInvalidPlatform) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("ROCMTPL_PLATFORM", "cdua", 1);
        try {
          (void)gpu_runtime::instance();
          std::fprintf(stderr, "instance() accepted ROCMTPL_PLATFORM=cdua\n");
          std::_Exit(1);
        } catch (const rocmtpl::invalid_argument_error& e) {
          std::fprintf(stderr, "%s\n", e.what());
        }
        ::setenv("ROCMTPL_PLATFORM", "auto", 1);
        const auto& rt = gpu_runtime::instance();
        std::_Exit(rt.status().empty() ? 2 : 7);
      },
      ::testing::ExitedWithCode(7), "rocmtpl: ROCMTPL_PLATFORM='cdua' is not a platform; use amd, nvidia or auto");
}

TEST(GpuRuntime, ChosenPlatformIsTheOnlyOneProbed) {
  for (platform kind : {platform::amd, platform::nvidia}) {
    const gpu_runtime rt(only(kind));
    if (rt.kind()) {
      EXPECT_EQ(*rt.kind(), kind);
    }
    const std::string other = kind == platform::amd ? "nvidia runtime" : "amd runtime";
    EXPECT_EQ(rt.status().find(other), std::string::npos) << rt.status();
  }
}

TEST(GpuRuntime, CudaRuntimeIsFoundAndProbedWhereInstalled) {
  const auto options = only(platform::nvidia);
  const gpu_runtime rt(options);
  if (!loadable(options.nvidia_libraries)) {
    EXPECT_FALSE(rt.kind().has_value());
    EXPECT_NE(rt.status().find("nvidia runtime not found"), std::string::npos) << rt.status();
    GTEST_SKIP() << "no libcudart on this machine: " << rt.status();
  }
  ASSERT_TRUE(rt.kind().has_value()) << rt.status();
  EXPECT_EQ(*rt.kind(), platform::nvidia);
  EXPECT_NE(rt.library().find("libcudart.so"), std::string::npos);
  EXPECT_GE(rt.runtime_version(), 9000) << "cudaRuntimeGetVersion, e.g. 13000";
  EXPECT_NE(rt.last_error_text(2), "error 2") << "cudaGetErrorString is used";
  EXPECT_FALSE(rt.last_error_text(2).empty());
  if (rt.available()) GTEST_SKIP() << "CUDA device present: " << rt.status();
  // Installed but unusable here: the status names the library and the driver's answer.
  EXPECT_NE(rt.status().find(rt.library()), std::string::npos) << rt.status();
  const bool says_why = rt.status().find("cudaGetDeviceCount: ") != std::string::npos ||
                        rt.status().find("no CUDA device") != std::string::npos;
  EXPECT_TRUE(says_why) << rt.status();
  expect_every_operation_refused(rt);
}

TEST(GpuRuntime, HipRuntimeIsFoundAndProbedWhereInstalled) {
  const auto options = only(platform::amd);
  const gpu_runtime rt(options);
  if (!loadable(options.amd_libraries)) {
    EXPECT_FALSE(rt.kind().has_value());
    GTEST_SKIP() << "no libamdhip64 on this machine: " << rt.status();
  }
  ASSERT_TRUE(rt.kind().has_value()) << rt.status();
  EXPECT_EQ(*rt.kind(), platform::amd);
  EXPECT_NE(rt.library().find("libamdhip64.so"), std::string::npos);
  EXPECT_NE(rt.last_error_text(100), "error 100") << "hipGetErrorString is used";
  if (rt.available()) GTEST_SKIP() << "HIP device present: " << rt.status();
  const bool says_why = rt.status().find("hipGetDeviceCount: ") != std::string::npos ||
                        rt.status().find("no HIP device") != std::string::npos;
  EXPECT_TRUE(says_why) << rt.status();
  expect_every_operation_refused(rt);
}

TEST(GpuRuntime, AutoProbesEveryPlatformBeforeGivingUp) {
  const auto options = gpu_runtime_options::from_environment();
  const gpu_runtime rt(options);
  if (rt.available()) GTEST_SKIP() << "a GPU is present: " << rt.status();
  // Without a device, both platforms were tried and each says why it cannot be used.
  EXPECT_NE(rt.status().find("nvidia runtime"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("amd runtime"), std::string::npos) << rt.status();
  if (loadable(options.nvidia_libraries)) {
    ASSERT_TRUE(rt.kind().has_value());
    EXPECT_EQ(*rt.kind(), platform::nvidia) << "the first runtime that loaded is reported";
  } else if (loadable(options.amd_libraries)) {
    ASSERT_TRUE(rt.kind().has_value());
    EXPECT_EQ(*rt.kind(), platform::amd);
  }
}

}  // namespace

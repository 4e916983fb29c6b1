// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu/loader.hpp on a machine without a GPU: loading never
// throws for a missing library or device, the status says why no GPU can be used, every operation
// throws no_gpu_error. Where a runtime library is installed, the test checks that it was found and
// probed (not merely absent). An invalid ROCMTPL_PLATFORM makes gpu_runtime::instance() throw.
#include <rocmtpl/runtime/gpu/loader.hpp>

#include "support/gpu_runtime.hpp"

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

// ---- with a device: the fake CUDA runtime -------------------------------------------------------

TEST(GpuRuntimeWithFakeDevice, LoadsAndDescribesTheDeviceThroughTheAttributeTable) {
  const gpu_runtime rt(rocmtpl::test::fake_runtime_options());
  ASSERT_TRUE(rt.available()) << rt.status();
  EXPECT_EQ(rt.kind(), platform::nvidia);
  EXPECT_EQ(rt.library(), ROCMTPL_FAKE_CUDART);
  EXPECT_EQ(rt.device_count(), 1);
  EXPECT_EQ(rt.runtime_version(), 13000);
  EXPECT_EQ(rt.status(), std::string("nvidia runtime ") + ROCMTPL_FAKE_CUDART + " (version 13000), 1 device");

  const auto p = rt.properties(0);
  const auto& ids = rocmtpl::runtime::detail::cuda_attributes;  // the fake answers enumerator * 10
  EXPECT_EQ(p.name, "Fake GPU");
  EXPECT_EQ(p.arch, "sm_90");
  EXPECT_EQ(p.kind, platform::nvidia);
  EXPECT_EQ(p.compute_units, 10 * ids.multiprocessor_count);
  EXPECT_EQ(p.warp_size, 10 * ids.warp_size);
  EXPECT_EQ(p.max_threads_per_block, 10 * ids.max_threads_per_block);
  EXPECT_EQ(p.l2_cache_bytes, static_cast<std::size_t>(10 * ids.l2_cache_size));
  EXPECT_EQ(p.shared_memory_per_block, static_cast<std::size_t>(10 * ids.max_shared_memory_per_block));
  EXPECT_EQ(p.shared_memory_per_block_optin, static_cast<std::size_t>(10 * ids.max_shared_memory_per_block_optin));
  EXPECT_EQ(p.clock_khz, 10 * ids.clock_rate);
  EXPECT_EQ(p.total_memory, std::size_t{2} << 30);
}

TEST(GpuRuntimeWithFakeDevice, RuntimeErrorsNameTheCallAndTheRuntimesText) {
  const gpu_runtime rt(rocmtpl::test::fake_runtime_options());
  ASSERT_TRUE(rt.available()) << rt.status();
  rt.set_device(0);
  EXPECT_EQ(rt.current_device(), 0);
  try {
    rt.set_device(3);
    FAIL() << "no error for device 3";
  } catch (const rocmtpl::runtime::gpu_error& e) {
    EXPECT_EQ(e.api(), "cudaSetDevice");
    EXPECT_EQ(e.code(), 101);
    EXPECT_STREQ(e.what(), "rocmtpl: gpu: cudaSetDevice failed: fake error [device 3] (error 101)");
  }
  try {
    (void)rt.malloc(std::size_t{4} << 30);
    FAIL() << "no error for 4 GiB";
  } catch (const rocmtpl::runtime::gpu_error& e) {
    EXPECT_STREQ(e.what(), "rocmtpl: gpu: cudaMalloc failed: out of memory [4294967296 bytes] (error 2)");
  }
  EXPECT_THROW((void)rt.properties(1), rocmtpl::runtime::gpu_error);
}

}  // namespace

// SPDX-License-Identifier: MIT
#include <rocmtpl/runtime/gpu/device_identity.hpp>

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace {
using namespace rocmtpl::runtime;

// The identity cache in a private folder for the test's scope.
struct cache_env {
  rocmtpl::test::temp_dir dir{"rocmtpl-identity-test"};
  rocmtpl::test::scoped_env env{"ROCMTPL_CACHE_DIR", dir.path().string()};
};

TEST(DeviceIdentity, FingerprintFollowsTheVisibleDevices) {
  const auto a = gpu_fingerprint();
  if (!a) {
    // No driver files: nothing can be cached, and the runtime is the only source of truth.
    EXPECT_FALSE(cached_device_identity().has_value());
    GTEST_SKIP() << "no /proc/driver/nvidia or /sys/class/kfd on this machine";
  }
  ::setenv("CUDA_VISIBLE_DEVICES", "7", 1);
  const auto b = gpu_fingerprint();
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_NE(*a, *b);
  EXPECT_EQ(gpu_fingerprint(), a);
}

TEST(DeviceIdentity, RecordedByTheRuntimeAndReadBack) {
  cache_env env;
  const auto queried = query_device_identity();
  if (!queried) {
    EXPECT_FALSE(gpu_runtime::instance().available());
    GTEST_SKIP() << "no GPU: " << gpu_runtime::instance().status();
  }
  EXPECT_FALSE(queried->arch.empty());
  if (!gpu_fingerprint()) GTEST_SKIP() << "driver exposes no fingerprint";
  const auto cached = cached_device_identity();
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(*cached, *queried);
}
}  // namespace

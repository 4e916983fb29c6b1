// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu/options.hpp: the environment selects the platform,
// the AMD arch and the library files; an invalid ROCMTPL_PLATFORM is an error naming the variable
// and its value, never a silent fall-back to "no GPU".
#include <rocmtpl/runtime/gpu/options.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace {

using rocmtpl::invalid_argument_error;
using rocmtpl::runtime::gpu_runtime_options;
using rocmtpl::runtime::platform;
using rocmtpl::test::scoped_env;

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(GpuRuntimeOptions, EnvironmentSelectsThePlatform) {
  {
    const scoped_env env("ROCMTPL_PLATFORM", std::nullopt);
    EXPECT_EQ(gpu_runtime_options::from_environment().platform_choice, std::nullopt) << "unset means auto";
  }
  const std::vector<std::pair<std::string, std::optional<platform>>> cases{
      {"", std::nullopt}, {"auto", std::nullopt}, {"amd", platform::amd}, {"nvidia", platform::nvidia}};
  for (const auto& [text, expected] : cases) {
    const scoped_env env("ROCMTPL_PLATFORM", text);
    EXPECT_EQ(gpu_runtime_options::from_environment().platform_choice, expected) << "ROCMTPL_PLATFORM=" << text;
  }
}

// Regression (issue 8): an invalid value used to load nothing and report "no GPU", so a typo
// silently turned a GPU machine into a compile-only one.
TEST(GpuRuntimeOptions, InvalidPlatformIsAnErrorNamingTheVariableAndValue) {
  for (const char* text : {"bogus", "cdua", "AMD", "nvidia "}) {
    const scoped_env env("ROCMTPL_PLATFORM", text);
    try {
      (void)gpu_runtime_options::from_environment();
      ADD_FAILURE() << "ROCMTPL_PLATFORM=" << text << " was accepted";
    } catch (const invalid_argument_error& e) {
      EXPECT_EQ(std::string(e.what()),
                "rocmtpl: ROCMTPL_PLATFORM='" + std::string(text) + "' is not a platform; use amd, nvidia or auto");
    }
  }
}

TEST(GpuRuntimeOptions, EnvironmentSetsArchAndLibraryFolders) {
  const scoped_env platform_env("ROCMTPL_PLATFORM", "amd");
  const scoped_env arch_env("ROCMTPL_AMD_ARCH", "gfx942:sramecc+");
  const scoped_env cuda_env("CUDA_PATH", "/opt/test-cuda");
  const scoped_env cuda_home_env("CUDA_HOME", std::nullopt);
  const scoped_env rocm_env("ROCM_PATH", "/opt/test-rocm");
  const auto options = gpu_runtime_options::from_environment();
  EXPECT_EQ(options.platform_choice, platform::amd);
  EXPECT_EQ(options.amd_arch_override, "gfx942:sramecc+");
  // The loader's own search comes first, then the toolkit folders.
  ASSERT_FALSE(options.nvidia_libraries.empty());
  EXPECT_EQ(options.nvidia_libraries.front(), "libcudart.so.13");
  EXPECT_TRUE(contains(options.nvidia_libraries, "/opt/test-cuda/lib64/libcudart.so.12"));
  EXPECT_TRUE(contains(options.nvidia_libraries, "/usr/local/cuda/lib64/libcudart.so"));
  ASSERT_FALSE(options.amd_libraries.empty());
  EXPECT_EQ(options.amd_libraries.front(), "libamdhip64.so");
  EXPECT_TRUE(contains(options.amd_libraries, "/opt/test-rocm/lib/libamdhip64.so"));
  EXPECT_TRUE(contains(options.amd_libraries, "/opt/rocm/lib/libamdhip64.so"));
}

TEST(GpuRuntimeOptions, DefaultsLoadNothingInParticular) {
  const gpu_runtime_options options;
  EXPECT_EQ(options.platform_choice, std::nullopt);
  EXPECT_TRUE(options.nvidia_libraries.empty());
  EXPECT_TRUE(options.amd_libraries.empty());
  EXPECT_TRUE(options.amd_arch_override.empty());
}

}  // namespace

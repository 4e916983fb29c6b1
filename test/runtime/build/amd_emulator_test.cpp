// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/build/amd_emulator.hpp (issue 23): the clang++ search, the runtime
// library built once per header text and compiler, the emulated compiler's command line, the
// runtime's device memory, and gpu_runtime_options::amd_emulator(). The emulated GEMM paths are
// tested in test/runtime/emu/.

#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/runtime/build/amd_emulator.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/gpu/options.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace rocmtpl::runtime;
using rocmtpl::test::scoped_env;

// The emulator's kernels and runtime library are kept in the build folder between runs.
const std::string shared_cache = std::string(ROCMTPL_TEST_BINARY_DIR) + "/amd-emu-cache";

bool have_clang() {
  try {
    (void)find_amd_emulator_cxx();
    return true;
  } catch (const compiler_not_found_error&) {
    return false;
  }
}

TEST(AmdEmulatorBuild, OverrideNamingNoExecutableIsAnError) {
  const scoped_env cxx("ROCMTPL_AMD_EMU_CXX", "/nonexistent/clang++");
  try {
    (void)find_amd_emulator_cxx();
    FAIL() << "a missing ROCMTPL_AMD_EMU_CXX was accepted";
  } catch (const compiler_not_found_error& e) {
    EXPECT_NE(std::string(e.what()).find("ROCMTPL_AMD_EMU_CXX names /nonexistent/clang++"), std::string::npos)
        << e.what();
  }
}

TEST(AmdEmulatorBuild, CommandBuildsForTheHostWithTheHooksAndTheRuntime) {
  if (!have_clang()) GTEST_SKIP() << "no clang++-15 or later (apt-get install clang-15)";
  const scoped_env cache("ROCMTPL_CACHE_DIR", shared_cache);
  const compiler cc = amd_emulator_compiler();
  EXPECT_TRUE(cc.is_amd_emulator());
  EXPECT_EQ(cc.platform(), platform::amd);
  EXPECT_TRUE(fs::is_regular_file(cc.amd_emulator_runtime())) << cc.amd_emulator_runtime();
  EXPECT_EQ(cc.amd_emulator_runtime().filename(), "librocmtpl_amd_emu.so");
  EXPECT_EQ(amd_emulator_runtime_library(cc.path()), cc.amd_emulator_runtime()) << "built once, then found";
  const auto opts = amd_emulator_compile_options("gfx940", 1);
  EXPECT_EQ(opts.archs, std::vector<std::string>{"gfx940"});
  EXPECT_FALSE(opts.resource_usage);
  const auto argv = cc.command(opts, "/tmp/k.hip", "/tmp/k.so");
  const auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
  EXPECT_EQ(argv.front(), cc.path().string());
  EXPECT_TRUE(has("-O1"));
  EXPECT_TRUE(has("-DROCMTPL_AMD_EMULATOR=1"));
  EXPECT_TRUE(has("-fsanitize-coverage=func,inline-bool-flag,trace-loads,trace-stores"));
  EXPECT_FALSE(has("--offload-arch=gfx940")) << "a host build";
  const std::vector<std::string> tail(argv.end() - 8, argv.end());
  const std::vector<std::string> expected{"-o",         "/tmp/k.so", "-x",   "c++",
                                          "/tmp/k.hip", "-x",        "none", cc.amd_emulator_runtime().string()};
  EXPECT_EQ(tail, expected) << rocmtpl::detail::join(argv, " ");
  auto device_only = opts;
  device_only.output = compile_output::code_object;
  EXPECT_THROW((void)cc.command(device_only, "/tmp/k.hip", "/tmp/k.co"), rocmtpl::invalid_argument_error);
}

// The runtime library's device memory: page-aligned, 0xff bytes, freed; an unknown pointer is refused.
TEST(AmdEmulatorBuild, RuntimeMapsPoisonedDeviceMemory) {
  if (!have_clang()) GTEST_SKIP() << "no clang++-15 or later (apt-get install clang-15)";
  const scoped_env cache("ROCMTPL_CACHE_DIR", shared_cache);
  const amd_emulator_runtime emu(amd_emulator_compiler().amd_emulator_runtime());
  EXPECT_EQ(emu.malloc(0), nullptr);
  {
    const amd_emulator_buffer b(emu, 1000);
    ASSERT_NE(b.get(), nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.get()) % 4096, 0U);
    const auto* bytes = static_cast<const unsigned char*>(b.get());
    EXPECT_TRUE(std::all_of(bytes, bytes + 1000, [](unsigned char c) { return c == 0xff; }));
  }
  EXPECT_EQ(emu.last_message(), "");
}

TEST(AmdEmulatorBuild, GpuRuntimeOptionsLoadOnlyTheEmulator) {
  const auto o = gpu_runtime_options::amd_emulator("/some/librocmtpl_amd_emu.so");
  EXPECT_EQ(o.platform_choice, platform::amd);
  EXPECT_EQ(o.amd_libraries, std::vector<std::string>{"/some/librocmtpl_amd_emu.so"});
  EXPECT_TRUE(o.nvidia_libraries.empty());
}

}  // namespace

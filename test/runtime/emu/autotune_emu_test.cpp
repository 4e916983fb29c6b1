// SPDX-License-Identifier: MIT
// The autotuner on the AMD emulator (issue 23, autotune_options::emulate_amd; label amd-emu): the
// emulator becomes the process's GPU runtime, every candidate is built for the CPU, run once and
// verified against the reference through the benchmark's own helper kernels (fill, compare), and
// nothing is timed, picked or stored; the report says so.

#include <rocmtpl/runtime.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::activation;
using templates::gemm_policy;

TEST(AutotuneEmu, VerifiesEveryCandidateAndTimesNone) {
  const rocmtpl::test::scoped_env cache_dir("ROCMTPL_CACHE_DIR",
                                            std::string(ROCMTPL_TEST_BINARY_DIR) + "/amd-emu-cache");
  try {
    (void)find_amd_emulator_cxx();
  } catch (const compiler_not_found_error& e) {
    GTEST_SKIP() << e.what();
  }
  rocmtpl::test::temp_dir dir("rocmtpl-autotune-emu");
  rocm_template<gemm_policy> t(
      gemm_policy({.act = activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {96, 64})), buffer("w", layout::row_major(dtype::f16, {64, 80})),
       buffer("bias", layout::row_major(dtype::f32, {80}))},
      layout::row_major(dtype::f16, {96, 80}));
  autotune_options o;
  o.emulate_amd = true;
  o.max_candidates = 3;
  o.jobs = 2;
  o.progress = false;
  o.database = dir.path() / "tuning.sqlite3";
  o.isolate = true;      // ignored: the emulator runs in this process
  o.device_only = true;  // ignored: shared libraries
  const auto report = autotune(t, {}, o);

  EXPECT_TRUE(report.emulated);
  EXPECT_TRUE(report.gpu);
  EXPECT_EQ(report.key.device, "AMD emulator (wave64, CPU)");
  EXPECT_EQ(gpu_runtime::instance().library(), amd_emulator_compiler().amd_emulator_runtime().string());
  ASSERT_EQ(report.candidates.size(), 3U);
  for (const auto& c : report.candidates) {
    EXPECT_EQ(c.result.status, candidate_status::ok) << c.config << ": " << c.result.reason;
    EXPECT_TRUE(c.result.verified) << c.config;
    EXPECT_EQ(c.result.repetitions, 0) << "nothing is timed";
    EXPECT_EQ(c.result.min_ms, 0.0);
    EXPECT_FALSE(c.code_object) << "shared libraries only";
    EXPECT_EQ(c.result.device, "AMD emulator (wave64, CPU)");
  }
  EXPECT_FALSE(report.winner.has_value()) << "no winner without times";
  EXPECT_FALSE(fs::exists(o.database)) << "nothing is stored";
  EXPECT_EQ(report.benchmarked, 3U);
  std::ostringstream table;
  report.print_table(table);
  EXPECT_NE(table.str().find("AMD emulator (wave64, CPU): correctness only, nothing was timed"), std::string::npos)
      << table.str();
  EXPECT_EQ(table.str().find("timed on"), std::string::npos) << table.str();
  EXPECT_NE(report.summary().find("(AMD emulator: verified, not timed)"), std::string::npos) << report.summary();
  EXPECT_TRUE(report.to_json().at("emulated").get<bool>());
  // A shape where Hopper (wgmma) configurations rank first: the AMD entry refuses them (status 3),
  // which the emulated tune reports as skipped, not failed; the matrix-core one after them is verified.
  rocm_template<gemm_policy> wide(
      gemm_policy({.act = activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {130, 72})), buffer("w", layout::row_major(dtype::f16, {72, 96})),
       buffer("bias", layout::row_major(dtype::f16, {96}))},
      layout::row_major(dtype::f16, {130, 96}));
  const auto mixed = autotune(wide, {}, o);
  ASSERT_EQ(mixed.candidates.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& c = mixed.candidates[i];
    if (c.config.find("math=wgmma") != std::string::npos) {
      EXPECT_EQ(c.result.status, candidate_status::skipped) << c.config << ": " << c.result.reason;
      EXPECT_NE(c.result.reason.find("refuses this configuration"), std::string::npos) << c.result.reason;
    } else {
      EXPECT_EQ(c.result.status, candidate_status::ok) << c.config << ": " << c.result.reason;
      EXPECT_TRUE(c.result.verified) << c.config;
    }
  }
  EXPECT_NE(mixed.candidates[0].config.find("math=wgmma"), std::string::npos) << "the shape ranks Hopper first";
  // The helper kernels and the reference ran on the emulator too: launches were counted there.
  const amd_emulator_runtime emu(gpu_runtime::instance().library());
  EXPECT_GE(emu.launches(), 3U + 1U + 3U);  // candidates, reference, fills of the inputs
}

// The emulator cannot replace a GPU runtime the process already loaded with other settings.
TEST(AutotuneEmu, RefusedAfterAnotherRuntimeLoaded) {
  const rocmtpl::test::scoped_env cache_dir("ROCMTPL_CACHE_DIR",
                                            std::string(ROCMTPL_TEST_BINARY_DIR) + "/amd-emu-cache");
  try {
    (void)find_amd_emulator_cxx();
  } catch (const compiler_not_found_error& e) {
    GTEST_SKIP() << e.what();
  }
  if (!gpu_runtime::preset(gpu_runtime_options::from_environment())) {
    GTEST_SKIP() << "this process's GPU runtime is the emulator already (the tests ran in one process)";
  }
  (void)gpu_runtime::instance();  // the environment's runtime (or none)
  try {
    (void)use_amd_emulator();
    FAIL() << "use_amd_emulator() accepted a runtime loaded before";
  } catch (const rocmtpl::error& e) {
    EXPECT_NE(std::string(e.what()).find("choose the emulator before the first GPU use"), std::string::npos)
        << e.what();
  }
}

}  // namespace

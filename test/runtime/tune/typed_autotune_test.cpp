// SPDX-License-Identifier: MIT
// runtime/tune/typed_autotune.hpp without a GPU: a typed tune compiles the runtime-value template's
// candidates for AMD (the same candidates, ids and tuning key as autotune() on typed.untyped()),
// has no winner and says so (no_winner_error); a winner picked in its report (as a GPU tune would)
// loads from the tune's code cache entry, with nothing compiled, through the exact function type;
// a winner that is none of the template's candidates is a template_error; a typed template whose
// buffers do not match the template's parameters fails before anything is compiled.
// test/gpu/typed_autotune_gpu_test.cpp tunes and runs on a GPU.
#include <rocmtpl/runtime/tune/typed_autotune.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <type_traits>

#include "support/runtime.hpp"

namespace {
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::gemm_policy;

// N = 44 (not a multiple of 8) keeps the Hopper (wgmma) configurations, which have no AMD kernel,
// out of the ranked list.
using x_t = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;
using w_t = static_buffer<"W", row_major_layout<f16_t, dims<ext<64>, ext<44>>>>;
using y_t = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<44>>>>;

autotune_options options_in(const rocmtpl::test::temp_dir& dir) {
  autotune_options o;
  o.max_candidates = 2;
  o.amd_archs = {"gfx90a"};
  o.cache_dir = dir.path() / "kernels";
  o.database = dir.path() / "tuning.sqlite3";
  o.progress = false;
  return o;
}

TEST(TypedAutotune, WithoutAGpuCompilesTheCandidatesAndLoadsAPickedWinner) {
  if (gpu_runtime::instance().available()) GTEST_SKIP() << "a GPU is present: test/gpu covers typed tuning";
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  rocmtpl::test::temp_dir dir;
  // Shared libraries (not the default device-only code objects), so that the winner loads from the
  // tune's own cache entry; DeviceOnlyTuneStillLoadsTheWinnersLibrary covers the default.
  auto o = options_in(dir);
  o.device_only = false;
  const auto gemm = make_template(gemm_policy{}, inputs<x_t, w_t>{}, outputs<y_t>{});
  const hints<"M"> m256{256};

  auto tuned = autotune(gemm, m256, o);
  static_assert(std::is_same_v<decltype(tuned), typed_autotune_result<decltype(gemm)::signature>>);
  EXPECT_FALSE(tuned.report.gpu);
  EXPECT_EQ(tuned.report.compiled, 2U);
  EXPECT_FALSE(tuned.report.winner.has_value());
  EXPECT_FALSE(tuned.kernel.has_value());
  try {
    (void)tuned.winner();
    ADD_FAILURE() << "no error";
  } catch (const no_winner_error& e) {
    EXPECT_NE(std::string(e.what()).find("2 candidates: 2 skipped"), std::string::npos) << e.what();
  }
  ASSERT_EQ(tuned.report.candidates.size(), 2U);
  for (const auto& c : tuned.report.candidates) {
    EXPECT_EQ(c.result.status, candidate_status::skipped) << c.result.reason;
    EXPECT_TRUE(fs::exists(c.library)) << c.config;
  }

  // The same tune as the runtime-value template's: same key, same candidates, nothing to compile.
  const auto untyped = autotune(gemm.untyped(), m256.to_map(), o);
  EXPECT_EQ(untyped.key, tuned.report.key);
  EXPECT_EQ(untyped.compiled, 0U);
  ASSERT_EQ(untyped.candidates.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(untyped.candidates[i].id, tuned.report.candidates[i].id);

  // A winner picked in the report loads from the tune's cache entry through the exact type.
  tuned.report.winner = 1;
  const auto kernel = load_winner(gemm, tuned.report, m256, o);
  ASSERT_TRUE(kernel.has_value());
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(*kernel)>::function_type,
                               int(const std::uint16_t*, const std::uint16_t*, std::uint16_t*, std::int64_t,
                                   std::size_t*, std::uint8_t*, void*)>);
  EXPECT_EQ(kernel->name(), "rocm_gemm");
  EXPECT_EQ(fs::canonical(kernel->library()->path()), fs::canonical(tuned.report.candidates[1].library));
  EXPECT_NE(fs::canonical(kernel->library()->path()), fs::canonical(tuned.report.candidates[0].library));
  EXPECT_EQ(kernel->workspace_size(100), 0U);
  EXPECT_THROW((*kernel)(static_cast<const half_t*>(nullptr), static_cast<const half_t*>(nullptr),
                         static_cast<half_t*>(nullptr), 100, nullptr),
               kernel_status_error);

  // No winner: nothing to load. A winner that is none of the candidates: a template_error.
  tuned.report.winner.reset();
  EXPECT_FALSE(load_winner(gemm, tuned.report, m256, o).has_value());
  tuned.report.winner = 0;
  tuned.report.candidates[0].id += "_other";
  EXPECT_THROW((void)load_winner(gemm, tuned.report, m256, o), template_error);
}

// A device-only tune (the default) compiles code objects; the winner is loaded as a library all
// the same (load_winner() compiles it), through the exact function type.
TEST(TypedAutotune, DeviceOnlyTuneStillLoadsTheWinnersLibrary) {
  if (gpu_runtime::instance().available()) GTEST_SKIP() << "a GPU is present: test/gpu covers typed tuning";
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  rocmtpl::test::temp_dir dir;
  auto o = options_in(dir);
  o.max_candidates = 1;
  const auto gemm = make_template(gemm_policy{}, inputs<x_t, w_t>{}, outputs<y_t>{});
  const hints<"M"> m256{256};
  auto tuned = autotune(gemm, m256, o);
  ASSERT_EQ(tuned.report.candidates.size(), 1U);
  EXPECT_TRUE(tuned.report.candidates[0].code_object);
  tuned.report.winner = 0;
  const auto kernel = load_winner(gemm, tuned.report, m256, o);
  ASSERT_TRUE(kernel.has_value());
  EXPECT_NE(fs::canonical(kernel->library()->path()), fs::canonical(tuned.report.candidates[0].library));
  EXPECT_EQ(kernel->workspace_size(100), 0U);
}

TEST(TypedAutotune, SignatureMismatchFailsBeforeAnyCompile) {
  rocmtpl::test::temp_dir dir;
  const auto o = options_in(dir);
  // The GEMM's third input is Residual only with gemm_options::residual (a run-time option): without
  // it the template binds a Bias, which the rendering check finds.
  using residual_t = static_buffer<"Residual", row_major_layout<f16_t, dims<sym<"M">, ext<44>>>>;
  const auto gemm = make_template(gemm_policy{}, inputs<x_t, w_t, residual_t>{}, outputs<y_t>{});
  EXPECT_THROW((void)autotune(gemm, hints<"M">{256}, o), signature_error);
  EXPECT_FALSE(fs::exists(o.cache_dir)) << "nothing was compiled";
}

}  // namespace

// SPDX-License-Identifier: MIT
// End-to-end tuning on a real GPU (label gpu; skips without one): every candidate verified against
// the template's reference, a warm re-tune that compiles and runs nothing, and planted candidates
// that trap, write out of bounds, compute wrong results or hang, survived under fault isolation.
#include <rocmtpl/runtime.hpp>

#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace {
namespace fs = std::filesystem;
using rocmtpl::test::temp_dir;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::gemm_config;
using templates::gemm_policy;

autotune_options options_in(const temp_dir& d) {
  autotune_options o;
  o.cache_dir = d.path() / "kernels";
  o.database = d.path() / "tuning.sqlite3";
  o.progress = false;
  o.bench.budget_ms = 5;
  return o;
}

TEST(AutotuneGpu, TunesVerifiesAndRemembers) {
  ROCMTPL_REQUIRE_GPU();
  temp_dir dir{"rocmtpl-autotune-gpu"};
  auto o = options_in(dir);
  o.max_candidates = 12;
  const auto m = sym_expr::symbol("M");
  for (dtype t : {dtype::f32, dtype::f16, dtype::bf16}) {
    // Not tile multiples, a bias broadcast along rows, an activation, a column-major W.
    rocm_template<gemm_policy> tpl(
        gemm_policy({templates::activation::relu}),
        {buffer("x", layout::row_major(t, {m, 300})), buffer("w", layout::col_major(t, {300, 130})),
         buffer("b", layout::row_major(t, {130}))},
        layout::row_major(t, {m, 130}));
    const auto report = autotune(tpl, {{"M", 517}}, o);
    ASSERT_TRUE(report.gpu);
    ASSERT_TRUE(report.winner.has_value()) << name(t);
    std::size_t ok = 0;
    for (const auto& c : report.candidates) {
      if (c.result.status == candidate_status::ok) {
        ++ok;
        EXPECT_TRUE(c.result.verified) << c.config;
        EXPECT_GT(c.result.min_ms, 0.0);
        EXPECT_LE(c.result.min_ms, c.result.median_ms);
      } else {
        ADD_FAILURE() << name(t) << " " << c.config << ": " << to_string(c.result.status) << " " << c.result.reason;
      }
    }
    EXPECT_EQ(ok, report.candidates.size());
    EXPECT_TRUE(report.best()->result.verified);
    // Warm: same problem -> answered from the database, nothing compiled or benchmarked.
    const auto warm = autotune(tpl, {{"M", 517}}, o);
    EXPECT_TRUE(warm.from_database);
    EXPECT_EQ(warm.compiled, 0U);
    EXPECT_EQ(warm.benchmarked, 0U);
    EXPECT_EQ(warm.best()->id, report.best()->id);
  }
}

// A GEMM policy whose extra configurations are broken on purpose.
enum class plant { none, trap, out_of_bounds, wrong, hang };
struct planted_config {
  gemm_config base{};
  plant kind = plant::none;
  friend bool operator==(const planted_config&, const planted_config&) = default;
};
std::vector<std::pair<std::string, std::string>> describe(const planted_config& c) {
  auto d = templates::describe(c.base);
  d.emplace_back("plant", std::to_string(static_cast<int>(c.kind)));
  return d;
}
struct planted_policy {
  using policy_concept = kernel_template_tag;
  using config_type = planted_config;
  static constexpr kernel_capabilities capabilities{.reference = true};
  gemm_policy inner{templates::gemm_options{}};
  static std::string_view name() { return "planted_gemm"; }
  std::vector<planted_config> configs() const {
    // Broken ones first, so a fault would poison every later candidate without isolation.
    return {{gemm_config{}, plant::trap}, {gemm_config{}, plant::out_of_bounds}, {gemm_config{}, plant::wrong},
            {gemm_config{}, plant::hang}, {gemm_config{}, plant::none},          {{128, 64, 8, 8, 4, 8}, plant::none}};
  }
  rendered_source render(rocm_template_kernel& k, const template_context& ctx, const planted_config& c) const {
    auto parts = inner.render(k, ctx, c.base);
    auto& src = parts.device_code;
    auto patch = [&](const std::string& anchor, const std::string& replacement) {
      src.replace(src.find(anchor), anchor.size(), replacement);
    };
    const std::string acc = "float acc[thread_m][thread_n];";
    switch (c.kind) {
      case plant::trap: patch(acc, acc + "\n#ifdef __CUDACC__\n__trap();\n#else\n__builtin_trap();\n#endif\n"); break;
      case plant::out_of_bounds: patch(acc, acc + " Y[(int64_t)1 << 40] = 1;"); break;
      case plant::wrong: patch("float v = ", "float v = 3.0f + "); break;
      // Spins on a volatile load of the poisoned output (never 0x12345): a side effect every
      // iteration, so the compiler cannot remove the loop.
      case plant::hang: patch(acc, acc + " while (((volatile unsigned*)Y)[0] != 0x12345u) {}"); break;
      case plant::none: break;
    }
    return parts;
  }
  rendered_source render_reference(rocm_template_kernel& k, const template_context& ctx) const {
    return inner.render_reference(k, ctx);
  }
};

TEST(AutotuneGpu, IsolationSurvivesPlantedFaults) {
  ROCMTPL_REQUIRE_GPU();
  if (!find_worker()) GTEST_SKIP() << "rocmtpl-bench-worker not found (build tools/ or set ROCMTPL_BENCH_WORKER)";
  temp_dir dir{"rocmtpl-autotune-gpu"};
  auto o = options_in(dir);
  o.isolate = true;
  o.candidate_timeout = std::chrono::seconds(10);
  rocm_template<planted_policy> tpl(
      planted_policy{},
      {buffer("x", layout::row_major(dtype::f32, {256, 128})), buffer("w", layout::row_major(dtype::f32, {128, 192}))},
      layout::row_major(dtype::f32, {256, 192}));
  const auto report = autotune(tpl, {}, o);
  ASSERT_EQ(report.candidates.size(), 6U);
  auto status = [&](std::size_t i) { return report.candidates[i].result.status; };
  EXPECT_NE(status(0), candidate_status::ok) << "trap";
  EXPECT_NE(status(1), candidate_status::ok) << "out of bounds";
  EXPECT_EQ(status(2), candidate_status::verify_failed) << report.candidates[2].result.reason;
  EXPECT_EQ(status(3), candidate_status::timed_out) << report.candidates[3].result.reason;
  EXPECT_EQ(status(4), candidate_status::ok) << report.candidates[4].result.reason;
  EXPECT_EQ(status(5), candidate_status::ok) << report.candidates[5].result.reason;
  ASSERT_TRUE(report.winner.has_value());
  EXPECT_GE(*report.winner, 4U);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_FALSE(report.candidates[i].result.reason.empty());
}
}  // namespace

// SPDX-License-Identifier: MIT
// End-to-end tuning on a real GPU (label gpu; skips without one): every candidate verified against
// the template's reference, a warm re-tune that compiles and runs nothing, device-only tuning with
// device-only helper kernels and reference (every candidate still verified, in process and isolated),
// and planted candidates that trap, write out of bounds, compute wrong results or hang, survived
// under fault isolation.
#include <rocmtpl/runtime.hpp>

#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

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

// How a tune builds and runs its candidates: device-only code objects in this process or in the
// isolated worker, or shared libraries.
struct tune_mode {
  const char* label;
  bool device_only;
  bool isolate;
};
const std::vector<tune_mode>& tune_modes() {
  static const std::vector<tune_mode> modes{
      {"device-only", true, false}, {"device-only, isolated", true, true}, {"shared libraries", false, false}};
  return modes;
}

// False (and says so) for the isolated mode when no rocmtpl-bench-worker is found.
bool runnable(const tune_mode& md) {
  if (md.isolate && !find_worker()) {
    std::cout << "skipping the isolated run: rocmtpl-bench-worker not found\n";
    return false;
  }
  return true;
}

autotune_options options_in(const temp_dir& d, const tune_mode& md) {
  auto o = options_in(d);
  o.device_only = md.device_only;
  o.isolate = md.isolate;
  return o;
}

// Compiled artifacts in a code cache: device-only code objects and shared libraries.
struct artifacts {
  std::size_t code_objects = 0;
  std::size_t libraries = 0;
};
artifacts count_artifacts(const fs::path& cache) {
  artifacts a;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(cache, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    a.code_objects += it->path().filename() == "code.co" ? 1 : 0;
    a.libraries += it->path().filename() == "lib.so" ? 1 : 0;
  }
  return a;
}

// The README job's shape, smaller: f16 X [M, K] @ W [K, N] + Bias[N], relu.
rocm_template<gemm_policy> readme_like(std::int64_t m, std::int64_t n, std::int64_t k) {
  return rocm_template<gemm_policy>(gemm_policy({templates::activation::relu}),
                                    {buffer("x", layout::row_major(dtype::f16, {sym_expr(m), sym_expr(k)})),
                                     buffer("w", layout::row_major(dtype::f16, {sym_expr(k), sym_expr(n)})),
                                     buffer("b", layout::row_major(dtype::f16, {sym_expr(n)}))},
                                    layout::row_major(dtype::f16, {sym_expr(m), sym_expr(n)}));
}

// Every candidate of a report ran, was verified and timed; returns how many.
std::size_t expect_all_verified(const autotune_report& report, const std::string& label) {
  std::size_t ok = 0;
  for (const auto& c : report.candidates) {
    if (c.result.status != candidate_status::ok) {
      ADD_FAILURE() << label << " " << c.config << ": " << to_string(c.result.status) << " " << c.result.reason;
      continue;
    }
    ++ok;
    EXPECT_TRUE(c.result.verified) << label << " " << c.config;
    EXPECT_GT(c.result.min_ms, 0.0) << label << " " << c.config;
  }
  EXPECT_TRUE(report.winner.has_value()) << label;
  if (report.winner) {
    EXPECT_TRUE(report.best()->result.verified) << label;
  }
  return ok;
}

// Issue 9 (cold tune): a device-only tune compiles the helper kernels and the reference as code
// objects too (no shared library at all), times candidates before the reference is ready and still
// verifies every one of them, in this process and in the isolated worker; the shared-library
// route (device_only off) still builds everything as libraries and verifies alike.
TEST(AutotuneGpu, DeviceOnlyTuneBuildsNoLibraryAndVerifiesEveryCandidate) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  for (const auto& md : tune_modes()) {
    if (!runnable(md)) continue;
    temp_dir dir{"rocmtpl-autotune-gpu"};
    auto o = options_in(dir, md);
    o.max_candidates = 8;
    const auto report = autotune(readme_like(384, 256, 320), {}, o);
    ASSERT_TRUE(report.gpu) << md.label;
    const std::size_t n = report.candidates.size();
    EXPECT_EQ(expect_all_verified(report, md.label), n);
    const auto built = count_artifacts(o.cache_dir);
    std::set<fs::path> distinct;  // candidates of equal source share one build
    for (const auto& c : report.candidates) distinct.insert(c.library);
    const std::size_t builds = distinct.size() + 2;  // and the helper kernels and the reference
    if (md.device_only) {
      EXPECT_EQ(built.libraries, 0U) << md.label;
      EXPECT_EQ(built.code_objects, builds) << md.label;
      for (const auto& c : report.candidates) EXPECT_TRUE(c.code_object) << md.label << " " << c.config;
    } else {
      EXPECT_EQ(built.code_objects, 0U) << md.label;
      EXPECT_EQ(built.libraries, builds) << md.label;
    }
  }
}

// The fastest candidates are timed again under sustained load (autotune_options::finalists), in
// this process and in the isolated worker, from code objects and from shared libraries; the winner
// is the finalist with the lowest median there, and the warm re-tune answers with it.
TEST(AutotuneGpu, FinalistsAreRetimedUnderLoad) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  for (const auto& md : tune_modes()) {
    if (!runnable(md)) continue;
    temp_dir dir{"rocmtpl-autotune-gpu"};
    auto o = options_in(dir, md);
    o.max_candidates = 6;
    o.finalists = 3;
    o.finalist_margin = 1e9;  // every candidate qualifies: the three fastest are re-timed
    o.finalist_min_ms = 0;    // short as they are
    const auto report = autotune(readme_like(384, 256, 320), {}, o);
    ASSERT_TRUE(report.gpu) << md.label;
    EXPECT_EQ(expect_all_verified(report, md.label), report.candidates.size());
    const auto rows = report.ranked();
    ASSERT_GE(rows.size(), 4U) << md.label;
    double slowest_finalist_min = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i < 3) {
        EXPECT_GT(rows[i]->final_ms, 0.0) << md.label << " " << rows[i]->config;
        slowest_finalist_min = std::max(slowest_finalist_min, rows[i]->result.min_ms);
      } else {
        EXPECT_EQ(rows[i]->final_ms, 0.0) << md.label << " " << rows[i]->config;
        EXPECT_GE(rows[i]->result.min_ms, slowest_finalist_min) << md.label << ": the finalists are the fastest three";
      }
    }
    ASSERT_TRUE(report.winner.has_value()) << md.label;
    EXPECT_EQ(report.best(), rows[0]) << md.label << ": the lowest re-timed median wins";
    const auto warm = autotune(readme_like(384, 256, 320), {}, o);
    EXPECT_TRUE(warm.from_database) << md.label;
    EXPECT_EQ(warm.best()->id, report.best()->id) << md.label;
  }
}

// Issue 11 (batches): tunes of different problems share one pool of workers (one per GPU); each
// tune sets the workers up for its own problem, and every candidate of both is verified against its
// own reference, with no worker restarted.
TEST(AutotuneGpu, TunesShareOneWorkerPool) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  if (!find_worker()) GTEST_SKIP() << "rocmtpl-bench-worker not found (build tools/ or set ROCMTPL_BENCH_WORKER)";
  temp_dir dir{"rocmtpl-autotune-gpu"};
  auto o = options_in(dir);
  o.max_candidates = 6;
  o.isolate = true;
  o.workers = make_worker_pool(o);
  ASSERT_NE(o.workers, nullptr);
  for (const auto& [m, n, k] : {std::tuple{384, 256, 320}, std::tuple{200, 136, 72}, std::tuple{384, 256, 320}}) {
    const std::string label = "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k);
    o.use_database = false;  // the third tune runs again, on workers set up for the second problem before
    const auto report = autotune(readme_like(m, n, k), {}, o);
    ASSERT_TRUE(report.gpu) << label;
    EXPECT_EQ(expect_all_verified(report, label), report.candidates.size()) << label;
  }
  EXPECT_EQ(o.workers->restarts(), 0U);
  EXPECT_EQ(o.workers->size(), visible_devices(gpu_runtime::instance().device_count()).size());
  EXPECT_FALSE(o.workers->device_name().empty());
}

// Issue 22 item 15: at info the log has a line for each phase of a tune (render, compile, load,
// benchmark, verify, database) and the warm tune's answer from the database; at debug also the
// generated source, the argument definitions and the compiler's command line. All on stderr.
TEST(AutotuneGpu, LogsEveryPhaseOfATune) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  temp_dir dir{"rocmtpl-autotune-gpu"};
  auto o = options_in(dir);
  o.max_candidates = 2;
  o.isolate = false;  // loads happen in this process, where the log is captured
  const auto before = current_log_level();
  set_log_level(log_level::info);
  ::testing::internal::CaptureStderr();
  const auto report = autotune(readme_like(200, 136, 72), {}, o);
  const auto warm = autotune(readme_like(200, 136, 72), {}, o);
  const auto info = ::testing::internal::GetCapturedStderr();
  set_log_level(log_level::debug);
  ::testing::internal::CaptureStderr();
  o.use_database = false;
  (void)autotune(readme_like(200, 136, 72), {}, o);
  const auto debug = ::testing::internal::GetCapturedStderr();
  set_log_level(before);

  ASSERT_TRUE(report.winner.has_value());
  ASSERT_TRUE(warm.from_database);
  const auto& winner = report.best()->name;
  const std::vector<std::string> info_lines{
      "[info] render " + report.candidates[0].name + ": kernel ",
      "[info] tune gemm: 2 candidates, problem ",
      "[info] database " + o.database.string() + ": opened",
      "[info] compile helpers: ",
      "[info] compile reference: ",
      "[info] compile " + report.candidates[1].name + ": ",
      "[info] load ",
      ": code object",
      "[info] benchmark " + report.candidates[0].name + ": ",
      "[info] verify " + report.candidates[1].name + ": ok, max error ",
      "[info] winner " + winner + ": ",
      ": stored the winner of problem " + report.key.digest(),
      ": problem " + report.key.digest() + " answered: winner " + warm.best()->name};
  for (const auto& expected : info_lines) {
    EXPECT_NE(info.find(expected), std::string::npos) << "no '" << expected << "' in the log:\n" << info;
  }
  EXPECT_EQ(info.find("[debug]"), std::string::npos) << info;
  // Candidate names are numbered per process: each tune's own.
  for (const char* expected :
       {R"(\[debug\] render rocm_gemm_\d+: arguments: const )", R"(\[debug\] render rocm_gemm_\d+: source:\n#include)",
        R"(\[debug\] compile rocm_gemm_\d+: )"}) {
    EXPECT_TRUE(std::regex_search(debug, std::regex(expected))) << "no '" << expected << "' in the log:\n" << debug;
  }
}

// The helper kernels give the same bits as a shared library and as a code object.
TEST(AutotuneGpu, HelperKernelsAgreeAsLibraryAndCodeObject) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  temp_dir dir{"rocmtpl-autotune-gpu"};
  code_cache cache(dir.path() / "kernels");
  const auto device = query_device_identity();
  auto so = runtime::detail::target_compile_options(true, device, autotune_options{});
  auto co = so;
  co.output = compile_output::code_object;
  const auto cc = compiler::find(so.platform);
  const utility_kernels lib(compiled_binary{utility_kernels::build(cache, cc, so), false});
  const utility_kernels obj(compiled_binary{utility_kernels::build(cache, cc, co), true});
  EXPECT_FALSE(lib.uses_code_object());
  EXPECT_TRUE(obj.uses_code_object());
  for (dtype t : {dtype::f16, dtype::bf16, dtype::f32, dtype::i32}) {
    tensor_meta meta;
    meta.name = "t";
    meta.type = t;
    meta.sizes = {123, 457};
    meta.strides = {457, 1};
    const std::size_t bytes = static_cast<std::size_t>(meta.storage_elements()) * element_size(t);
    device_buffer a(bytes), b(bytes);
    stream s;
    lib.fill(a.get(), meta, 42, s.get());
    obj.fill(b.get(), meta, 42, s.get());
    s.synchronize();
    std::vector<std::uint8_t> ha(bytes), hb(bytes);
    a.copy_to_host(ha.data());
    b.copy_to_host(hb.data());
    EXPECT_EQ(ha, hb) << name(t);
    // Equal buffers compare equal; a different seed does not (both ways alike).
    EXPECT_EQ(obj.compare(a.get(), meta, b.get(), meta, s.get()).relative_l2, 0.0) << name(t);
    obj.fill(b.get(), meta, 43, s.get());
    const auto by_lib = lib.compare(a.get(), meta, b.get(), meta, s.get());
    const auto by_obj = obj.compare(a.get(), meta, b.get(), meta, s.get());
    EXPECT_GT(by_obj.relative_l2, 0.1) << name(t);
    // The compare kernel sums with atomics: the order, and so the last bits, differ between runs.
    EXPECT_NEAR(by_lib.relative_l2, by_obj.relative_l2, 1e-12 * by_obj.relative_l2) << name(t);
    EXPECT_EQ(by_lib.max_abs, by_obj.max_abs) << name(t);
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
    return {{gemm_config{}, plant::trap},  {gemm_config{}, plant::out_of_bounds},
            {gemm_config{}, plant::wrong}, {gemm_config{}, plant::hang},
            {gemm_config{}, plant::none},  {templates::simt_config{128, 64, 8, 8, 4, 8}, plant::none}};
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

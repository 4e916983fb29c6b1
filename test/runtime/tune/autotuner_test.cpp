// SPDX-License-Identifier: MIT
// CPU tests of the runtime's benchmark and autotune layers: a tune without a GPU compiles for AMD
// and reports resource usage. The named steps of autotune()
// (include/rocmtpl/runtime/tune/autotuner.hpp) are tested one by one.
#include <rocmtpl/runtime.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::gemm_config;
using templates::gemm_policy;

using rocmtpl::test::have_compiler;
using rocmtpl::test::symbolic_gemm;
using rocmtpl::test::temp_dir;
using rocmtpl::test::write_script;

TEST(Autotuner, SummarizesUnsortedTimes) {
  const auto t = summarize({4.0, 1.0, 3.0, 2.0, 5.0});
  EXPECT_EQ(t.repetitions, 5);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.median_ms, 3.0);
  EXPECT_NEAR(t.spread, (4.6 - 1.4) / 3.0, 1e-12);
  EXPECT_EQ(summarize({}).repetitions, 0);
  EXPECT_EQ(summarize({2.0}).spread, 0.0);
}

TEST(Benchmark, TolerancesAreDtypeAware) {
  EXPECT_LT(default_tolerance(dtype::f32), default_tolerance(dtype::f16));
  EXPECT_LT(default_tolerance(dtype::f16), default_tolerance(dtype::bf16));
  EXPECT_EQ(default_tolerance(dtype::i32), 0.0);
}

TEST(Benchmark, HelperKernelsBuildForAmdAndTheBenchNeedsAGpu) {
  if (gpu_runtime::instance().available()) GTEST_SKIP() << "a GPU is present";
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  // The fill/compare kernels build for AMD and load without a GPU...
  const utility_kernels util(utility_kernels::build(cache, compiler::find(platform::amd), amd_compile_options()));
  // ...but a bench allocates device memory: a typed no-GPU error, never a crash.
  const auto caller = symbolic_gemm().generate(gemm_config{}, {{"M", 8}});
  EXPECT_THROW(bench(caller.bmreq(), util), no_gpu_error);
}

TEST(WorkerProtocol, RequestRoundTripsThroughJson) {
  const auto caller = symbolic_gemm(dtype::bf16).generate(gemm_config{}, {{"M", 77}});
  const auto& r = caller.bmreq();
  const auto back = request_from_json(request_to_json(r));
  EXPECT_EQ(back.kernel_name, r.kernel_name);
  EXPECT_EQ(back.input_tensor_meta, r.input_tensor_meta);
  EXPECT_EQ(back.output_tensor_meta, r.output_tensor_meta);
  EXPECT_EQ(back.extra_args, r.extra_args);
  EXPECT_EQ(back.size_arg_count, r.size_arg_count);
  EXPECT_EQ(back.signature, r.signature);
  benchmark_options o;
  o.budget_ms = 7;
  o.seed = 99;
  o.settle_ms = 30;
  EXPECT_EQ(options_from_json(options_to_json(o)).seed, 99U);
  EXPECT_EQ(options_from_json(options_to_json(o)).budget_ms, 7.0);
  EXPECT_EQ(options_from_json(options_to_json(o)).settle_ms, 30.0);
}

TEST(WorkerProtocol, WorkerAnswersBadCommandsWithErrors) {
  std::string input =
      "{\"op\":\"measure\"}\n{\"op\":\"bogus\"}\nnot json\n{\"op\":\"reference\"}\n{\"op\":\"verify\"}\n"
      "{\"op\":\"retime\",\"candidates\":[]}\n";
  std::FILE* in = fmemopen(input.data(), input.size(), "r");
  char* out_buf = nullptr;
  std::size_t out_size = 0;
  std::FILE* out = open_memstream(&out_buf, &out_size);
  EXPECT_EQ(run_worker(in, out), 0);
  std::fclose(in);
  std::fclose(out);
  const std::string text(out_buf, out_size);
  std::free(out_buf);
  EXPECT_NE(text.find("measure before setup"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown op 'bogus'"), std::string::npos) << text;
  EXPECT_NE(text.find("reference before setup"), std::string::npos) << text;
  EXPECT_NE(text.find("verify before setup"), std::string::npos) << text;
  EXPECT_NE(text.find("retime before setup"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);
}

TEST(WorkerProcess, RepliesCrashesAndTimeouts) {
  temp_dir dir;
  worker_process::failure why{};
  std::string detail;
  {
    worker_process echo(write_script(dir / "echo.sh", "while read line; do echo '{\"ok\":true,\"n\":1}'; done"));
    auto reply = echo.request({{"op", "x"}}, std::chrono::seconds(10), why, detail);
    ASSERT_TRUE(reply.has_value()) << detail;
    EXPECT_EQ(reply->at("n").get<int>(), 1);
    EXPECT_EQ(why, worker_process::failure::none);
  }
  {
    worker_process crash(write_script(dir / "crash.sh", "read line; kill -SEGV $$"));
    auto reply = crash.request({{"op", "x"}}, std::chrono::seconds(10), why, detail);
    EXPECT_FALSE(reply.has_value());
    EXPECT_EQ(why, worker_process::failure::crashed);
    EXPECT_NE(detail.find("signal 11"), std::string::npos) << detail;
  }
  {
    worker_process hang(write_script(dir / "hang.sh", "read line; sleep 30"));
    const auto t0 = std::chrono::steady_clock::now();
    auto reply = hang.request({{"op", "x"}}, std::chrono::milliseconds(300), why, detail);
    EXPECT_FALSE(reply.has_value());
    EXPECT_EQ(why, worker_process::failure::timed_out);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  }
  EXPECT_THROW(worker_process(dir.path() / "missing"), error);
}

TEST(Autotune, WithoutAGpuCompilesForAmdAndReportsResources) {
  if (gpu_runtime::instance().available()) GTEST_SKIP() << "a GPU is present: the GPU tests cover tuning";
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  autotune_options o;
  o.max_candidates = 4;
  o.cache_dir = dir.path() / "kernels";
  o.database = dir.path() / "tuning.sqlite3";
  o.progress = false;
  // N = 44 (not a multiple of 8) keeps the Hopper (wgmma) configurations, which have no AMD kernel,
  // out of the ranked list: the four candidates are MFMA ones.
  const auto m = sym_expr::symbol("M");
  const rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {m, 64})), buffer("w", layout::row_major(dtype::f16, {64, 44}))},
      layout::row_major(dtype::f16, {m, 44}));
  const auto report = autotune(t, {{"M", 256}}, o);
  EXPECT_FALSE(report.gpu);
  EXPECT_FALSE(report.gpu_status.empty());
  EXPECT_EQ(report.compiled, 4U);
  EXPECT_FALSE(report.winner.has_value());
  ASSERT_EQ(report.candidates.size(), 4U);
  for (const auto& c : report.candidates) {
    EXPECT_EQ(c.result.status, candidate_status::skipped) << c.result.reason;
    EXPECT_EQ(c.result.reason, "no GPU");
    ASSERT_EQ(c.resources.size(), 2U) << "one report per offload arch";
    EXPECT_GT(c.resources[0].vgprs, 0);
    EXPECT_FALSE(c.resources[0].spills()) << c.config;
  }
  EXPECT_FALSE(fs::exists(o.database)) << "nothing is stored without measurements";
  // A second run finds every library in the code cache.
  const auto again = autotune(t, {{"M", 256}}, o);
  EXPECT_EQ(again.compiled, 0U);
  std::ostringstream table;
  report.print_table(table);
  EXPECT_NE(table.str().find("skipped"), std::string::npos);
  EXPECT_EQ(report.summary(), "4 candidates: 4 skipped");
  const auto j = report.to_json();
  ASSERT_EQ(j.at("candidates").size(), 4U);
  // Each kernel's resources in the code cache's JSON shape, plus the spill total.
  const auto& res = j.at("candidates")[0].at("resources");
  ASSERT_EQ(res.size(), 2U);
  EXPECT_EQ(res[0].at("vgprs"), report.candidates[0].resources[0].vgprs);
  EXPECT_EQ(res[0].at("mangled_name"), report.candidates[0].resources[0].mangled_name);
  EXPECT_EQ(res[0].at("spills"), report.candidates[0].resources[0].spills());
}
namespace rtd = rocmtpl::runtime::detail;

// ---- the named steps of autotune() --------------------------------------------------------------

candidate_report row(std::string id, double ms, candidate_status status = candidate_status::ok, bool verified = true) {
  candidate_report c;
  c.id = id;
  c.result.candidate = std::move(id);
  c.result.status = status;
  c.result.min_ms = ms;
  c.result.median_ms = ms;
  c.result.repetitions = ms > 0 ? 10 : 0;
  c.result.verified = verified;
  return c;
}

TEST(AutotuneSteps, CandidatesAreRankedRowsWithStableIds) {
  const auto t = symbolic_gemm();
  autotune_options o;
  o.max_candidates = 3;
  const auto callers = rtd::collect_candidates(t, {{"M", 256}}, o);
  ASSERT_EQ(callers.size(), 3U);
  const auto rows = rtd::describe_candidates(callers);
  ASSERT_EQ(rows.size(), callers.size());
  std::set<std::string> ids;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].name, callers[i].name());
    EXPECT_EQ(rows[i].id, callers[i].hash_key());
    EXPECT_EQ(rows[i].result.candidate, rows[i].id);
    EXPECT_EQ(rows[i].result.source_hash, callers[i].bmreq().source_hash());
    EXPECT_FALSE(rows[i].config.empty());
    EXPECT_EQ(rows[i].config, rows[i].result.config);
    EXPECT_EQ(rows[i].config.find("backend="), std::string::npos) << rows[i].config;
    EXPECT_EQ(rows[i].config.find("name="), std::string::npos) << rows[i].config;
    // The configuration's values, field by field: the caller's info without backend and name.
    std::vector<std::pair<std::string, std::string>> values;
    for (const auto& kv : callers[i].info_dict()) {
      if (kv.first != "backend" && kv.first != "name") values.push_back(kv);
    }
    EXPECT_FALSE(values.empty());
    EXPECT_EQ(rows[i].config_values, values);
    ids.insert(rows[i].id);
  }
  EXPECT_EQ(ids.size(), rows.size()) << "every candidate has its own id";
  o.max_candidates = 0;
  EXPECT_GT(rtd::collect_candidates(t, {{"M", 256}}, o).size(), 3U) << "0 means every config";
}

TEST(AutotuneSteps, KeyNamesTheTargetAndFollowsTheProblem) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  const compiler cc = compiler::find(platform::amd);
  const auto t = symbolic_gemm();
  autotune_options o;
  o.max_candidates = 2;
  const auto callers = rtd::collect_candidates(t, {{"M", 256}}, o);
  const auto key = rtd::make_key(t.name(), callers, {{"M", 256}}, std::nullopt, o, cc);
  EXPECT_EQ(key.template_name, std::string(t.name()));
  EXPECT_EQ(key.arch, "gfx90a,gfx940") << "compile-only: the AMD archs";
  EXPECT_EQ(key.device, "none");
  EXPECT_EQ(key.compiler_version, cc.version());
  EXPECT_EQ(key.library_version, version_string);
  EXPECT_NE(key.problem.find("M=256"), std::string::npos) << key.problem;

  const device_identity h100{platform::nvidia, "NVIDIA H100 80GB HBM3", "sm_90"};
  const auto on_device = rtd::make_key(t.name(), callers, {{"M", 256}}, h100, o, cc);
  EXPECT_EQ(on_device.arch, "sm_90");
  // An sm_90 device compiles for sm_90a (wgmma, setmaxnreg); other archs are compiled as they are.
  EXPECT_EQ(rtd::target_compile_options(true, h100, o).archs, std::vector<std::string>{"sm_90a"});
  const device_identity a100{platform::nvidia, "NVIDIA A100", "sm_80"};
  EXPECT_EQ(rtd::target_compile_options(true, a100, o).archs, std::vector<std::string>{"sm_80"});
  EXPECT_EQ(device_compile_arch(platform::amd, "gfx90a"), "gfx90a");
  EXPECT_EQ(device_compile_arch(platform::nvidia, "sm_90"), "sm_90a");
  EXPECT_EQ(on_device.device, h100.name);
  EXPECT_EQ(on_device.problem, key.problem);

  const auto bigger = rtd::collect_candidates(t, {{"M", 512}}, o);
  EXPECT_NE(rtd::make_key(t.name(), bigger, {{"M", 512}}, std::nullopt, o, cc).problem, key.problem);
}

TEST(AutotuneSteps, DatabaseAnswersOnlyWhenEveryCandidateAndAWinnerAreKnown) {
  temp_dir dir;
  tuning_db db(dir.path() / "tuning.sqlite3");
  autotune_report report;
  report.key = tuning_key{"gemm", "p", "", "sm_90", "H100", "nvcc 13", "0.1.0"};
  report.candidates = {row("a", 0), row("b", 0)};
  EXPECT_FALSE(rtd::lookup_db(db, report));
  EXPECT_EQ(rtd::pending_candidates(&db, report), (std::vector<std::size_t>{0, 1}));

  db.add_measurement(report.key, row("a", 2.0).result);
  db.set_winner(report.key, "a");
  EXPECT_FALSE(rtd::lookup_db(db, report)) << "b was never measured";
  EXPECT_EQ(report.candidates[0].result.min_ms, 2.0) << "what is known is copied into the report";
  EXPECT_FALSE(report.winner.has_value());
  EXPECT_EQ(rtd::pending_candidates(&db, report), (std::vector<std::size_t>{1}));

  db.add_measurement(report.key, row("b", 3.0, candidate_status::compile_failed).result);
  EXPECT_TRUE(rtd::lookup_db(db, report));
  EXPECT_EQ(report.winner, std::optional<std::size_t>(0));
  EXPECT_EQ(report.candidates[1].result.status, candidate_status::compile_failed);
  EXPECT_TRUE(rtd::pending_candidates(&db, report).empty());
  EXPECT_EQ(rtd::pending_candidates(nullptr, report), (std::vector<std::size_t>{0, 1})) << "no database: all";
}

TEST(AutotuneSteps, WinnerIsTheFastestOkCandidateVerifiedWhereRequired) {
  autotune_report report;
  report.key = tuning_key{"gemm", "p", "", "sm_90", "H100", "nvcc 13", "0.1.0"};
  report.candidates = {row("slow", 2.0), row("unverified", 1.0, candidate_status::ok, false),
                       row("broken", 0.5, candidate_status::verify_failed), row("untimed", 0)};
  rtd::pick_and_store(report, nullptr, true);
  EXPECT_EQ(report.winner, std::optional<std::size_t>(0));
  report.winner.reset();
  rtd::pick_and_store(report, nullptr, false);
  EXPECT_EQ(report.winner, std::optional<std::size_t>(1));

  temp_dir dir;
  tuning_db db(dir.path() / "tuning.sqlite3");
  for (const auto& c : report.candidates) db.add_measurement(report.key, c.result);
  report.winner.reset();
  rtd::pick_and_store(report, &db, true);
  EXPECT_EQ(db.find(report.key)->winner, std::optional<std::string>("slow")) << "the winner is stored";
}

// The finalists (autotune_options::finalists) are the fastest ok candidates by minimum time within
// the margin, at most the count, all measured in this run; once re-timed, their medians there pick
// the winner, and ranked() (the table's order) lists them first in that order.
TEST(AutotuneSteps, RetimedFinalistsPickByTheirMedianUnderLoad) {
  autotune_report report;
  report.candidates = {
      row("a", 1.00), row("b", 1.03), row("c", 1.02), row("d", 1.20), row("e", 0.90, candidate_status::ok, false),
      row("f", 0)};
  for (auto& c : report.candidates) c.library = "/lib/" + c.id;
  autotune_options o;
  o.finalists = 3;
  o.finalist_margin = 0.05;
  o.finalist_min_ms = 1.01;
  EXPECT_TRUE(rtd::choose_finalists(report, o, true).empty()) << "the fastest, a, is too short to re-time";
  o.finalist_min_ms = 1.0;
  EXPECT_EQ(rtd::choose_finalists(report, o, true), (std::vector<std::size_t>{0, 2, 1})) << "fastest first";
  o.finalist_min_ms = 0.5;
  EXPECT_TRUE(rtd::choose_finalists(report, o, false).empty()) << "unverified e is alone within 5% of its 0.90";
  o.finalists = 2;
  EXPECT_EQ(rtd::choose_finalists(report, o, true), (std::vector<std::size_t>{0, 2}));
  o.finalists = 1;
  EXPECT_TRUE(rtd::choose_finalists(report, o, true).empty()) << "one finalist: nothing to compare";
  o.finalists = 3;
  o.finalist_margin = 0.25;
  report.candidates[3].library.clear();  // d: the database's measurement, its binary not at hand
  EXPECT_EQ(rtd::choose_finalists(report, o, true), (std::vector<std::size_t>{0, 2, 1})) << "d is not in the top 3";
  o.finalists = 4;
  EXPECT_TRUE(rtd::choose_finalists(report, o, true).empty()) << "d would be compared without being re-timed";

  // Re-timed: c's median beats a's, although a had the lowest minimum.
  report.candidates[0].final_ms = 1.10;
  report.candidates[1].final_ms = 1.08;
  report.candidates[2].final_ms = 1.05;
  rtd::pick_and_store(report, nullptr, true);
  EXPECT_EQ(report.winner, std::optional<std::size_t>(2));
  std::vector<std::string> order;
  for (const auto* c : report.ranked()) order.push_back(c->id);
  EXPECT_EQ(order, (std::vector<std::string>{"c", "b", "a", "e", "d", "f"}));
  std::ostringstream table;
  report.print_table(table);
  EXPECT_NE(table.str().find("     final "), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("1.0500"), std::string::npos) << table.str();
  EXPECT_EQ(report.to_json().at("candidates")[2].at("final_ms"), 1.05);
  // Not re-timed: the lowest minimum picks, as before.
  for (auto& c : report.candidates) c.final_ms = 0;
  report.winner.reset();
  rtd::pick_and_store(report, nullptr, true);
  EXPECT_EQ(report.winner, std::optional<std::size_t>(0));
}

TEST(AutotuneSteps, CompilePlanPutsWhatTheBenchmarksNeedFirst) {
  const auto t = symbolic_gemm();
  autotune_options o;
  o.max_candidates = 3;
  const size_hints hints{{"M", 256}};
  const auto callers = rtd::collect_candidates(t, hints, o);
  const std::vector<std::size_t> todo{0, 2};
  using rtd::job_kind;
  const auto kinds = [](const rtd::compile_jobs& p) {
    std::vector<job_kind> k;
    for (const auto& j : p.jobs) k.push_back(j.kind);
    return k;
  };
  const auto compile_only = rtd::plan_compiles(t, hints, callers, todo, false, false, true);
  EXPECT_EQ(kinds(compile_only), (std::vector<job_kind>{job_kind::candidate, job_kind::candidate}));
  EXPECT_EQ(compile_only.jobs[1].candidate, 2U);
  EXPECT_EQ(compile_only.jobs[1].source, callers[2].source());
  // The GEMM describes its launch: candidates compile device-only unless that is turned off.
  EXPECT_TRUE(compile_only.jobs[0].code_object && compile_only.jobs[1].code_object);
  const auto shared = rtd::plan_compiles(t, hints, callers, todo, true, true, false);
  for (const auto& j : shared.jobs) EXPECT_FALSE(j.code_object) << "--shared-libraries: every job a library";
  EXPECT_FALSE(shared.reference_launch.has_value());

  // Benchmarking: the helpers, the first candidate, the reference, then the other candidates; all
  // device-only, the reference with its launch description.
  const auto bench = rtd::plan_compiles(t, hints, callers, todo, true, true, true);
  EXPECT_EQ(kinds(bench),
            (std::vector<job_kind>{job_kind::helpers, job_kind::candidate, job_kind::reference, job_kind::candidate}));
  EXPECT_EQ(bench.jobs[0].source, rtd::utility_source);
  EXPECT_EQ(bench.jobs[1].candidate, 0U);
  EXPECT_EQ(bench.jobs[2].source, t.generate_reference(hints).source());
  EXPECT_EQ(bench.jobs[3].candidate, 2U);
  for (const auto& j : bench.jobs) EXPECT_TRUE(j.code_object) << static_cast<int>(j.kind);
  ASSERT_TRUE(bench.reference_launch.has_value());
  EXPECT_EQ(device_symbol(*bench.reference_launch, bench.reference_launch->variants.front().launches.front()),
            "rocm_gemm_reference");
  EXPECT_EQ(bench.candidates(), 2U);
  EXPECT_FALSE(rtd::plan_compiles(t, hints, callers, todo, true, false, true).has(job_kind::reference));
  EXPECT_TRUE(rtd::plan_compiles(t, hints, callers, {}, true, true, true).jobs.empty()) << "nothing to measure";
}

// The reference compiles device-only through the candidates' compile path (hipcc --genco here),
// its kernel under the unmangled name its launch description gives, without spills.
TEST(AutotuneSteps, ReferenceCompilesDeviceOnlyForAmd) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto reference = symbolic_gemm().generate_reference({{"M", 256}});
  ASSERT_TRUE(reference.launch().has_value());
  auto options = amd_compile_options({"gfx90a", "gfx940"});
  options.output = compile_output::code_object;
  const auto r = cache.get_or_compile(compiler::find(platform::amd), reference.source(), options);
  std::set<std::string> kernels;
  for (const auto& k : r.resources) {
    kernels.insert(k.kernel + "@" + k.arch);
    EXPECT_FALSE(k.spills()) << k.kernel << " " << k.arch;
  }
  const auto symbol = device_symbol(*reference.launch(), reference.launch()->variants.front().launches.front());
  EXPECT_EQ(kernels, (std::set<std::string>{symbol + "@gfx90a", symbol + "@gfx940"}));
}

// a + b, appended in steps (g++ 12 -O3 reports a false -Wrestrict on "lit" + std::string).
std::string cat(std::string a, const std::string& b) {
  a += b;
  return a;
}

// A bench stand-in for bench_loop: records what it is asked, in order. A measurement made while
// the reference has run is verified in place (as candidate_bench's is); `wrong` fails verification.
struct fake_bench {
  std::vector<std::string> log;
  std::string error;
  bool reference = false;
  bool reference_fails = false;
  std::set<std::size_t> wrong;
  void setup_helpers(const compiled_binary& b) { log.push_back(cat("helpers ", b.path.string())); }
  void run_reference(const compiled_binary& b, const std::optional<launch_description>& launch) {
    if (!error.empty()) return;  // as candidate_bench: nothing runs after a failure
    log.push_back(cat(cat("reference ", b.path.string()), launch ? " described" : ""));
    if (reference_fails) {
      fail("reference failed: boom");
      return;
    }
    reference = true;
  }
  void fail(std::string why) {
    if (error.empty()) error = std::move(why);
  }
  [[nodiscard]] const std::string& setup_error() const { return error; }
  [[nodiscard]] bool has_reference() const { return reference; }
  measurement verdict(std::size_t caller) const {
    measurement m;
    if (wrong.count(caller) != 0) {
      m.status = candidate_status::verify_failed;
      m.reason = "wrong";
    } else {
      m.verified = true;
    }
    return m;
  }
  measurement measure(const candidate_report&, std::size_t caller) {
    log.push_back(cat(cat("measure ", std::to_string(caller)), reference ? " verified" : ""));
    measurement m = reference ? verdict(caller) : measurement{};
    m.device = "Fake GPU";  // as candidate_bench: each measurement names the GPU that took it
    m.device_id = std::to_string(caller);
    if (m.status != candidate_status::ok) return m;
    m.min_ms = m.median_ms = 1.0 + static_cast<double>(caller);
    m.repetitions = 5;
    return m;
  }
  measurement verify(const candidate_report&, std::size_t caller) {
    log.push_back(cat("verify ", std::to_string(caller)));
    return verdict(caller);
  }
};

// A bench whose measurements finish later, as the worker pool's do: each is under way until the
// reference has run. An even caller's measurement was taken at once (before the reference: not
// verified); an odd caller's waited for a free worker and ran after the reference (verified by it).
struct async_bench : fake_bench {
  struct ticket {
    async_bench* bench;
    std::size_t caller;
    std::optional<measurement> taken;
    [[nodiscard]] bool ready() const { return bench->reference; }
    measurement get() { return taken ? *taken : bench->fake_bench::measure({}, caller); }
  };
  ticket measure(const candidate_report& c, std::size_t caller) {
    log.push_back(cat("start ", std::to_string(caller)));
    if (caller % 2 == 0) return {this, caller, fake_bench::measure(c, caller)};
    return {this, caller, std::nullopt};
  }
  ticket verify(const candidate_report& c, std::size_t caller) { return {this, caller, fake_bench::verify(c, caller)}; }
};

// A compile pool stand-in: hands out finished jobs in a fixed order.
struct fake_pool {
  std::deque<rtd::compiled_candidate> done;
  rtd::compiled_candidate pop() {
    auto item = std::move(done.front());
    done.pop_front();
    return item;
  }
};

// Jobs: helpers (0), candidate row 0 (1), reference (2), candidate rows 1, 2, 3 (3..5), finished
// in `order` (job indices); `failed` jobs did not compile.
struct loop_fixture {
  rtd::compile_jobs jobs;
  autotune_report report;
  std::vector<std::size_t> callers{0, 1, 2, 3};
  fake_pool pool;
  explicit loop_fixture(const std::vector<std::size_t>& order, std::set<std::size_t> failed = {}) {
    using rtd::job_kind;
    jobs.jobs = {{job_kind::helpers, 0, "h", true, {}, "helpers"},     {job_kind::candidate, 0, "c0", true, {}, "c0"},
                 {job_kind::reference, 0, "r", true, {}, "reference"}, {job_kind::candidate, 1, "c1", true, {}, "c1"},
                 {job_kind::candidate, 2, "c2", true, {}, "c2"},       {job_kind::candidate, 3, "c3", true, {}, "c3"}};
    jobs.reference_launch = launch_description{};
    report.gpu = true;
    report.key.device = "Fake GPU";
    for (std::size_t i = 0; i < 4; ++i) report.candidates.push_back(row(cat("c", std::to_string(i)), 0));
    for (const auto j : order) {
      compile_result r;
      r.library = cat(cat("/cache/", std::to_string(j)), ".co");
      if (failed.count(j) != 0) {
        pool.done.push_back({j, std::nullopt, cat("error ", std::to_string(j)), true});
      } else {
        pool.done.push_back({j, r, {}, true});
      }
    }
  }
  template <class Bench>
  void run(Bench& bench, tuning_db* db = nullptr) {
    rtd::progress_line progress(false);
    rtd::bench_loop<fake_pool, Bench, std::vector<std::size_t>> loop(report, callers, jobs, bench, db, progress);
    loop.run(pool);
  }
};

TEST(AutotuneSteps, CandidatesAreTimedBeforeTheReferenceAndVerifiedAfterIt) {
  // Candidates 0 and 1 finish before the helpers, 2 after them; then the reference; then 3.
  loop_fixture f({1, 3, 0, 4, 2, 5});
  fake_bench bench;
  bench.wrong = {1};
  temp_dir dir;
  tuning_db db(dir.path() / "tuning.sqlite3");
  f.report.key.template_name = "gemm";
  f.run(bench, &db);
  EXPECT_EQ(bench.log, (std::vector<std::string>{"helpers /cache/0.co", "measure 0", "measure 1", "measure 2",
                                                 "reference /cache/2.co described", "verify 0", "verify 1", "verify 2",
                                                 "measure 3 verified"}));
  const auto& c = f.report.candidates;
  for (const std::size_t i : {0U, 2U, 3U}) {
    EXPECT_EQ(c[i].result.status, candidate_status::ok) << i;
    EXPECT_TRUE(c[i].result.verified) << i;
    EXPECT_GT(c[i].result.min_ms, 0.0) << i;
  }
  EXPECT_EQ(c[1].result.status, candidate_status::verify_failed);
  EXPECT_EQ(c[1].result.reason, "wrong");
  // The timeline follows the events' order.
  const auto& tl = f.report.timeline;
  EXPECT_GT(tl.helpers_ready, 0.0);
  EXPECT_LE(tl.helpers_ready, tl.first_measured);
  EXPECT_LE(tl.first_measured, tl.reference_ready);
  EXPECT_LE(tl.reference_ready, tl.compiles_done);
  EXPECT_LE(tl.compiles_done, tl.measured_done);
  EXPECT_TRUE(f.report.to_json().at("timeline").contains("measured_done"));
  EXPECT_EQ(f.report.benchmarked, 4U);
  // Every measurement reached the database once final, and the winner is a verified one.
  for (const auto& cr : c) EXPECT_TRUE(db.find_measurement(f.report.key, cr.id).has_value()) << cr.id;
  EXPECT_FALSE(db.find_measurement(f.report.key, c[1].id)->verified);
  rtd::pick_and_store(f.report, &db, true);
  EXPECT_EQ(f.report.winner, std::optional<std::size_t>(0));
}

// Measurements under way at once (the worker pool's): one started before the reference and
// finished after it is verified then; one its worker took after the reference is not verified
// twice; a wrong one fails; every one reaches the database once final.
TEST(AutotuneSteps, MeasurementsUnderWayWhenTheReferenceRunsAreVerifiedOnce) {
  loop_fixture f({0, 1, 3, 2, 4, 5});  // helpers, rows 0 and 1, the reference, rows 2 and 3
  async_bench bench;
  bench.wrong = {3};
  temp_dir dir;
  tuning_db db(dir.path() / "tuning.sqlite3");
  f.report.key.template_name = "gemm";
  f.run(bench, &db);
  EXPECT_EQ(bench.log, (std::vector<std::string>{"helpers /cache/0.co", "start 0", "measure 0", "start 1",
                                                 "reference /cache/2.co described", "verify 0", "measure 1 verified",
                                                 "start 2", "measure 2 verified", "start 3", "measure 3 verified"}));
  const auto& c = f.report.candidates;
  for (const std::size_t i : {0U, 1U, 2U}) {
    EXPECT_EQ(c[i].result.status, candidate_status::ok) << i;
    EXPECT_TRUE(c[i].result.verified) << i;
    EXPECT_EQ(c[i].result.min_ms, 1.0 + static_cast<double>(i)) << i;  // the timing kept through verification
    EXPECT_EQ(c[i].result.candidate, c[i].id) << i;
  }
  EXPECT_EQ(c[3].result.status, candidate_status::verify_failed);
  EXPECT_EQ(f.report.benchmarked, 4U);
  EXPECT_GT(f.report.timeline.first_measured, 0.0);
  EXPECT_LE(f.report.timeline.first_measured, f.report.timeline.measured_done);
  for (const auto& cr : c) EXPECT_TRUE(db.find_measurement(f.report.key, cr.id).has_value()) << cr.id;
  EXPECT_TRUE(db.find_measurement(f.report.key, c[0].id)->verified);
  // Where each was timed survives the later verification, into the report and the database.
  for (const std::size_t i : {0U, 1U, 2U}) {
    EXPECT_EQ(c[i].result.device, "Fake GPU") << i;
    EXPECT_EQ(c[i].result.device_id, std::to_string(i)) << i;
    EXPECT_EQ(db.find_measurement(f.report.key, c[i].id)->device_id, std::to_string(i)) << i;
  }
  EXPECT_EQ(f.report.to_json().at("candidates")[0].at("measurement").at("device"), "Fake GPU");
  rtd::pick_and_store(f.report, &db, true);
  EXPECT_EQ(f.report.winner, std::optional<std::size_t>(0));
}

TEST(AutotuneSteps, AReferenceCompiledBeforeTheHelpersWaitsForThem) {
  loop_fixture f({2, 1, 0, 3, 4, 5});
  fake_bench bench;
  f.run(bench);
  EXPECT_EQ(bench.log,
            (std::vector<std::string>{"helpers /cache/0.co", "reference /cache/2.co described", "measure 0 verified",
                                      "measure 1 verified", "measure 2 verified", "measure 3 verified"}));
  for (const auto& c : f.report.candidates) EXPECT_TRUE(c.result.verified) << c.id;
}

TEST(AutotuneSteps, WithoutAReferenceNoCandidateCanWin) {
  {  // The reference does not compile: the candidates timed before are skipped with the reason.
    loop_fixture f({0, 1, 3, 2, 4, 5}, {2});
    fake_bench bench;
    f.run(bench);
    EXPECT_EQ(bench.log, (std::vector<std::string>{"helpers /cache/0.co", "measure 0", "measure 1"}));
    for (const auto& c : f.report.candidates) {
      EXPECT_EQ(c.result.status, candidate_status::skipped) << c.id;
      EXPECT_EQ(c.result.reason, "reference failed to compile: error 2") << c.id;
    }
    rtd::pick_and_store(f.report, nullptr, true);
    EXPECT_FALSE(f.report.winner.has_value());
  }
  {  // It compiles but fails to run.
    loop_fixture f({0, 1, 2, 3, 4, 5});
    fake_bench bench;
    bench.reference_fails = true;
    f.run(bench);
    for (const auto& c : f.report.candidates) EXPECT_EQ(c.result.reason, "reference failed: boom") << c.id;
  }
  {  // The helpers do not compile: nothing is measured, every candidate says why.
    loop_fixture f({1, 0, 2, 3, 4, 5}, {0, 4});
    fake_bench bench;
    f.run(bench);
    EXPECT_TRUE(bench.log.empty());
    EXPECT_EQ(f.report.candidates[0].result.reason, "helper kernels failed to compile: error 0");
    EXPECT_EQ(f.report.candidates[2].result.status, candidate_status::compile_failed);
    EXPECT_EQ(f.report.benchmarked, 0U);
  }
}

TEST(AutotuneSteps, CompiledCandidatesAreSkippedWithTheReasonWhenTheyCannotBeMeasured) {
  autotune_options o;
  const auto t = symbolic_gemm();
  const auto callers = rtd::collect_candidates(t, {{"M", 256}}, o);
  rtd::candidate_bench bench(o, callers.front().bmreq());
  bench.fail("helper kernels failed to compile: boom");
  EXPECT_EQ(bench.setup_error(), "helper kernels failed to compile: boom");

  compile_result built;
  built.library = "/cache/k.so";
  built.seconds = 1.5;
  built.argv = {"hipcc", "--offload-arch=gfx90a", "-O3", "-shared"};
  autotune_report report;
  report.gpu = true;
  auto c = row("a", 0);
  rtd::measure_compiled(report, c, rtd::compiled_candidate{0, built, {}}, callers.front(), bench);
  EXPECT_EQ(c.result.status, candidate_status::skipped);
  EXPECT_EQ(c.result.reason, "helper kernels failed to compile: boom");
  EXPECT_EQ(c.library, built.library);
  EXPECT_EQ(c.compile_seconds, 1.5);
  EXPECT_EQ(c.compile_command, built.argv);
  EXPECT_EQ(report.benchmarked, 0U);

  report.gpu = false;
  rtd::measure_compiled(report, c, rtd::compiled_candidate{0, built, {}}, callers.front(), bench);
  EXPECT_EQ(c.result.reason, "no GPU");
  rtd::measure_compiled(report, c, rtd::compiled_candidate{0, std::nullopt, "error: x"}, callers.front(), bench);
  EXPECT_EQ(c.result.status, candidate_status::compile_failed);
  EXPECT_EQ(c.result.reason, "error: x");
}

// Issue 11: a measurement taken by a worker pool names the GPU of the worker that took it (its
// visibility value and model), whatever became of the job.
TEST(AutotuneSteps, APoolMeasurementNamesTheWorkersGpu) {
  pool_job_result r;
  r.device = "GPU-5e1c";
  r.device_name = "NVIDIA H100 80GB HBM3";
  auto timed = row("a", 0.5).result;
  timed.device = "ignored: the worker sees its GPU as device 0";
  r.reply = nlohmann::json{{"ok", true}, {"measurement", timed}};
  auto m = rtd::pool_measurement(r);
  EXPECT_EQ(m.status, candidate_status::ok);
  EXPECT_EQ(m.min_ms, 0.5);
  EXPECT_EQ(m.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m.device_id, "GPU-5e1c");
  r.reply = nlohmann::json{{"ok", false}, {"error", "illegal address"}};
  m = rtd::pool_measurement(r);
  EXPECT_EQ(m.status, candidate_status::launch_failed);
  EXPECT_EQ(m.reason, "illegal address");
  EXPECT_EQ(m.device_id, "GPU-5e1c");
  r.reply.reset();
  r.failure = worker_process::failure::timed_out;
  r.detail = "no reply within 10 ms";
  m = rtd::pool_measurement(r);
  EXPECT_EQ(m.status, candidate_status::timed_out);
  EXPECT_EQ(m.device, "NVIDIA H100 80GB HBM3");
  // In the report's JSON, each candidate's measurement says where it was timed.
  autotune_report report;
  report.candidates.push_back(row("a", 0.5));
  report.candidates[0].result.device = r.device_name;
  report.candidates[0].result.device_id = r.device;
  const auto j = report.to_json().at("candidates")[0].at("measurement");
  EXPECT_EQ(j.at("device"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(j.at("device_id"), "GPU-5e1c");
  // The table says it too, each GPU once.
  report.candidates.push_back(report.candidates[0]);
  report.candidates.push_back(row("b", 0.7));
  report.candidates.back().result.device = r.device_name;
  report.candidates.back().result.device_id = "3";
  report.candidates.push_back(row("c", 0, candidate_status::compile_failed));
  EXPECT_EQ(report.timed_on(), "NVIDIA H100 80GB HBM3 (GPU GPU-5e1c, 3)");
  std::ostringstream table;
  report.print_table(table);
  EXPECT_NE(table.str().find("\ntimed on NVIDIA H100 80GB HBM3 (GPU GPU-5e1c, 3)\n"), std::string::npos) << table.str();
  EXPECT_EQ(autotune_report{}.timed_on(), "");
}

// The report names, per candidate, the configuration's values and what it was compiled with (the
// options, as a code object when device-only, and the exact command); the table says the target.
TEST(AutotuneSteps, ReportCarriesConfigValuesAndCompileOptions) {
  autotune_report report;
  report.compile = amd_compile_options({"gfx90a", "gfx940"});
  report.compile.defines = {"ROCMTPL_X=1"};
  auto c = row("a", 0.5);
  c.config = "block_m=64 split_k=1";
  c.config_values = {{"block_m", "64"}, {"split_k", "1"}};
  c.code_object = true;
  c.compile_command = {"hipcc", "--genco", "-O3"};
  report.candidates.push_back(c);
  report.candidates.push_back(row("b", 0));
  const auto j = report.to_json().at("candidates");
  EXPECT_EQ(j[0].at("config_values"), (nlohmann::json{{"block_m", "64"}, {"split_k", "1"}}));
  const auto& o = j[0].at("compile_options");
  EXPECT_EQ(o.at("platform"), "amd");
  EXPECT_EQ(o.at("archs"), (nlohmann::json{"gfx90a", "gfx940"}));
  EXPECT_EQ(o.at("opt_level"), report.compile.opt_level);
  EXPECT_EQ(o.at("defines"), (nlohmann::json{"ROCMTPL_X=1"}));
  EXPECT_EQ(o.at("output"), "code_object");
  EXPECT_EQ(j[0].at("compile_command"), (nlohmann::json{"hipcc", "--genco", "-O3"}));
  EXPECT_EQ(j[1].at("compile_options").at("output"), "shared_library");
  EXPECT_TRUE(j[1].at("compile_command").empty());  // not compiled in this run
  EXPECT_TRUE(j[1].at("config_values").empty());
  std::ostringstream table;
  report.print_table(table);
  EXPECT_NE(table.str().find("compiled for amd gfx90a,gfx940 -O3\n"), std::string::npos) << table.str();
}

// Regression (issue 8): with an invalid ROCMTPL_PLATFORM a tune used to compile for AMD as if no
// GPU were there. Now it stops before compiling anything, naming the variable and its value. Run
// in a fresh process: the GPU runtime is process-wide.
TEST(AutotuneDeathTest, InvalidPlatformStopsTheTuneBeforeAnyCompile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  temp_dir dir;
  EXPECT_EXIT(
      {
        ::setenv("ROCMTPL_PLATFORM", "cdua", 1);
        ::setenv("ROCMTPL_CACHE_DIR", dir.path().c_str(), 1);
        autotune_options o;
        o.cache_dir = dir.path() / "kernels";
        o.database = dir.path() / "tuning.sqlite3";
        o.progress = false;
        try {
          (void)autotune(symbolic_gemm(), {{"M", 256}}, o);
        } catch (const invalid_argument_error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::_Exit(fs::exists(o.cache_dir) ? 2 : 7);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "wrong error: %s\n", e.what());
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(7), "rocmtpl: ROCMTPL_PLATFORM='cdua' is not a platform; use amd, nvidia or auto");
}
}  // namespace

// SPDX-License-Identifier: MIT
// CPU tests of the runtime's benchmark and autotune layers: a tune without a GPU compiles for AMD
// and reports resource usage. The named steps of autotune()
// (include/rocmtpl/runtime/autotuner.hpp) are tested one by one.
#include <rocmtpl/runtime.hpp>

#include "runtime/runtime_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
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

TEST(Benchmark, SummaryStatistics) {
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
  EXPECT_EQ(options_from_json(options_to_json(o)).seed, 99U);
  EXPECT_EQ(options_from_json(options_to_json(o)).budget_ms, 7.0);
}

TEST(WorkerProtocol, WorkerAnswersBadCommandsWithErrors) {
  std::string input = "{\"op\":\"measure\"}\n{\"op\":\"bogus\"}\nnot json\n";
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
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
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

TEST(AutotuneSteps, CompilePlanPutsHelperKernelsFirstOnlyWhenBenchmarking) {
  const auto t = symbolic_gemm();
  autotune_options o;
  o.max_candidates = 3;
  const size_hints hints{{"M", 256}};
  const auto callers = rtd::collect_candidates(t, hints, o);
  const std::vector<std::size_t> todo{0, 2};
  const auto compile_only = rtd::plan_compiles(t, hints, callers, todo, false, false, true);
  EXPECT_EQ(compile_only.first_candidate, 0U);
  ASSERT_EQ(compile_only.sources.size(), 2U);
  EXPECT_EQ(compile_only.sources[1], callers[2].source());
  // The GEMM describes its launch: candidates compile device-only unless that is turned off.
  EXPECT_EQ(compile_only.code_object, (std::vector<bool>{true, true}));
  EXPECT_EQ(rtd::plan_compiles(t, hints, callers, todo, false, false, false).code_object,
            (std::vector<bool>{false, false}));

  const auto bench = rtd::plan_compiles(t, hints, callers, todo, true, true, true);
  const std::size_t helpers = rocm_template<gemm_policy>::has_reference() ? 2 : 1;
  EXPECT_EQ(bench.first_candidate, helpers);
  ASSERT_EQ(bench.sources.size(), helpers + 2);
  EXPECT_EQ(bench.sources[0], rtd::utility_source);
  EXPECT_EQ(bench.sources[helpers], callers[0].source());
  EXPECT_FALSE(bench.code_object[0]) << "the helper kernels and the reference stay shared libraries";
  EXPECT_TRUE(bench.code_object[helpers]);
  EXPECT_EQ(rtd::plan_compiles(t, hints, callers, todo, true, false, true).first_candidate, 1U) << "no reference";
  EXPECT_TRUE(rtd::plan_compiles(t, hints, callers, {}, true, true, true).sources.empty()) << "nothing to measure";
}

TEST(AutotuneSteps, CompiledCandidatesAreSkippedWithTheReasonWhenTheyCannotBeMeasured) {
  autotune_options o;
  const auto t = symbolic_gemm();
  const auto callers = rtd::collect_candidates(t, {{"M", 256}}, o);
  rtd::candidate_bench bench(o, callers.front().bmreq());
  bench.setup(rtd::bench_libraries{{}, {}, "helper kernels failed to compile: boom"});
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

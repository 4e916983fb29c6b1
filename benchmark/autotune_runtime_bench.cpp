// SPDX-License-Identifier: MIT
// Runtime figures on a GPU machine (issue: runtime):
//  - BM_ColdTune: tune 32 GEMM candidates with an empty code cache and database (compile included);
//  - BM_WarmTuneFreshProcess: the same tune answered from the database, timed inside a new process;
//  - BM_DirectQuery / BM_PackedQuery / BM_AbiQuery: the generic C-ABI call's own cost (typed call vs
//    the packed twin vs kernel_entry, which checks counts and packs the values per call);
//  - BM_DirectLaunch / BM_AbiLaunch: one launch each way (host time per launch, queue kept busy).
//  - BM_TypedQuery: the workspace query through the typed wrapper (issue 9: <= 10 ns over BM_DirectQuery).
// Run: build/release/benchmark/autotune_runtime_bench
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/runtime.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <type_traits>

namespace {
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;

fs::path scratch() {
  static const fs::path p = fs::temp_directory_path() / ("rocmtpl-bench-" + std::to_string(::getpid()));
  return p;
}

rocm_template<templates::gemm_policy> problem() {
  const auto m = sym_expr::symbol("M");
  return {
      templates::gemm_policy(),
      {buffer("x", layout::row_major(dtype::f32, {m, 2048})), buffer("w", layout::row_major(dtype::f32, {2048, 2048}))},
      layout::row_major(dtype::f32, {m, 2048})};
}

autotune_options tune_options(const fs::path& dir) {
  autotune_options o;
  o.max_candidates = 32;
  o.cache_dir = dir / "kernels";
  o.database = dir / "tuning.sqlite3";
  o.progress = false;
  return o;
}

bool need_gpu(benchmark::State& state) {
  if (gpu_runtime::instance().available()) return true;
  state.SkipWithError(("no GPU: " + gpu_runtime::instance().status()).c_str());
  return false;
}

// state.range(0) == 1: the library's helper kernels (fill/compare, built once per machine and
// arch, device-only as the tuner builds them) are already in the cache; 0: everything cold.
void BM_ColdTune(benchmark::State& state) {
  if (!need_gpu(state)) return;
  int round = 0;
  for (auto _ : state) {
    const auto dir = scratch() / ("cold" + std::to_string(state.range(0)) + "_" + std::to_string(round++));
    if (state.range(0) == 1) {
      state.PauseTiming();
      code_cache cache(dir / "kernels");
      const auto& rt = gpu_runtime::instance();
      auto opts = compile_options_for(rt.properties(rt.current_device()));
      opts.output = compile_output::code_object;  // as the tuner builds them (device_only)
      (void)utility_kernels::build(cache, compiler::find(opts.platform), opts);
      state.ResumeTiming();
    }
    const auto report = autotune(problem(), {{"M", 2048}}, tune_options(dir));
    state.counters["compiled"] = static_cast<double>(report.compiled);
    state.counters["benchmarked"] = static_cast<double>(report.benchmarked);
    state.counters["best_ms"] = report.best() ? report.best()->result.min_ms : 0;
    double compile_cpu = 0;
    double bench_ms = 0;
    for (const auto& c : report.candidates) {
      compile_cpu += c.compile_seconds;
      bench_ms += c.result.median_ms * c.result.repetitions;
    }
    state.counters["compile_s_sum"] = compile_cpu;
    state.counters["timed_gpu_ms_sum"] = bench_ms;
    // The critical path (report.timeline, seconds since the tune started).
    state.counters["t_helpers"] = report.timeline.helpers_ready;
    state.counters["t_first_measured"] = report.timeline.first_measured;
    state.counters["t_last_compile"] = report.timeline.compiles_done;
    state.counters["t_last_measured"] = report.timeline.measured_done;
    state.SetIterationTime(report.wall_seconds);
  }
}

// The warm tune runs in a child process (this program with ROCMTPL_BENCH_WARM_CHILD set), which
// prints the autotune() wall time (everything the call does, GPU runtime start included if any).
void BM_WarmTuneFreshProcess(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const auto dir = scratch() / "warm";
  (void)autotune(problem(), {{"M", 2048}}, tune_options(dir));  // populate the database
  const auto self = fs::read_symlink("/proc/self/exe");
  for (auto _ : state) {
    const std::string cmd = "ROCMTPL_BENCH_WARM_CHILD='" + dir.string() + "' '" + self.string() + "'";
    std::FILE* p = ::popen(cmd.c_str(), "r");
    double tune_s = -1;
    int no_runtime = 0;
    double process_s = -1;
    int from_db = 0;
    if (p && std::fscanf(p, "%lf %d %d %lf", &tune_s, &from_db, &no_runtime, &process_s) != 4) tune_s = -1;
    if (p) ::pclose(p);
    if (tune_s < 0 || from_db != 1) {
      state.SkipWithError("warm child failed or was not answered from the database");
      return;
    }
    state.SetIterationTime(tune_s);
    state.counters["runtime_started"] = no_runtime ? 0 : 1;
    state.counters["tune_ms"] = tune_s * 1e3;
    state.counters["main_to_end_ms"] = process_s * 1e3;
  }
}

// A kernel and two ways to launch it: a typed exported function, and an entry point following the
// generated C ABI (workspace query, null checks, launch, error check), rendered as generated kernels
// are (with its packed twin and signature), called typed or through kernel_entry.
entry_signature abi_signature() {
  return {{{"x", param_kind::tensor_in, "const float*"},
           {"y", param_kind::tensor_out, "float*"},
           {"n", param_kind::size, "int64_t"}}};
}

std::string launch_source() {
  rendered_source s;
  s.includes = {"#include \"rocmtpl_hip_portable.h\"\n#include <cstdint>\n#include <cstddef>\n"};
  s.globals = std::string(pt_export_block);
  s.device_code = R"(__global__ void touch(float* y, int64_t n) { if (threadIdx.x < n) y[threadIdx.x] += 1.0f; }
extern "C" PT_EXPORT int direct(float* y, int64_t n, hipStream_t s) { touch<<<1, 32, 0, s>>>(y, n); return 0; }
)";
  s.entry_name = "abi_entry";
  s.signature = abi_signature();
  s.entry_body = R"(  if (workspace_size) { *workspace_size = 0; return 0; }
  (void)workspace; (void)x;
  if (!y && n > 0) return 2;
  touch<<<1, 32, 0, stream>>>(y, n);
  return hipGetLastError() == hipSuccess ? 0 : 1;
)";
  return s.str();
}

struct launch_fixture {
  std::shared_ptr<shared_library> lib;
  device_buffer y{4096};
  runtime::stream s;
  launch_fixture() {
    code_cache cache(scratch() / "launch");
    const auto& rt = gpu_runtime::instance();
    const auto opts = compile_options_for(rt.properties(rt.current_device()));
    lib = std::make_shared<shared_library>(
        cache.get_or_compile(compiler::find(opts.platform), launch_source(), opts).library);
  }
};

// The generic call's own cost: the same entry point, called for a workspace query (no launch),
// through a typed function pointer (BM_DirectQuery), through its packed twin with the argument
// array built once (BM_PackedQuery), and through kernel_entry, which checks the counts and packs
// the values on every call (BM_AbiQuery).
void BM_DirectQuery(benchmark::State& state) {
  if (!need_gpu(state)) return;
  launch_fixture f;
  auto* fn = f.lib->symbol<int(const float*, float*, std::int64_t, std::size_t*, std::uint8_t*, void*)>("abi_entry");
  std::size_t bytes = 0;
  for (auto _ : state) benchmark::DoNotOptimize(fn(nullptr, f.y.as<float>(), 32, &bytes, nullptr, f.s.get()));
}

void BM_PackedQuery(benchmark::State& state) {
  if (!need_gpu(state)) return;
  launch_fixture f;
  auto* fn = f.lib->symbol<runtime::detail::packed_entry_fn>("abi_entry_packed");
  const void* x = nullptr;
  void* y = f.y.get();
  std::int64_t n = 32;
  void* args[] = {&x, &y, &n};
  std::size_t bytes = 0;
  for (auto _ : state) benchmark::DoNotOptimize(fn(args, &bytes, nullptr, f.s.get()));
}

// The same query through the typed wrapper over the exact function type (a kernel_signature whose
// function type is abi_entry's): /0 typed_kernel::workspace_size() (throws on a status), /1
// typed_entry::query_workspace() (returns it). Figure: at most 10 ns over BM_DirectQuery.
using query_x = static_buffer<"x", row_major_layout<f32_t, dims<sym<"n">>>>;
using query_y = static_buffer<"y", row_major_layout<f32_t, dims<sym<"n">>>>;
using query_signature = kernel_signature<inputs<query_x>, outputs<query_y>>;
static_assert(std::is_same_v<query_signature::function_type,
                             int(const float*, float*, std::int64_t, std::size_t*, std::uint8_t*, void*)>);

void BM_TypedQuery(benchmark::State& state) {
  if (!need_gpu(state)) return;
  launch_fixture f;
  const typed_kernel<query_signature> k(f.lib, "abi_entry");
  std::size_t bytes = 0;
  if (state.range(0) == 0) {
    for (auto _ : state) benchmark::DoNotOptimize(k.workspace_size(std::int64_t{32}));
  } else {
    for (auto _ : state) benchmark::DoNotOptimize(k.entry().query_workspace(bytes, std::int64_t{32}));
  }
}
BENCHMARK(BM_TypedQuery)->Arg(0)->Arg(1);

void BM_AbiQuery(benchmark::State& state) {
  if (!need_gpu(state)) return;
  launch_fixture f;
  kernel_entry k(f.lib, "abi_entry", abi_signature());
  const std::vector<const void*> tensors{nullptr, f.y.get()};
  const std::vector<std::int64_t> extra{32};
  std::size_t bytes = 0;
  for (auto _ : state) benchmark::DoNotOptimize(k.call(tensors, extra, &bytes, nullptr, f.s.get()));
}

void BM_DirectLaunch(benchmark::State& state) {
  if (!need_gpu(state)) return;
  launch_fixture f;
  auto* fn = f.lib->symbol<int(float*, std::int64_t, void*)>("direct");
  for (auto _ : state) {
    benchmark::DoNotOptimize(fn(f.y.as<float>(), 32, f.s.get()));
    if ((state.iterations() & 1023) == 0) f.s.synchronize();
  }
  f.s.synchronize();
}

void BM_AbiLaunch(benchmark::State& state) {
  if (!need_gpu(state)) return;
  launch_fixture f;
  kernel_entry k(f.lib, "abi_entry", abi_signature());
  const std::vector<const void*> tensors{nullptr, f.y.get()};
  const std::vector<std::int64_t> extra{32};
  for (auto _ : state) {
    k.launch(tensors, extra, nullptr, f.s.get());
    if ((state.iterations() & 1023) == 0) f.s.synchronize();
  }
  f.s.synchronize();
}
}  // namespace

BENCHMARK(BM_ColdTune)->Arg(0)->Arg(1)->UseManualTime()->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WarmTuneFreshProcess)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DirectQuery);
BENCHMARK(BM_PackedQuery);
BENCHMARK(BM_AbiQuery);
BENCHMARK(BM_DirectLaunch);
BENCHMARK(BM_AbiLaunch);

int main(int argc, char** argv) {
  if (const char* dir = std::getenv("ROCMTPL_BENCH_WARM_CHILD")) {
    // autotune() includes the GPU runtime's start when it is the first call; report that part too.
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = autotune(problem(), {{"M", 2048}}, tune_options(dir));
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // 1 when the device came from the identity cache, i.e. no GPU runtime was started.
    const bool no_runtime = report.gpu_status.find("identity cached") != std::string::npos;
    std::printf("%.6f %d %d %.6f\n", report.wall_seconds, report.from_database ? 1 : 0, no_runtime ? 1 : 0, total);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  fs::remove_all(scratch(), ec);
  return 0;
}

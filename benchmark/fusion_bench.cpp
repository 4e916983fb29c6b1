// SPDX-License-Identifier: MIT
// Epilogue fusion speed on the GPU (issues 12 and 25), in one program.
// Per chain and shape (fp16, M = N = 4096) it times these modules on the same inputs:
//   fused     y = chain(x @ w) in one kernel (the GEMM applies the chain per output element),
//   fused_pp  the same in the fastest ping-pong Hopper configuration (the chain runs under the
//             other consumer warpgroup's main loop),
//   unfused   the GEMM, then the chain's pointwise kernel over h = x @ w,
//   plain     h = x @ w alone in the tuned configuration (the fused kernels' cost floor), and
//             plain_gemm_pp in the ping-pong one,
// and per shape cuBLAS's h = x @ w (cublasGemmEx, dlopen'ed, fp32 accumulation).
// Chains (the list printed at start, with indices): every chain of test::fusion::every_op_chains()
// (together every epilogue op and broadcast) at K = 1024, and issue 25's two headline chains,
//   bias_gelu_mul        gelu(x @ w + bias[N]) * d[M, N]
//   scale_silu_mul_full  silu(0.5 * (x @ w)) * d[M, N]
// at K = 1024, 2048 and 4096. A shape's GEMM configuration is the autotuned winner of its plain GEMM
// (the first ROCMTPL_FUSION_CANDIDATES ranked configurations, default 8), shared by its modules but
// the _pp ones, which take the fastest ping-pong candidate of the same tuning run; the summary
// picks the faster fused module of the two (as a tuner timing the fused kernels would) and
// compares it with the tuned plain GEMM. A shape is tuned and its modules compiled (in parallel)
// when its first benchmark runs.
// Times: GPU events around batches of back-to-back module runs; Time is per run (manual time);
// counters ms and TFLOP/s of the GEMM part. The summary table gives per chain and shape the fused
// speed-up over unfused and the fused overhead over the plain GEMM, with a verdict against issue
// 25's goals (applied to every chain): speed-up >= 1.5x; overhead <= +15% at K < 2048, <= +10% at
// K >= 2048; then the configuration and cuBLAS's time per shape.
// Filters: ROCMTPL_FUSION_CHAINS=name-or-index,... (default all), ROCMTPL_FUSION_KS=k,... (the
// headline chains' K, default 1024,2048,4096; the other chains run at K = 1024 only), and
// --benchmark_filter. A bad filter exits 2; without a GPU the program says so and exits 0.
// Run: build/gpu/benchmark/fusion_bench
#include <rocmtpl/runtime.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/cublas.hpp"
#include "support/fusion.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
namespace fu = rocmtpl::test::fusion;

constexpr std::int64_t m_size = 4096, n_size = 4096, list_k = 1024;

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct chain_case {
  std::string name;
  epilogue_chain chain;
  bool headline = false;  // runs at every K of ROCMTPL_FUSION_KS; the others at list_k only
};

struct run_case {
  chain_case chain;
  std::int64_t k = list_k;
};

// every_op_chains(), then the scaled silu headline chain (none of the list multiplies a silu by d).
std::vector<chain_case> chain_list() {
  std::vector<chain_case> out;
  for (const auto& [name, c] : fu::every_op_chains()) out.push_back({name, c, name == "bias_gelu_mul"});
  const epilogue_chain silu{{epilogue_op::scale(0.5F), epilogue_op::activation(activation::silu),
                             epilogue_op::mul(0, epilogue_broadcast::full)}};
  out.push_back({"scale_silu_mul_full", silu, true});
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto end = std::min(s.find(',', start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool is_number(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string list_text(const std::vector<chain_case>& all) {
  std::string out;
  for (std::size_t i = 0; i < all.size(); ++i) out += (i ? ", " : "") + std::to_string(i) + " " + all[i].name;
  return out;
}

// ROCMTPL_FUSION_CHAINS: names or indices into chain_list(), in the order given (default all).
std::vector<chain_case> selected_chains() {
  const auto all = chain_list();
  const char* env = std::getenv("ROCMTPL_FUSION_CHAINS");
  if (env == nullptr || *env == '\0') return all;
  std::vector<chain_case> out;
  for (const auto& t : split(env)) {
    auto it = std::find_if(all.begin(), all.end(), [&](const chain_case& c) { return c.name == t; });
    if (it == all.end() && is_number(t) && std::stoul(t) < all.size()) it = all.begin() + std::stol(t);
    if (it == all.end()) throw usage_error("ROCMTPL_FUSION_CHAINS: no chain '" + t + "' (" + list_text(all) + ")");
    const bool seen = std::any_of(out.begin(), out.end(), [&](const chain_case& c) { return c.name == it->name; });
    if (!seen) out.push_back(*it);
  }
  return out;
}

// ROCMTPL_FUSION_KS: the headline chains' K (default 1024, 2048, 4096).
std::vector<std::int64_t> headline_ks() {
  const char* env = std::getenv("ROCMTPL_FUSION_KS");
  if (env == nullptr || *env == '\0') return {1024, 2048, 4096};
  std::set<std::int64_t> out;
  for (const auto& t : split(env)) {
    if (!is_number(t) || std::stol(t) == 0) throw usage_error("ROCMTPL_FUSION_KS: '" + t + "' is not a positive K");
    out.insert(std::stol(t));
  }
  if (out.empty()) throw usage_error("ROCMTPL_FUSION_KS: no K given");
  return {out.begin(), out.end()};
}

// The (chain, K) pairs to run, computed once from the environment.
const std::vector<run_case>& plan() {
  static const std::vector<run_case> cases = [] {
    const auto ks = headline_ks();
    std::vector<run_case> out;
    for (const auto& c : selected_chains()) {
      if (!c.headline) {
        out.push_back({c, list_k});
        continue;
      }
      for (const auto k : ks) out.push_back({c, k});
    }
    return out;
  }();
  return cases;
}

std::vector<std::int64_t> plan_ks() {
  std::set<std::int64_t> ks;
  for (const auto& r : plan()) ks.insert(r.k);
  return {ks.begin(), ks.end()};
}

fu::gemm_problem problem(std::int64_t k) {
  fu::gemm_problem p;
  p.type = dtype::f16;
  p.m = sym_expr(m_size);
  p.n = sym_expr(n_size);
  p.k = sym_expr(k);
  p.hints = {};
  return p;
}

struct tuned {
  templates::gemm_config best;      // the plain GEMM's winner
  templates::gemm_config pingpong;  // the fastest ping-pong candidate (else the first ranked one)
};

// The plain GEMM's autotuned configuration and its fastest ping-pong one.
tuned tune(const fu::gemm_problem& p) {
  rocm_template<templates::gemm_policy> t(
      templates::gemm_policy(),
      {buffer("x", layout::row_major(p.type, {p.m, p.k})), buffer("w", layout::row_major(p.type, {p.k, p.n}))},
      layout::row_major(p.type, {p.m, p.n}));
  autotune_options o;
  const char* env = std::getenv("ROCMTPL_FUSION_CANDIDATES");
  o.max_candidates = env != nullptr ? std::stoul(env) : 8;
  o.progress = false;
  o.verify = false;  // test/gpu/fusion_gpu_test.cpp verifies the paths
  const auto report = autotune(t, {}, o);
  if (report.best() == nullptr) throw std::runtime_error("no GEMM candidate ran: " + report.summary());
  const auto ranked = t.policy().configs(t.context(), {});
  const auto is_pp = [](const templates::gemm_config& c) {
    const auto* w = c.get_if<templates::wgmma_config>();
    return w != nullptr && w->pingpong != 0;
  };
  std::optional<std::size_t> pp;
  for (std::size_t i = 0; i < report.candidates.size() && i < ranked.size(); ++i) {
    const auto& m = report.candidates[i].result;
    if (!is_pp(ranked[i]) || m.status != candidate_status::ok) continue;
    if (!pp || m.median_ms < report.candidates[*pp].result.median_ms) pp = i;
  }
  if (!pp) {
    const auto first = std::find_if(ranked.begin(), ranked.end(), is_pp);
    if (first == ranked.end()) throw std::runtime_error("no ping-pong configuration ranked");
    pp = static_cast<std::size_t>(first - ranked.begin());
  }
  return {ranked.at(*report.winner), ranked.at(*pp)};
}

module_source plain_module(const fu::gemm_problem& p) {
  const buffer x("x", layout::row_major(p.type, {p.m, p.k}));
  const buffer w("w", layout::row_major(p.type, {p.k, p.n}));
  rocm_template<templates::gemm_policy> t(templates::gemm_policy(p.options), {x, w},
                                          layout::row_major(p.type, {p.m, p.n}));
  module_graph g("plain_gemm");
  g.add_input(x).add_input(w);
  g.add_node("h", t.generate(p.config, p.hints).output_node());
  g.add_output("h");
  module_options o;
  o.standalone_runner = false;
  return emit_module(g, o);
}

// One compiled module and the graph buffers it reads and writes, or why it is missing.
struct module_run {
  std::string error;
  std::optional<loaded_module> mod;
  std::vector<buffer> inputs, outputs;
};

// A module's name in benchmark names, results and shape::modules: "plain_gemm", "plain_gemm_pp",
// "<chain>/fused", "<chain>/fused_pp", "<chain>/unfused".
std::string module_key(const std::string& chain, bool fused) { return chain + (fused ? "/fused" : "/unfused"); }
std::string pp_key(const std::string& chain) { return chain + "/fused_pp"; }

struct shape {
  std::string error;  // tuning or setup failed: every benchmark of the shape skips with it
  std::string config, pp_config;
  std::map<std::string, module_run> modules;     // by module_key()
  std::map<std::string, device_buffer> buffers;  // by graph name, shared by the shape's modules
  device_buffer workspace;                       // the largest any of them needs
};

// Compiles `sources` into the code cache in parallel, then loads them in order (cache hits). A
// source that fails leaves its error in its module_run.
std::vector<module_run> compile_all(const std::vector<module_source>& sources) {
  const auto& rt = gpu_runtime::instance();
  const auto opts = compile_options_for(rt.properties(rt.current_device()));
  const auto cc = compiler::find(opts.platform);
  code_cache cache;
  std::vector<std::future<void>> builds;
  for (const auto& src : sources) {
    builds.push_back(std::async(std::launch::async, [&cache, &cc, &opts, &src] {
      try {
        (void)cache.get_or_compile(cc, src.source, opts);
      } catch (const std::exception&) {  // the load below reports it
      }
    }));
  }
  for (auto& b : builds) b.wait();
  std::vector<module_run> out;
  for (const auto& src : sources) {
    module_run& r = out.emplace_back();
    r.inputs = src.inputs;
    r.outputs = src.outputs;
    try {
      r.mod.emplace(loaded_module::compile(src, cc, opts, cache));
    } catch (const std::exception& e) {
      r.error = e.what();
    }
  }
  return out;
}

// A device copy of `b`: small positive f16 values (any 2-byte type), 0.25 for f32.
device_buffer filled(const buffer& b, std::mt19937& rng) {
  const auto n = static_cast<std::size_t>(b.get_layout().numel().evaluate({}));
  if (b.type() == dtype::f32) {
    const std::vector<float> h(n, 0.25F);
    device_buffer out(n * 4);
    out.copy_from_host(h.data());
    return out;
  }
  std::uniform_int_distribution<int> d(-64, 64);
  std::vector<std::uint16_t> h(n);
  for (auto& v : h) v = static_cast<std::uint16_t>(d(rng) == 0 ? 0 : 0x2000 + (d(rng) & 0x3ff));
  device_buffer out(n * 2);
  out.copy_from_host(h.data());
  return out;
}

// The buffers every module of `s` names, and a workspace as large as the largest one needs.
void allocate(shape& s) {
  std::mt19937 rng(1);
  std::size_t ws = 1;
  for (const auto& [key, r] : s.modules) {
    for (const auto* list : {&r.inputs, &r.outputs}) {
      for (const auto& b : *list) {
        if (s.buffers.count(b.name()) == 0) s.buffers.emplace(b.name(), filled(b, rng));
      }
    }
    if (r.mod) ws = std::max(ws, r.mod->workspace_size({}));
  }
  s.workspace = device_buffer(ws);
}

// Tunes the shape's plain GEMM, then compiles it and every planned chain of the shape, fused and not.
void build(shape& s, std::int64_t k) {
  auto p = problem(k);
  std::fprintf(stderr, "fusion_bench: K = %lld: tuning the plain GEMM\n", static_cast<long long>(k));
  const auto configs = tune(p);
  p.config = configs.best;
  s.config = p.config.name();
  auto pp = p;
  pp.config = configs.pingpong;
  s.pp_config = pp.config.name();
  std::vector<module_source> sources{plain_module(p), plain_module(pp)};
  std::vector<std::string> keys{"plain_gemm", "plain_gemm_pp"};
  for (const auto& r : plan()) {
    if (r.k != k) continue;
    for (const bool fuse : {true, false}) {
      sources.push_back(fu::emit_chain_module("fusion_" + r.chain.name + (fuse ? "_fused" : "_unfused"), p,
                                              {r.chain.chain}, p.type, fuse));
      keys.push_back(module_key(r.chain.name, fuse));
    }
    sources.push_back(fu::emit_chain_module("fusion_" + r.chain.name + "_fused_pp", pp, {r.chain.chain}, p.type, true));
    keys.push_back(pp_key(r.chain.name));
  }
  std::fprintf(stderr, "fusion_bench: K = %lld: %s, ping-pong %s; compiling %zu modules\n", static_cast<long long>(k),
               s.config.c_str(), s.pp_config.c_str(), sources.size());
  auto runs = compile_all(sources);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if ((keys[i].ends_with("/fused") || keys[i].ends_with("/fused_pp")) && sources[i].calls.size() != 1 &&
        runs[i].error.empty()) {
      runs[i].error = "not fused: " + (sources[i].notes.empty() ? std::string("?") : sources[i].notes[0]);
    }
    s.modules[keys[i]] = std::move(runs[i]);
  }
  allocate(s);
}

// The shapes prepared so far, by K.
std::map<std::int64_t, shape>& shapes() {
  static std::map<std::int64_t, shape> s;
  return s;
}

shape& prepare(std::int64_t k) {
  auto [it, fresh] = shapes().try_emplace(k);
  if (fresh) {
    try {
      build(it->second, k);
    } catch (const std::exception& e) {
      it->second.error = e.what();
    }
  }
  return it->second;
}

std::string bench_name(const std::string& what, std::int64_t k) { return what + "/K=" + std::to_string(k); }

// Per-run times (ms) by benchmark name.
std::map<std::string, double>& results() {
  static std::map<std::string, double> r;
  return r;
}

// Times `launch` on `st`: GPU events around 20 back-to-back launches per iteration; returns the
// mean per launch (ms) and sets the ms and TFLOP/s (of `flops` per launch) counters.
template <typename F>
double time_launches(benchmark::State& state, const runtime::stream& st, double flops, F&& launch) {
  event start, stop;
  launch();
  st.synchronize();
  constexpr int reps = 20;
  double total = 0;
  std::int64_t runs = 0;
  for (auto _ : state) {
    start.record(st.get());
    for (int r = 0; r < reps; ++r) launch();
    stop.record(st.get());
    const double ms = static_cast<double>(stop.elapsed_ms_since(start)) / reps;
    state.SetIterationTime(ms * 1e-3);
    total += ms;
    ++runs;
  }
  const double ms = total / static_cast<double>(std::max<std::int64_t>(runs, 1));
  state.counters["ms"] = ms;
  state.counters["TFLOP/s"] = flops / (ms * 1e-3) / 1e12;
  return ms;
}

double gemm_flops(std::int64_t k) { return 2.0 * m_size * n_size * static_cast<double>(k); }

// Times the module `key` of shape K = `k` on the shape's buffers.
void run_module(benchmark::State& state, std::int64_t k, const std::string& key) {
  shape& s = prepare(k);
  const auto found = s.modules.find(key);
  const std::string error = !s.error.empty() ? s.error : (found == s.modules.end() ? "no module" : found->second.error);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  const module_run& r = found->second;
  std::vector<const void*> in;
  std::vector<void*> out;
  for (const auto& b : r.inputs) in.push_back(s.buffers.at(b.name()).get());
  for (const auto& b : r.outputs) out.push_back(s.buffers.at(b.name()).get());
  runtime::stream st;
  auto launch = [&] { r.mod->run(in, out, {}, s.workspace.get(), st.get()); };
  try {
    results()[bench_name(key, k)] = time_launches(state, st, gemm_flops(k), launch);
    state.SetLabel(key.ends_with("_pp") ? s.pp_config : s.config);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// cuBLAS's h = x @ w on the shape's inputs, timed the same way.
void run_cublas(benchmark::State& state, std::int64_t k) {
  shape& s = prepare(k);
  const auto& blas = test::cublas::instance();
  if (!s.error.empty() || !blas.available()) {
    state.SkipWithError(!s.error.empty() ? s.error.c_str() : blas.status().c_str());
    return;
  }
  runtime::stream st;
  blas.set_stream(st.get());
  int rc = 0;
  auto launch = [&] {
    rc |= blas.gemm_row_major(static_cast<int>(m_size), static_cast<int>(n_size), static_cast<int>(k),
                              s.buffers.at("x").get(), s.buffers.at("w").get(), s.buffers.at("h").get(),
                              test::cublas::cuda_r_16f);
  };
  const double ms = time_launches(state, st, gemm_flops(k), launch);
  if (rc != 0) {
    state.SkipWithError("cublasGemmEx failed");
    return;
  }
  results()[bench_name("cublas", k)] = ms;
}

void register_benchmarks() {
  auto add = [](benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond); };
  for (const auto k : plan_ks()) {
    add(benchmark::RegisterBenchmark(bench_name("cublas", k).c_str(), run_cublas, k));
    std::vector<std::string> keys{"plain_gemm", "plain_gemm_pp"};
    for (const auto& r : plan()) {
      if (r.k != k) continue;
      keys.push_back(module_key(r.chain.name, true));
      keys.push_back(pp_key(r.chain.name));
      keys.push_back(module_key(r.chain.name, false));
    }
    for (const auto& key : keys) add(benchmark::RegisterBenchmark(bench_name(key, k).c_str(), run_module, k, key));
  }
}

std::string shape_text(std::int64_t k) {
  return std::to_string(m_size) + "x" + std::to_string(n_size) + "x" + std::to_string(k);
}

std::string fixed(double v, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

const char* verdict(bool fast, bool cheap) {
  if (fast && cheap) return "met";
  if (fast) return "missed (overhead)";
  return cheap ? "missed (speed-up)" : "missed (both)";
}

// One row of the summary: the times (fused: the faster of the tuned and the ping-pong
// configuration, marked "pp" when ping-pong), the speed-up, the overhead over the tuned plain
// GEMM and the verdict against issue 25's goals.
void print_row(const run_case& c) {
  auto& r = results();
  const auto plain = bench_name("plain_gemm", c.k), coop = bench_name(module_key(c.chain.name, true), c.k),
             pp = bench_name(pp_key(c.chain.name), c.k), unfused = bench_name(module_key(c.chain.name, false), c.k);
  if (!r.count(plain) || (!r.count(coop) && !r.count(pp)) || !r.count(unfused)) {
    std::printf("%-26s %-15s %s\n", c.chain.name.c_str(), shape_text(c.k).c_str(), "skipped (see above)");
    return;
  }
  const bool use_pp = r.count(pp) && (!r.count(coop) || r[pp] < r[coop]);
  const double fused = use_pp ? r[pp] : r[coop];
  const double speed_up = r[unfused] / fused;
  const double overhead = (fused / r[plain] - 1.0) * 100.0;
  const double limit = c.k >= 2048 ? 10.0 : 15.0;
  const std::string tuned_fused = r.count(coop) ? fixed(r[coop], 4) : "-";
  std::printf("%-26s %-15s %9.4f %9s %9.4f%-3s %10.4f %8.2fx %+8.1f%%  %s\n", c.chain.name.c_str(),
              shape_text(c.k).c_str(), r[plain], tuned_fused.c_str(), fused, use_pp ? " pp" : "", r[unfused], speed_up,
              overhead, verdict(speed_up >= 1.5, overhead <= limit));
}

void print_summary() {
  std::printf(
      "\nfusion summary (fp16; goals: fused/unfused >= 1.5x; fused over plain <= +15%% at K < 2048, "
      "<= +10%% at K >= 2048)\n");
  std::printf("%-26s %-15s %9s %9s %12s %10s %9s %9s  %s\n", "chain", "M x N x K", "plain ms", "tuned ms", "fused ms",
              "unfused ms", "speed-up", "overhead", "verdict");
  for (const auto& c : plan()) print_row(c);
  std::printf("\n%-15s %10s %13s %13s  %s\n", "M x N x K", "cuBLAS ms", "plain/cuBLAS", "plain_pp ms",
              "configurations (tuned; ping-pong)");
  auto& r = results();
  for (const auto& [k, s] : shapes()) {
    const auto blas = bench_name("cublas", k), plain = bench_name("plain_gemm", k), pp = bench_name("plain_gemm_pp", k);
    const std::string b = r.count(blas) ? fixed(r[blas], 4) : "-";
    const std::string ratio = r.count(blas) && r.count(plain) ? fixed(r[plain] / r[blas], 3) + "x" : "-";
    const std::string pp_ms = r.count(pp) ? fixed(r[pp], 4) : "-";
    const std::string configs = s.error.empty() ? s.config + "; " + s.pp_config : "(setup failed)";
    std::printf("%-15s %10s %13s %13s  %s\n", shape_text(k).c_str(), b.c_str(), ratio.c_str(), pp_ms.c_str(),
                configs.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  try {
    (void)plan();
  } catch (const usage_error& e) {
    std::fprintf(stderr, "fusion_bench: %s\n", e.what());
    return 2;
  }
  std::printf("fusion_bench: chains %s\nfusion_bench: runs", list_text(chain_list()).c_str());
  for (const auto& r : plan()) std::printf(" %s@K=%lld", r.chain.name.c_str(), static_cast<long long>(r.k));
  std::printf("\n");
  const auto& rt = gpu_runtime::instance();
  if (!rt.available()) {
    std::printf("fusion_bench: skipped: %s\n", rt.status().c_str());
    return 0;
  }
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  shapes().clear();  // the modules and buffers go before the GPU runtime
  return 0;
}

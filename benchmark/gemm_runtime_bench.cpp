// SPDX-License-Identifier: MIT
// GEMM speed on the GPU, side by side with cuBLAS in the same process (issue 4).
//
// For each dtype (f32 without TF32 on either side, f16, bf16; fp32 accumulation) and each shape
// M x N x K (row-major X [M, K], W [K, N], Y [M, N]): cuBLAS (cublasGemmEx, dlopen'ed), then
// rocmtpl's autotuned GEMM, then rocmtpl with a fused bias + relu epilogue. rocmtpl's template has
// symbolic M, N, K, so one compiled library serves every shape; autotune() picks the configuration
// per shape among the policy's top-ranked candidates and remembers it in the tuning database
// (ROCMTPL_CACHE_DIR keeps it between runs). Times are GPU events around a batch of launches
// (Google Benchmark's Time column is per batch of `gemms_per_batch`; ms_per_gemm is one GEMM).
// Counters: TFLOP/s, ratio = cuBLAS time / rocmtpl time (1.0 = as fast), the bias+relu overhead
// over the plain GEMM, the winner's rank in the ranked list. A summary table ends the output.
// For f16 and bf16 the ranked list starts with the Hopper (wgmma) configurations wherever the
// shape allows them (N and K multiples of 8); on an sm_90 device they compile for sm_90a and take
// part, elsewhere they refuse at run time and the mma.sync ones win.
//
// Skinny shapes (indices 7-10) also report the achieved bandwidth (bytes of X, W and Y over the
// time, counter GB/s, for cuBLAS and rocmtpl) next to what a device-to-device copy of 1 GiB
// reaches in the same process (benchmark copy_d2d, cudaMemcpyAsync / hipMemcpyAsync through the
// dlopen'ed runtime; GB/s counts the bytes read and written); a second table ends the output.
//
// Environment:
//   ROCMTPL_BENCH_DTYPES=f32,f16,bf16
//   ROCMTPL_BENCH_SHAPES=0,1,...  (indices into the shape list)
//   ROCMTPL_BENCH_CANDIDATES=16  (0: every configuration; the summary's ranking table then gives,
//     per (shape, dtype), the best of the ranked top 16 against the best of all from that one tune,
//     and how many pairs are within 3%: issue 10 part 4)
//   ROCMTPL_BENCH_FUSED_CANDIDATES  (the same, for bias + relu; default: ROCMTPL_BENCH_CANDIDATES)
//   ROCMTPL_BENCH_SPLIT_K=1  (runtime split-K: the split variants of every tiled path, Hopper
//     included, join the ranked space; the winner runs with its workspace; the skinny paths split K
//     statically either way)
//   ROCMTPL_BENCH_FUSED=0  (leave the bias + relu benchmarks out)
//   ROCMTPL_BENCH_TUNE_FLUSH_L2=0  (tune with a warm L2, as the benchmarks time; default: flushed)
//   ROCMTPL_BENCH_FINALISTS=4  (how many of the fastest candidates are re-timed under sustained load
//     before the pick; 0: the lowest minimum time picks; default: autotune_options::finalists)
//   ROCMTPL_BENCH_CONFIG=<name>  (no tuning and no check: every problem runs the configuration of
//     that name, e.g. wgmma_bm128_bn192_bk64_wm64_wn192_g8_s5_v8_stk2, so that a profiler sees one
//     chosen kernel next to cuBLAS's; a problem whose configurations do not include it fails with
//     the list of those that it has)
// Run: build/gpu/benchmark/gemm_runtime_bench
#include <rocmtpl/runtime.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "support/cublas.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::activation;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;
using test::cublas;

struct shape {
  std::int64_t m, n, k;
};
// Indices 0-6: the seven square-ish shapes; 7-10: skinny (issue 10 part 2: M in {1, 8, 32, 64},
// N = K = 8192), selected with ROCMTPL_BENCH_SHAPES=7,8,9,10. Issue 25: 11-14 have fewer output
// tiles than SMs and a long K (with 0 and 1: ROCMTPL_BENCH_SHAPES=0,1,11,12,13,14); 15-20 are fp32's
// 65 to 255 rows (M = 96, 128, 160, 192, 255 at N = K = 8192, M = 200 at N = K = 4096); 21-26 the
// 16-bit 17 to 64 rows (M = 24, 48 at N = K = 8192 (with 9 and 10: 32, 64), M = 24, 32, 48, 64 at
// N = K = 4096).
const std::vector<shape> shapes{{1024, 1024, 1024}, {2048, 2048, 2048},  {4096, 4096, 4096}, {8192, 8192, 8192},
                                {1000, 3000, 700},  {4096, 11008, 4096}, {8192, 1024, 8192}, {1, 8192, 8192},
                                {8, 8192, 8192},    {32, 8192, 8192},    {64, 8192, 8192},   {2048, 1024, 8192},
                                {1024, 2048, 8192}, {3072, 768, 4096},   {1536, 1536, 6144}, {96, 8192, 8192},
                                {128, 8192, 8192},  {160, 8192, 8192},   {192, 8192, 8192},  {255, 8192, 8192},
                                {200, 4096, 4096},  {24, 8192, 8192},    {48, 8192, 8192},   {24, 4096, 4096},
                                {32, 4096, 4096},   {48, 4096, 4096},    {64, 4096, 4096}};
// The skinny table's shapes: M or N at most 64.
bool skinny_shape(std::size_t si) { return std::min(shapes.at(si).m, shapes.at(si).n) <= 64; }

int cuda_type(dtype t) {
  return t == dtype::f32 ? cublas::cuda_r_32f : (t == dtype::f16 ? cublas::cuda_r_16f : cublas::cuda_r_16bf);
}

std::vector<std::string> env_list(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  std::stringstream ss(v != nullptr && *v != '\0' ? v : fallback);
  std::vector<std::string> out;
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

// Device tensor with values in [-1, 1) (a fixed xorshift stream, converted to the dtype).
device_buffer random_tensor(dtype t, std::size_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> bytes(n * element_size(t));
  std::uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (std::size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    const float f = static_cast<float>(static_cast<double>(s >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    if (t == dtype::f32) {
      std::memcpy(bytes.data() + 4 * i, &f, 4);
    } else {
      std::uint32_t u = 0;
      std::memcpy(&u, &f, 4);
      std::uint16_t b = 0;
      if (t == dtype::bf16) {
        b = static_cast<std::uint16_t>((u + 0x7fffU + ((u >> 16) & 1U)) >> 16);
      } else {
        const _Float16 h = static_cast<_Float16>(f);
        std::memcpy(&b, &h, 2);
      }
      std::memcpy(bytes.data() + 2 * i, &b, 2);
    }
  }
  device_buffer d(bytes.size());
  d.copy_from_host(bytes.data());
  return d;
}

// How the ranking did for one tune (issue 10, part 4), from the autotune report's per-candidate
// times (report.candidates is in ranked order): the best time among the first `top` ranked
// candidates against the best of all tuned ones. Only candidates that could win count (ok, timed,
// and verified when the tune verifies).
struct ranking_check {
  static constexpr std::size_t top = 16;
  std::size_t tuned = 0;          // candidates in the tune
  std::size_t timed = 0;          // of them, eligible to win
  double best_all_ms = 0;         // best of all
  std::size_t best_all_rank = 0;  // its rank (0-based)
  double best_top_ms = 0;         // best among the first `top` ranks (0: none of them ran)
  std::size_t best_top_rank = 0;
  std::string best_all_config;  // what won overall (where the cost model should look when it missed)
  [[nodiscard]] bool full() const noexcept { return tuned > top; }
  // best_top / best_all: 1.0 when the top 16 hold the best of all.
  [[nodiscard]] double ratio() const noexcept {
    return best_all_ms > 0 && best_top_ms > 0 ? best_top_ms / best_all_ms : 0;
  }
  [[nodiscard]] bool within(double tolerance) const noexcept { return ratio() > 0 && ratio() <= 1.0 + tolerance; }
};

ranking_check check_ranking(const autotune_report& report, bool verified_only) {
  ranking_check r;
  r.tuned = report.candidates.size();
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    const auto& m = report.candidates[i].result;
    if (m.status != candidate_status::ok || !(m.min_ms > 0) || (verified_only && !m.verified)) continue;
    ++r.timed;
    if (r.best_all_ms == 0 || m.min_ms < r.best_all_ms) {
      r.best_all_ms = m.min_ms, r.best_all_rank = i;
      r.best_all_config = report.candidates[i].config;
    }
    if (i < ranking_check::top && (r.best_top_ms == 0 || m.min_ms < r.best_top_ms)) {
      r.best_top_ms = m.min_ms, r.best_top_rank = i;
    }
  }
  return r;
}

// One tuned rocmtpl kernel for one problem (plain or bias + relu).
struct tuned {
  std::shared_ptr<shared_library> lib;
  std::unique_ptr<kernel_entry> entry;
  std::vector<std::int64_t> extra;
  device_buffer workspace;  // split-K partials (ROCMTPL_BENCH_SPLIT_K=1, or a skinny winner's static K slices)
  std::string config;
  std::size_t rank = 0;        // the winner's index in the ranked list
  std::size_t candidates = 0;  // how many were tuned
  bool from_database = false;
  ranking_check ranking;
  std::string error;
};

rocm_template<gemm_policy> make_problem(dtype t, bool bias_relu) {
  const auto m = sym_expr::symbol("M");
  const auto n = sym_expr::symbol("N");
  const auto k = sym_expr::symbol("K");
  std::vector<buffer> in{buffer("x", layout::row_major(t, {m, k})), buffer("w", layout::row_major(t, {k, n}))};
  if (bias_relu) in.emplace_back("bias", layout::row_major(t, {n}));
  // ROCMTPL_BENCH_SPLIT_K=1: runtime split-K, so that the ranked space holds the split variants of
  // every path (the Hopper ones included, issue 10).
  const char* split = std::getenv("ROCMTPL_BENCH_SPLIT_K");
  return {gemm_policy({.act = bias_relu ? activation::relu : activation::none,
                       .runtime_split_k = split != nullptr && std::string(split) == "1"}),
          in, layout::row_major(t, {m, n})};
}

// Compiles configuration `ranked[i]` of `tpl` into `out` (its library, entry and workspace).
void load(tuned& out, const rocm_template<gemm_policy>& tpl, const std::vector<gemm_config>& ranked, std::size_t i,
          const size_hints& hints) {
  const auto caller = tpl.generate(ranked[i], hints);
  const auto& rt = gpu_runtime::instance();
  const auto opts = compile_options_for(rt.properties(rt.current_device()));
  code_cache cache;
  const auto lib = cache.get_or_compile(compiler::find(opts.platform), caller.source(), opts);
  out.lib = std::make_shared<shared_library>(lib.library);
  out.entry = std::make_unique<kernel_entry>(out.lib, caller.bmreq().kernel_name, caller.bmreq().signature);
  out.extra = caller.bmreq().extra_args;
  if (const auto bytes = out.entry->workspace_size(out.extra); bytes > 0) out.workspace = device_buffer(bytes);
  out.config = ranked[i].name();
  out.rank = i;
}

tuned tune(dtype t, const shape& s, bool bias_relu) {
  tuned out;
  try {
    const auto tpl = make_problem(t, bias_relu);
    const size_hints hints{{"M", s.m}, {"N", s.n}, {"K", s.k}};
    if (const char* only = std::getenv("ROCMTPL_BENCH_CONFIG"); only != nullptr && *only != '\0') {
      const auto ranked = tpl.policy().configs(tpl.context(), hints);
      const auto it = std::ranges::find(ranked, std::string_view(only), [](const gemm_config& c) { return c.name(); });
      if (it == ranked.end()) {
        out.error = std::string("ROCMTPL_BENCH_CONFIG: no configuration ") + only + " for this problem; it has:";
        for (const auto& c : ranked) out.error += " " + c.name();
        return out;
      }
      load(out, tpl, ranked, static_cast<std::size_t>(it - ranked.begin()), hints);
      out.candidates = 1;
      return out;
    }
    autotune_options o;
    const auto cand = env_list("ROCMTPL_BENCH_CANDIDATES", "16");
    const auto fused = env_list("ROCMTPL_BENCH_FUSED_CANDIDATES", cand.front());
    o.max_candidates = static_cast<std::size_t>(std::stoul(bias_relu ? fused.front() : cand.front()));
    o.progress = false;
    o.bench.budget_ms = 10;
    o.bench.max_repetitions = 20;
    // ROCMTPL_BENCH_FINALISTS=0: the lowest minimum time picks, without re-timing the fastest few
    // under sustained load (autotune_options::finalists).
    if (const char* f = std::getenv("ROCMTPL_BENCH_FINALISTS"); f != nullptr && *f != '\0') {
      o.finalists = static_cast<std::size_t>(std::stoul(f));
    }
    // The tuner flushes L2 before every run; the timings below are back to back (warm L2), as
    // cuBLAS's are. ROCMTPL_BENCH_TUNE_FLUSH_L2=0 tunes warm too, so that the winner is picked under
    // the conditions it is reported in (matters where X, W and Y fit the 50 MB L2: 1000x3000x700).
    const char* flush = std::getenv("ROCMTPL_BENCH_TUNE_FLUSH_L2");
    o.bench.flush_l2 = flush == nullptr || std::string(flush) != "0";
    // The naive double-precision reference is slow on big shapes; the GPU test verifies those paths.
    o.verify = static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <= 1.1e10;
    const auto report = autotune(tpl, hints, o);
    const auto* best = report.best();
    if (best == nullptr) {
      out.error = "no candidate verified";
      for (const auto& c : report.candidates) {
        if (!c.result.reason.empty()) {
          out.error += "; " + c.config + ": " + c.result.reason.substr(0, 300);
          break;
        }
      }
      return out;
    }
    out.candidates = report.candidates.size();
    out.from_database = report.from_database;
    out.ranking = check_ranking(report, o.verify);
    const auto ranked = tpl.policy().configs(tpl.context(), hints);
    for (std::size_t i = 0; i < report.candidates.size() && i < ranked.size(); ++i) {
      if (&report.candidates[i] == best) load(out, tpl, ranked, i, hints);
    }
    if (!out.entry) out.error = "winner not found in the ranked list";
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

struct result_row {
  double cublas_ms = 0, plain_ms = 0, fused_ms = 0;
  std::string config, fused_config;
  std::size_t rank = 0, candidates = 0;
  ranking_check ranking, fused_ranking;
};
std::map<std::pair<std::string, std::size_t>, result_row> results;

// Operands shared by the three benchmarks of one (dtype, shape).
struct operands {
  device_buffer x, w, bias, y;
};
std::map<std::pair<std::string, std::size_t>, std::shared_ptr<operands>> operand_cache;

std::shared_ptr<operands> operands_for(dtype t, std::size_t si) {
  auto key = std::make_pair(std::string(name(t)), si);
  if (auto it = operand_cache.find(key); it != operand_cache.end()) return it->second;
  operand_cache.clear();  // one shape's buffers at a time
  const auto& s = shapes[si];
  auto o = std::make_shared<operands>();
  o->x = random_tensor(t, static_cast<std::size_t>(s.m * s.k), 1);
  o->w = random_tensor(t, static_cast<std::size_t>(s.k * s.n), 2);
  o->bias = random_tensor(t, static_cast<std::size_t>(s.n), 3);
  o->y = device_buffer(static_cast<std::size_t>(s.m * s.n) * element_size(t));
  operand_cache[key] = o;
  return o;
}

// Times `launch` with events around a batch of back-to-back launches (about 1 ms of GPU time, so
// that event resolution and launch gaps stay small). Google Benchmark's time is per batch; the
// counters and the summary are per GEMM. Returns the mean milliseconds of one GEMM.
template <class F>
double time_iterations(benchmark::State& state, runtime::stream& st, F&& launch) {
  event start, stop;
  launch();
  st.synchronize();
  start.record(st.get());
  launch();
  stop.record(st.get());
  const double once = std::max(1e-3, static_cast<double>(stop.elapsed_ms_since(start)));
  const int reps = std::clamp(static_cast<int>(1.0 / once), 1, 100);
  double total = 0;
  std::int64_t runs = 0;
  for (auto _ : state) {
    start.record(st.get());
    for (int r = 0; r < reps; ++r) launch();
    stop.record(st.get());
    const double batch_ms = static_cast<double>(stop.elapsed_ms_since(start));
    state.SetIterationTime(batch_ms * 1e-3);
    total += batch_ms / reps;
    ++runs;
  }
  const double ms = runs > 0 ? total / static_cast<double>(runs) : 0;
  state.counters["gemms_per_batch"] = reps;
  state.counters["ms_per_gemm"] = ms;
  return ms;
}

void set_flops(benchmark::State& state, const shape& s, double ms) {
  const double flop = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  state.counters["TFLOP/s"] = ms > 0 ? flop / (ms * 1e-3) / 1e12 : 0;
}

// Bytes a GEMM must move at least: X, W and Y once each.
double gemm_bytes(const shape& s, dtype t) {
  const auto e = static_cast<double>(element_size(t));
  return e * static_cast<double>(s.m * s.k + s.k * s.n + s.m * s.n);
}

// The achieved bandwidth of the skinny shapes, in GB/s (counter and summary).
std::map<std::pair<std::string, std::size_t>, std::pair<double, double>> skinny_gbps;  // cuBLAS, rocmtpl
double copy_gbps = 0;

void set_bandwidth(benchmark::State& state, dtype t, std::size_t si, double ms, bool rocmtpl_side) {
  if (!skinny_shape(si) || ms <= 0) return;
  const double gbps = gemm_bytes(shapes[si], t) / (ms * 1e-3) / 1e9;
  state.counters["GB/s"] = gbps;
  auto& slot = skinny_gbps[{std::string(name(t)), si}];
  (rocmtpl_side ? slot.second : slot.first) = gbps;
}

bool need_gpu(benchmark::State& state);

// The memory-bound ceiling: a device-to-device copy of 1 GiB (read + write counted).
void bm_copy_d2d(benchmark::State& state) {
  if (!need_gpu(state)) return;
  constexpr std::size_t bytes = std::size_t{1} << 30;
  device_buffer src(bytes), dst(bytes);
  runtime::stream st;
  const auto& rt = gpu_runtime::instance();
  const double ms = time_iterations(state, st, [&] { rt.memcpy_device(dst.get(), src.get(), bytes, st.get()); });
  st.synchronize();
  copy_gbps = ms > 0 ? 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0;
  state.counters["GB/s"] = copy_gbps;
}

// The skinny shapes' table: times, ratio to cuBLAS, achieved bandwidth against the copy's.
void print_skinny_summary() {
  if (skinny_gbps.empty()) return;
  std::printf("\nskinny shapes: achieved bandwidth (X + W + Y bytes / time); device-to-device copy: %.0f GB/s\n",
              copy_gbps);
  std::printf("%-5s %-18s %10s %10s %8s %12s %12s %9s\n", "dtype", "M x N x K", "cuBLAS ms", "rocmtpl", "ratio",
              "cuBLAS GB/s", "rocmtpl GB/s", "of copy");
  for (const auto& [key, g] : skinny_gbps) {
    const auto& s = shapes[key.second];
    const auto it = results.find(key);
    const double cub = it != results.end() ? it->second.cublas_ms : 0;
    const double ours = it != results.end() ? it->second.plain_ms : 0;
    const std::string dims = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    std::printf("%-5s %-18s %10.4f %10.4f %8.3f %12.0f %12.0f %8.1f%%\n", key.first.c_str(), dims.c_str(), cub, ours,
                ours > 0 && cub > 0 ? cub / ours : 0.0, g.first, g.second,
                copy_gbps > 0 ? 100.0 * g.second / copy_gbps : 0.0);
  }
}

bool need_gpu(benchmark::State& state) {
  if (gpu_runtime::instance().available()) return true;
  state.SkipWithError(("no GPU: " + gpu_runtime::instance().status()).c_str());
  return false;
}

void bm_cublas(benchmark::State& state, dtype t, std::size_t si) {
  if (!need_gpu(state)) return;
  auto& blas = cublas::instance();
  if (!blas.available()) {
    state.SkipWithError(blas.status().c_str());
    return;
  }
  const auto& s = shapes[si];
  auto ops = operands_for(t, si);
  runtime::stream st;
  blas.set_stream(st.get());
  int rc = 0;
  const double ms = time_iterations(state, st, [&] {
    rc |= blas.gemm_row_major(static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k), ops->x.get(),
                              ops->w.get(), ops->y.get(), cuda_type(t));
  });
  st.synchronize();
  if (rc != 0) state.SkipWithError("cublasGemmEx failed");
  set_flops(state, s, ms);
  set_bandwidth(state, t, si, ms, false);
  results[{std::string(name(t)), si}].cublas_ms = ms;
}

void bm_rocmtpl(benchmark::State& state, dtype t, std::size_t si, bool bias_relu) {
  if (!need_gpu(state)) return;
  const auto& s = shapes[si];
  static std::map<std::tuple<std::string, std::size_t, bool>, std::shared_ptr<tuned>> tuned_cache;
  auto& slot = tuned_cache[{std::string(name(t)), si, bias_relu}];
  if (!slot) slot = std::make_shared<tuned>(tune(t, s, bias_relu));
  const auto& k = *slot;
  if (!k.entry) {
    state.SkipWithError(("tuning failed: " + k.error).c_str());
    return;
  }
  auto ops = operands_for(t, si);
  std::vector<const void*> tensors{ops->x.get(), ops->w.get()};
  if (bias_relu) tensors.push_back(ops->bias.get());
  tensors.push_back(ops->y.get());
  runtime::stream st;
  const double ms = time_iterations(state, st, [&] { k.entry->launch(tensors, k.extra, k.workspace.get(), st.get()); });
  st.synchronize();
  set_flops(state, s, ms);
  if (!bias_relu) set_bandwidth(state, t, si, ms, true);
  auto& row = results[{std::string(name(t)), si}];
  if (bias_relu) {
    row.fused_ms = ms;
    row.fused_config = k.config;
    row.fused_ranking = k.ranking;
    if (row.plain_ms > 0) state.counters["overhead_%"] = 100.0 * (ms / row.plain_ms - 1.0);
  } else {
    row.plain_ms = ms;
    row.config = k.config;
    row.rank = k.rank;
    row.candidates = k.candidates;
    row.ranking = k.ranking;
  }
  if (row.cublas_ms > 0) state.counters["vs_cublas"] = row.cublas_ms / ms;
  state.counters["winner_rank"] = static_cast<double>(k.rank);
  state.SetLabel(k.config + (k.from_database ? " (db)" : ""));
}

// One line of the ranking table; counts the pair when its tune covered more than the top 16.
void print_ranking_row(const std::string& dtype_name, const shape& s, const char* problem, const ranking_check& r,
                       std::size_t& full, std::size_t& within) {
  if (r.tuned == 0) return;
  const std::string dims = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  const bool ok = r.within(0.03);
  if (r.full()) {
    ++full;
    if (ok) ++within;
  }
  std::printf("%-5s %-18s %-9s %5zu %5zu %10.4f %5zu %10.4f %5zu %9.3f  %-13s %s\n", dtype_name.c_str(), dims.c_str(),
              problem, r.tuned, r.timed, r.best_all_ms, r.best_all_rank, r.best_top_ms, r.best_top_rank, r.ratio(),
              !r.full() ? "(top 16 only)" : (ok ? "within 3%" : "MISSED"), r.best_all_config.c_str());
}

// Issue 10 part 4: for every tuned (shape, dtype), the best of the ranked top 16 against the best
// of all candidates of the same tune (one tune per problem: ROCMTPL_BENCH_CANDIDATES=0 tunes them
// all), and how many pairs are within 3%.
void print_ranking_summary() {
  std::printf(
      "\nranking: best of the ranked top %zu against the best of all tuned candidates (min ms; rank 0 = first)\n",
      ranking_check::top);
  std::printf("%-5s %-18s %-9s %5s %5s %10s %5s %10s %5s %9s  %-13s %s\n", "dtype", "M x N x K", "problem", "tuned",
              "timed", "best all", "rank", "top-16", "rank", "top/all", "verdict", "best of all");
  std::size_t full = 0, within = 0, fused_full = 0, fused_within = 0;
  for (const auto& [key, r] : results) {
    print_ranking_row(key.first, shapes[key.second], "plain", r.ranking, full, within);
    print_ranking_row(key.first, shapes[key.second], "bias+relu", r.fused_ranking, fused_full, fused_within);
  }
  const auto share = [](std::size_t a, std::size_t b) { return b > 0 ? 100.0 * static_cast<double>(a) / b : 0.0; };
  if (full == 0) {
    std::printf("no full tune: set ROCMTPL_BENCH_CANDIDATES=0 to tune every configuration and check the ranking\n");
    return;
  }
  std::printf("top 16 within 3%% of the best of all: %zu of %zu (shape, dtype) pairs (%.1f%%; goal >= 90%%)\n", within,
              full, share(within, full));
  if (fused_full > 0) {
    std::printf("bias + relu: top 16 within 3%% of the best of all: %zu of %zu pairs (%.1f%%)\n", fused_within,
                fused_full, share(fused_within, fused_full));
  }
}

void print_summary() {
  std::printf("\n%-5s %-18s %10s %10s %8s %10s %9s %9s  %s\n", "dtype", "M x N x K", "cuBLAS ms", "rocmtpl", "ratio",
              "TFLOP/s", "bias+relu", "rank", "config");
  std::map<std::string, std::vector<double>> ratios;
  std::size_t in_top16 = 0, counted = 0;
  for (const auto& [key, r] : results) {
    const auto& s = shapes[key.second];
    const double flop = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
    const double ratio = r.plain_ms > 0 && r.cublas_ms > 0 ? r.cublas_ms / r.plain_ms : 0;
    if (ratio > 0) ratios[key.first].push_back(ratio);
    if (r.candidates > 0) {
      ++counted;
      if (r.rank < 16) ++in_top16;
    }
    const std::string dims = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    std::printf("%-5s %-18s %10.4f %10.4f %8.3f %10.1f %+8.1f%% %4zu/%-4zu  %s\n", key.first.c_str(), dims.c_str(),
                r.cublas_ms, r.plain_ms, ratio, r.plain_ms > 0 ? flop / (r.plain_ms * 1e-3) / 1e12 : 0.0,
                r.plain_ms > 0 && r.fused_ms > 0 ? 100.0 * (r.fused_ms / r.plain_ms - 1.0) : 0.0, r.rank, r.candidates,
                r.config.c_str());
  }
  for (auto& [d, v] : ratios) {
    std::sort(v.begin(), v.end());
    const double median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    std::printf("%s: median ratio to cuBLAS %.3f over %zu shapes\n", d.c_str(), median, v.size());
  }
  std::printf("winner within the top 16 of the ranking: %zu of %zu tuned problems\n", in_top16, counted);
  print_ranking_summary();
}

void register_all() {
  std::vector<dtype> dtypes;
  for (const auto& d : env_list("ROCMTPL_BENCH_DTYPES", "f32,f16,bf16")) dtypes.push_back(parse_dtype(d));
  std::vector<std::size_t> picks;
  for (const auto& i : env_list("ROCMTPL_BENCH_SHAPES", "0,1,2,3,4,5,6")) picks.push_back(std::stoul(i));
  const bool fused = env_list("ROCMTPL_BENCH_FUSED", "1").front() != "0";
  if (std::any_of(picks.begin(), picks.end(), skinny_shape)) {
    benchmark::RegisterBenchmark("copy_d2d/1GiB", bm_copy_d2d)->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  for (dtype t : dtypes) {
    for (std::size_t si : picks) {
      const auto& s = shapes.at(si);
      const std::string tag =
          std::string(name(t)) + "/" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
      benchmark::RegisterBenchmark(("cublas/" + tag).c_str(), bm_cublas, t, si)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("rocmtpl/" + tag).c_str(), bm_rocmtpl, t, si, false)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      if (fused) {
        benchmark::RegisterBenchmark(("rocmtpl_bias_relu/" + tag).c_str(), bm_rocmtpl, t, si, true)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  print_skinny_summary();
  return 0;
}

// SPDX-License-Identifier: MIT
#include "gemm_problem.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <rocmtpl/runtime/aot/export.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/db/descriptor_json.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/tune/autotuner.hpp>
#include <rocmtpl/runtime/tune/tune_batch.hpp>
#include <rocmtpl/templates/gemm.hpp>

namespace rocmtpl_tune {

using namespace rocmtpl;
using namespace rocmtpl::runtime;

struct gemm_problem::gemm_template {
  rocm_template<templates::gemm_policy> tpl;
  size_hints hints;
};

namespace {

bool is_symbolic(const gemm_problem_args& a, std::string_view name) {
  return std::find(a.symbolic.begin(), a.symbolic.end(), name) != a.symbolic.end();
}

// The GEMM template of the arguments (the descriptor's: the one export rebuilds), with the values
// of its symbolic sizes.
gemm_problem::gemm_template make_template(const gemm_problem_args& a, dtype type, templates::activation act) {
  const templates::gemm_problem p{.m = a.m,
                                  .n = a.n,
                                  .k = a.k,
                                  .batch = a.batch,
                                  .type = type,
                                  .layout = a.layout_name,
                                  .act = act,
                                  .alpha = a.alpha,
                                  .bias = a.bias,
                                  .symbolic = a.symbolic};
  return {templates::make_template(p), p.hints()};
}

// gemm batch=4 M=40 N=24 K=16 float16 rc, Y = relu(X @ W + bias) (symbolic M)
std::string describe(const gemm_problem_args& a, dtype type, const std::string& epilogue) {
  std::string symbols;
  for (const auto& s : a.symbolic) symbols += (symbols.empty() ? "" : ",") + s;
  const bool batched = a.batch > 1 || is_symbolic(a, "B");
  const std::string core =
      (a.alpha == 1.0F ? std::string() : fmt::format("{} * ", a.alpha)) + "X @ W" + (a.bias ? " + bias" : "");
  std::string description =
      fmt::format("gemm {}M={} N={} K={} {} {}, Y = {}", batched ? fmt::format("batch={} ", a.batch) : std::string(),
                  a.m, a.n, a.k, name(type), a.layout_name, epilogue == "none" ? core : epilogue + "(" + core + ")");
  if (!symbols.empty()) description += " (symbolic " + symbols + ")";
  return description;
}

// The configurations in the order the autotuner takes them: ranked for the problem where the policy
// can (configs(context, hints)), else its plain list.
template <class Policy>
auto ranked_configs(const rocm_template<Policy>& tpl, const size_hints& hints) {
  if constexpr (requires { tpl.policy().configs(tpl.context(), hints); }) {
    return tpl.policy().configs(tpl.context(), hints);
  } else {
    return tpl.policy().configs();
  }
}

}  // namespace

std::size_t count_compiled(const autotune_report& report) {
  std::size_t compiled_ok = 0;
  for (const auto& c : report.candidates) compiled_ok += c.result.status != candidate_status::compile_failed ? 1 : 0;
  return compiled_ok;
}

std::vector<std::string> activation_names() {
  std::vector<std::string> out;
  for (const auto a : templates::all_activations) out.emplace_back(templates::to_string(a));
  return out;
}

gemm_problem::gemm_problem(const gemm_problem_args& a) {
  const dtype type = parse_dtype(a.dtype_name);
  const auto act = templates::parse_activation(a.epilogue);
  template_ = std::make_unique<gemm_template>(make_template(a, type, act));
  const std::string epilogue(templates::to_string(act));
  description_ = describe(a, type, epilogue);
  summary_ = {{"template", "gemm"},
              {"m", a.m},
              {"n", a.n},
              {"k", a.k},
              {"batch", a.batch},
              {"dtype", std::string(name(type))},
              {"layout", a.layout_name},
              {"epilogue", epilogue},
              {"alpha", a.alpha},
              {"bias", a.bias},
              {"symbolic", a.symbolic}};
  flops_ = 2.0 * static_cast<double>(a.batch) * static_cast<double>(a.m) * static_cast<double>(a.n) *
           static_cast<double>(a.k);
}

gemm_problem::~gemm_problem() = default;

rendered_candidates gemm_problem::render_candidates(std::size_t top_k) const {
  rendered_candidates out;
  for (const auto& config : ranked_configs(template_->tpl, template_->hints)) {
    if (top_k != 0 && out.size() >= top_k) break;
    const auto caller = template_->tpl.generate(config, template_->hints);
    out.emplace(caller.hash_key(), rendered_candidate{config.name(), caller.source()});
  }
  return out;
}

autotune_report gemm_problem::tune(const autotune_options& o) const {
  return autotune(template_->tpl, template_->hints, o);
}

autotune_options tune_options(const tuning_settings& t, const std::string& db) {
  autotune_options o;
  o.jobs = t.jobs;
  o.bench.budget_ms = t.budget_ms;
  o.finalists = t.finalists;
  o.compile_timeout = std::chrono::seconds(t.compile_timeout_s);
  o.verify = !t.no_verify;
  o.isolate = !t.no_isolate;
  o.device_only = !t.shared_libraries;
  o.max_candidates = t.top_k;
  o.amd_archs = t.archs;
  if (!db.empty()) o.database = db;
  o.emulate_amd = t.emulate_amd;
  if (o.emulate_amd) return o;  // in this process, on the emulator (runtime/build/amd_emulator.hpp)
  const auto& gpu = gpu_runtime::instance();
  if (gpu.available() && o.isolate && !find_worker()) {
    std::cerr << "rocmtpl-tune: rocmtpl-bench-worker not found (next to this program, on PATH or in "
                 "ROCMTPL_BENCH_WORKER); benchmarking in this process\n";
    o.isolate = false;
  }
  return o;
}

void check_cache_folder() {
  const auto& gpu = gpu_runtime::instance();
  check_compiler_path(gpu.available() ? gpu.properties(gpu.current_device()).kind : platform::amd,
                      code_cache::default_root(), "cache folder");
}

batch_outcome batch_gemm_tuner::tune(const gemm_problem_args& a, const tuning_settings& t, const std::string& db) {
  const gemm_problem problem(a);
  auto o = tune_options(t, db);
  o.progress = false;
  if (o.isolate && !workers_) workers_ = make_worker_pool(o);
  if (o.isolate) o.workers = workers_;
  const auto report = problem.tune(o);
  batch_outcome out;
  out.compiled = report.compiled;
  out.benchmarked = report.benchmarked;
  const std::size_t compiled_ok = count_compiled(report);
  out.result = {{"problem", problem.summary()},
                {"description", problem.description()},
                {"key", report.key.digest()},
                {"gpu", report.gpu},
                {"from_database", report.from_database},
                {"candidates", report.candidates.size()},
                {"compiled_ok", compiled_ok},
                {"compiler_runs", report.compiled},
                {"benchmarked", report.benchmarked},
                {"winner", nullptr}};
  if (!report.gpu) {
    out.ok = compiled_ok > 0;
    out.summary = fmt::format("{}: compiled {} of {} candidates, no GPU", problem.description(), compiled_ok,
                              report.candidates.size());
    return out;
  }
  const auto* best = report.best();
  out.ok = best != nullptr;
  if (!best) {
    out.summary = problem.description() + ": no candidate ran (" + report.summary() + ")";
    return out;
  }
  const double tflops = best->result.min_ms > 0 ? problem.flops() / (best->result.min_ms * 1e-3) / 1e12 : 0.0;
  out.result["winner"] = {
      {"id", best->id}, {"config", best->config}, {"min_ms", best->result.min_ms}, {"tflops", tflops}};
  out.summary = fmt::format("{}: {:.4f} ms, {:.2f} TFLOP/s{}", problem.description(), best->result.min_ms, tflops,
                            report.from_database ? " (from the tuning database)" : "");
  return out;
}

std::optional<std::string> gemm_config_name(const std::string& config) {
  try {
    return parse_gemm_config(config).name();
  } catch (const rocmtpl::error&) {
    return std::nullopt;
  }
}

std::optional<gemm_record_shape> read_gemm_record_shape(const rocmtpl::runtime::tuning_key& key) {
  std::optional<templates::gemm_problem> spec;
  try {
    spec = read_descriptor<templates::gemm_problem>(key.descriptor);
  } catch (const rocmtpl::error&) {
    return std::nullopt;
  }
  if (!spec) return std::nullopt;
  gemm_record_shape shape;
  shape.flops = 2.0 * static_cast<double>(spec->batch) * static_cast<double>(spec->m) * static_cast<double>(spec->n) *
                static_cast<double>(spec->k);
  shape.label = fmt::format("{}x{}x{} {}", spec->m, spec->n, spec->k, name(spec->type));
  if (spec->batch > 1) shape.label += fmt::format(" b{}", spec->batch);
  return shape;
}

}  // namespace rocmtpl_tune

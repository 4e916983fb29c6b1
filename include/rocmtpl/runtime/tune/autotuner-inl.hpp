// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/tune/autotuner.hpp: included at its end (header-only) or compiled once by
// src/runtime/tune.cpp, after it (so it does not include it back).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/bench/worker_pool.hpp>
#include <rocmtpl/runtime/build/amd_emulator.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/sys/log.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE nlohmann::json tune_timeline::to_json() const {
  return {{"compiles_started", compiles_started}, {"helpers_ready", helpers_ready},
          {"reference_ready", reference_ready},   {"first_measured", first_measured},
          {"compiles_done", compiles_done},       {"measured_done", measured_done}};
}

ROCMTPL_INLINE std::string autotune_report::summary() const {
  std::map<std::string, std::size_t> counts;
  for (const auto& c : candidates) ++counts[std::string(to_string(c.result.status))];
  std::string s = std::to_string(candidates.size()) + " candidates:";
  bool first = true;
  for (const auto& [status, n] : counts) {
    s += (first ? " " : ", ") + std::to_string(n) + " " + status;
    first = false;
  }
  if (from_database) s += " (from the tuning database)";
  if (emulated) s += " (AMD emulator: verified, not timed)";
  return s;
}

ROCMTPL_INLINE void autotune_report::print_table(std::ostream& os, std::size_t top) const {
  os << summary() << "\n";
  os << "compiled for " << to_string(compile.platform) << " " << ::rocmtpl::detail::join(compile.archs, ",") << " -O"
     << compile.opt_level << (compile.fast_math ? " fast-math" : "") << "\n";
  if (emulated) {
    os << "AMD emulator (wave64, CPU): correctness only, nothing was timed; no winner is picked or stored\n";
  } else if (const auto where = timed_on(); !where.empty()) {
    os << "timed on " << where << "\n";
  }
  os << fmt::format("{:>4}  {:<10} {:>10} {:>10} {:>10} {:>7} {:>5}  {:<7} {:<8} {}\n", "rank", "status", "min ms",
                    "median", "final", "spread", "reps", "verify", "regs", "config");
  std::size_t rank = 0;
  for (const auto* c : ranked()) {
    if (top != 0 && rank >= top) break;
    ++rank;
    std::string regs;
    for (const auto& r : c->resources) {
      if (!regs.empty()) regs += "/";
      regs += std::to_string(r.registers > 0 ? r.registers : r.vgprs);
      if (r.spills()) regs += "!";
    }
    const auto& m = c->result;
    if (emulated) {  // nothing was timed: no numbers that could read as times
      os << fmt::format("{:>4}  {:<10} {:>10} {:>10} {:>10} {:>7} {:>5}  {:<7} {:<8} {}{}\n", rank, to_string(m.status),
                        "-", "-", "-", "-", "-", m.verified ? "ok" : "-", regs, c->config,
                        m.reason.empty() ? "" : "  (" + m.reason + ")");
      continue;
    }
    const std::string final_ms = c->final_ms > 0 ? fmt::format("{:.4f}", c->final_ms) : "-";
    os << fmt::format("{:>4}  {:<10} {:>10.4f} {:>10.4f} {:>10} {:>6.1f}% {:>5}  {:<7} {:<8} {}{}\n", rank,
                      to_string(m.status), m.min_ms, m.median_ms, final_ms, 100.0 * m.spread, m.repetitions,
                      m.verified ? "ok" : "-", regs, c->config, m.reason.empty() ? "" : "  (" + m.reason + ")");
  }
}

ROCMTPL_INLINE std::vector<const candidate_report*> autotune_report::ranked() const {
  std::vector<const candidate_report*> rows;
  for (const auto& c : candidates) rows.push_back(&c);
  std::stable_sort(rows.begin(), rows.end(), [](const candidate_report* a, const candidate_report* b) {
    const bool ao = a->result.status == candidate_status::ok && a->result.min_ms > 0;
    const bool bo = b->result.status == candidate_status::ok && b->result.min_ms > 0;
    if (ao != bo) return ao;
    if (!ao) return false;
    const bool af = a->final_ms > 0, bf = b->final_ms > 0;
    if (af != bf) return af;
    return af ? a->final_ms < b->final_ms : a->result.min_ms < b->result.min_ms;
  });
  return rows;
}

ROCMTPL_INLINE std::string autotune_report::timed_on() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> models;
  for (const auto& c : candidates) {
    const auto& m = c.result;
    if (m.device.empty()) continue;
    auto it = std::find_if(models.begin(), models.end(), [&](const auto& e) { return e.first == m.device; });
    if (it == models.end()) it = models.emplace(models.end(), m.device, std::vector<std::string>{});
    auto& ids = it->second;
    if (!m.device_id.empty() && std::find(ids.begin(), ids.end(), m.device_id) == ids.end()) {
      ids.push_back(m.device_id);
    }
  }
  std::string out;
  for (const auto& [model, ids] : models) {
    if (!out.empty()) out += "; ";
    out += model;
    if (ids.empty()) continue;
    out += " (GPU ";
    out += ::rocmtpl::detail::join(ids, ", ");
    out += ")";
  }
  return out;
}

ROCMTPL_INLINE nlohmann::json autotune_report::to_json() const {
  nlohmann::json cs = nlohmann::json::array();
  for (const auto& c : candidates) {
    // The code cache's record of each kernel's resources (one JSON shape), plus the spill total.
    nlohmann::json res = detail::code_cache_impl::resources_to_json(c.resources);
    for (std::size_t r = 0; r < c.resources.size(); ++r) res[r]["spills"] = c.resources[r].spills();
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [field, value] : c.config_values) values[field] = value;
    cs.push_back({{"name", c.name},
                  {"id", c.id},
                  {"config", c.config},
                  {"config_values", values},
                  {"compile_options", compile_options_json(c.code_object)},
                  {"compile_command", c.compile_command},
                  {"measurement", c.result},
                  {"final_ms", c.final_ms},
                  {"resources", res},
                  {"compile_seconds", c.compile_seconds},
                  {"compile_cached", c.compile_cached},
                  {"library", c.library.string()},
                  {"code_object", c.code_object}});
  }
  return {{"key", key},
          {"winner", winner ? nlohmann::json(candidates[*winner].id) : nlohmann::json()},
          {"gpu", gpu},
          {"emulated", emulated},
          {"gpu_status", gpu_status},
          {"from_database", from_database},
          {"compiled", compiled},
          {"benchmarked", benchmarked},
          {"wall_seconds", wall_seconds},
          {"timeline", timeline.to_json()},
          {"candidates", cs}};
}

// The options a candidate was compiled with: the report's, as a code object when device-only.
ROCMTPL_INLINE nlohmann::json autotune_report::compile_options_json(bool code_object) const {
  std::vector<std::string> includes;
  for (const auto& d : compile.include_dirs) includes.push_back(d.string());
  return {{"platform", to_string(compile.platform)},
          {"archs", compile.archs},
          {"opt_level", compile.opt_level},
          {"fast_math", compile.fast_math},
          {"defines", compile.defines},
          {"extra_flags", compile.extra_flags},
          {"include_dirs", includes},
          {"output", code_object ? "code_object" : "shared_library"}};
}

namespace detail {

ROCMTPL_INLINE void progress_line::update(const std::string& text) {
  if (!enabled_) return;
  std::cerr << "\r\033[K" << text << std::flush;
  shown_ = true;
}

ROCMTPL_INLINE progress_line::~progress_line() {
  if (enabled_ && shown_) std::cerr << "\r\033[K" << std::flush;
}

// Problem signature: every tensor's dtype, sizes, strides and offset as hinted, the hints, and
// the hash of every candidate's source (so a library change that alters code re-tunes).
ROCMTPL_INLINE std::string problem_signature(const rocm_benchmark_request& r, const size_hints& hints,
                                             const std::vector<std::string>& source_hashes) {
  std::string s;
  auto tensor = [&](const tensor_meta& m) {
    s += m.name + ":" + std::string(name(m.type)) + "[";
    for (std::size_t i = 0; i < m.sizes.size(); ++i) s += (i ? "," : "") + std::to_string(m.sizes[i]);
    s += "]/[";
    for (std::size_t i = 0; i < m.strides.size(); ++i) s += (i ? "," : "") + std::to_string(m.strides[i]);
    s += "]+" + std::to_string(m.offset) + " ";
  };
  for (const auto& m : r.input_tensor_meta) tensor(m);
  s += "-> ";
  tensor(r.output_tensor_meta);
  for (const auto& [k, v] : hints) s += k + "=" + std::to_string(v) + " ";
  std::string all;
  for (const auto& h : source_hashes) all += h;
  s += "sources=" + ::rocmtpl::detail::hash_hex(all);
  return s;
}

// The device, if possible without starting the GPU runtime (a warm tune never starts it); sets
// report.gpu and report.gpu_status.
ROCMTPL_INLINE std::optional<device_identity> find_device(autotune_report& report) {
  std::optional<device_identity> device = cached_device_identity();
  if (device) {
    report.gpu = true;
    report.gpu_status = "device " + device->name + " (" + device->arch + "), identity cached";
    return device;
  }
  device = query_device_identity();
  report.gpu = device.has_value();
  report.gpu_status = gpu_runtime::instance().status();
  return device;
}

// The AMD emulator as this process's device (use_amd_emulator()): its compiler and identity, never
// the cached identity of a real GPU (and never cached itself: query_device_identity() is not called).
ROCMTPL_INLINE std::pair<compiler, device_identity> start_amd_emulator(autotune_report& report) {
  compiler cc = use_amd_emulator();
  const auto& rt = gpu_runtime::instance();
  const auto p = rt.properties(rt.current_device());
  report.gpu = true;
  report.emulated = true;
  report.gpu_status = rt.status() + "; AMD emulator: correctness only, nothing timed";
  return {std::move(cc), device_identity{p.kind, p.name, p.arch}};
}

// The options a tune runs with: as given, except that the AMD emulator runs shared libraries in this
// process and keeps nothing in the tuning database (nothing is timed).
ROCMTPL_INLINE autotune_options effective_options(const autotune_options& options) {
  autotune_options o = options;
  if (o.emulate_amd) {
    o.use_database = false;
    o.device_only = false;
    o.isolate = false;
    o.workers = nullptr;
  }
  return o;
}

// What the candidates are compiled for: the device, or the AMD archs of a compile-only run.
ROCMTPL_INLINE compile_options target_compile_options(bool gpu, const std::optional<device_identity>& device,
                                                      const autotune_options& options) {
  compile_options o;
  if (gpu) {
    o.platform = device->kind;
    o.archs = {device_compile_arch(device->kind, device->arch)};
    o.include_dirs = {device_include_dir()};
  } else {
    o = amd_compile_options(options.amd_archs);
  }
  o.timeout = options.compile_timeout;
  return o;
}

// The tuning database key: the problem, the candidates' sources and runtime arguments, the target
// and the tools.
ROCMTPL_INLINE tuning_key make_key(std::string_view template_name, const std::vector<rocm_template_caller>& callers,
                                   const size_hints& hints, const std::optional<device_identity>& device,
                                   const autotune_options& options, const compiler& cc) {
  std::vector<std::string> hashes;
  std::string runtime_args;
  for (const auto& c : callers) {
    hashes.push_back(c.bmreq().source_hash());
    const auto& extra = c.bmreq().extra_args;
    for (auto i = c.bmreq().size_arg_count; i < extra.size(); ++i) runtime_args += std::to_string(extra[i]) + ",";
    runtime_args += ";";
  }
  tuning_key key;
  key.template_name = std::string(template_name);
  key.problem = problem_signature(callers.front().bmreq(), hints, hashes);
  key.runtime_args = ::rocmtpl::detail::hash_hex(runtime_args);
  key.arch = device ? device->arch : ::rocmtpl::detail::join(options.amd_archs, ",");
  key.device = device ? device->name : "none";
  key.compiler_version = cc.version();
  key.library_version = version_string;
  return key;
}

// One report row per candidate, not yet measured.
ROCMTPL_INLINE std::vector<candidate_report> describe_candidates(const std::vector<rocm_template_caller>& callers) {
  std::vector<candidate_report> out;
  for (const auto& c : callers) {
    candidate_report cr;
    cr.name = c.name();
    cr.id = c.hash_key();
    std::vector<std::string> fields;
    for (const auto& [k, v] : c.info_dict()) {
      if (k == "backend" || k == "name") continue;
      fields.push_back(k + "=" + v);
      cr.config_values.emplace_back(k, v);
    }
    cr.config = ::rocmtpl::detail::join(fields, " ");
    cr.result.candidate = cr.id;
    cr.result.config = cr.config;
    cr.result.source_hash = c.bmreq().source_hash();
    const auto& req = c.bmreq();
    log_info("render {}: kernel {}, {} entry arguments, source {} ({} bytes), {}", c.name(), req.kernel_name,
             req.signature.argdefs().size(), cr.result.source_hash, req.source_code.size(), cr.config);
    if (log_enabled(log_level::debug)) {
      log_debug("render {}: arguments: {}", c.name(), fmt::join(req.signature.argdefs(), ", "));
      log_debug("render {}: source:\n{}", c.name(), req.source_code);
    }
    out.push_back(std::move(cr));
  }
  return out;
}

// A message's first line: the log keeps one line per event.
ROCMTPL_INLINE std::string_view first_line(std::string_view text) { return text.substr(0, text.find('\n')); }

ROCMTPL_INLINE void log_measurement(const candidate_report& c) {
  if (!log_enabled(log_level::info)) return;
  const auto& m = c.result;
  // Not run: the compile line said what there is to say.
  if (m.status == candidate_status::skipped || m.status == candidate_status::compile_failed) return;
  if (m.status != candidate_status::ok && m.repetitions == 0) {
    log_info("benchmark {}: {}: {}", c.name, to_string(m.status), first_line(m.reason));
    return;
  }
  if (m.repetitions == 0) {
    log_info("benchmark {}: ran once, not timed (AMD emulator)", c.name);
  } else {
    log_info("benchmark {}: {:.4f} ms (median {:.4f} ms, {} repetitions{}{})", c.name, m.min_ms, m.median_ms,
             m.repetitions, m.device.empty() ? "" : ", ", m.device);
  }
  if (m.verified) {
    log_info("verify {}: {}, max error {:.3g}", c.name, m.status == candidate_status::ok ? "ok" : "failed",
             m.max_error);
  } else if (m.status != candidate_status::ok) {
    log_info("verify {}: {}: {}", c.name, to_string(m.status), first_line(m.reason));
  } else {
    log_info("verify {}: not verified", c.name);
  }
}

// Copies what the database knows into the report. True (with report.winner set) when every
// candidate was measured before and a winner is stored: then nothing needs compiling or running.
ROCMTPL_INLINE bool lookup_db(const tuning_db& db, autotune_report& report) {
  const auto record = db.find(report.key);
  if (!record) {
    log_info("database {}: problem {} not tuned before", db.path().string(), report.key.digest());
    return false;
  }
  std::map<std::string, const measurement*> known;
  for (const auto& m : record->measurements) known[m.candidate] = &m;
  bool complete = record->winner.has_value();
  for (auto& c : report.candidates) {
    auto it = known.find(c.id);
    if (it == known.end()) {
      complete = false;
      continue;
    }
    c.result = *it->second;
  }
  if (!complete) {
    log_info("database {}: problem {} partly tuned ({} of {} candidates measured)", db.path().string(),
             report.key.digest(), record->measurements.size(), report.candidates.size());
    return false;
  }
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    if (report.candidates[i].id == *record->winner) report.winner = i;
  }
  if (report.winner) {
    log_info("database {}: problem {} answered: winner {}", db.path().string(), report.key.digest(),
             report.candidates[*report.winner].name);
  }
  return report.winner.has_value();
}

// Which candidates need work: all without a database; with one, those it does not know.
ROCMTPL_INLINE std::vector<std::size_t> pending_candidates(const tuning_db* db, const autotune_report& report) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    if (!db || !db->find_measurement(report.key, report.candidates[i].id)) todo.push_back(i);
  }
  return todo;
}

ROCMTPL_INLINE double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ROCMTPL_INLINE compile_pool::compile_pool(code_cache& cache, const compiler& cc, const compile_options& options,
                                          const compile_jobs& jobs, unsigned threads)
    : cache_(cache), cc_(cc), options_(options), device_options_(options), jobs_(jobs) {
  device_options_.output = compile_output::code_object;
  for (unsigned w = 0; w < std::min<std::size_t>(threads, jobs_.jobs.size()); ++w) {
    workers_.emplace_back([this] { work(); });
  }
}

// Waits for the next finished job.
ROCMTPL_INLINE compiled_candidate compile_pool::pop() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return !done_.empty(); });
  auto item = std::move(done_.front());
  done_.pop_front();
  return item;
}

ROCMTPL_INLINE symbol_sets required_symbols(const rocm_template_caller& caller, bool code_object) {
  if (!code_object || !caller.launch()) return {{caller.bmreq().kernel_name}};
  symbol_sets out;
  for (const auto& v : caller.launch()->variants) {
    std::vector<std::string> set;
    for (const auto& l : v.launches) set.push_back(device_symbol(*caller.launch(), l));
    if (!set.empty() && std::find(out.begin(), out.end(), set) == out.end()) out.push_back(std::move(set));
  }
  return out;
}

ROCMTPL_INLINE void compile_pool::work() {
  for (std::size_t j = next_++; j < jobs_.jobs.size(); j = next_++) {
    const auto& job = jobs_.jobs[j];
    compiled_candidate result{j, std::nullopt, {}, false};
    try {
      auto options = job.code_object ? device_options_ : options_;
      options.required_symbols = job.symbols;
      result.result = cache_.get_or_compile(cc_, job.source, options);
      result.code_object = job.code_object;
      const auto& r = *result.result;
      if (r.cached) {
        log_info("compile {}: cache hit, {}", job.name, r.library.string());
      } else {
        log_info("compile {}: {:.2f} s, cache miss, {}", job.name, r.seconds, r.library.string());
      }
      log_debug("compile {}: {}", job.name, fmt::join(r.argv, " "));
    } catch (const compile_error& e) {
      result.error = e.what();
      log_info("compile {}: failed: {}", job.name, first_line(result.error));
      log_debug("compile {}: {}", job.name, fmt::join(e.argv(), " "));
    } catch (const std::exception& e) {
      result.error = e.what();
      log_info("compile {}: failed: {}", job.name, first_line(result.error));
    }
    {
      std::lock_guard lock(mutex_);
      done_.push_back(std::move(result));
    }
    ready_.notify_one();
  }
}

// A finished compile of the helpers or the reference as a binary.
ROCMTPL_INLINE compiled_binary binary_of(const compiled_candidate& item) {
  return {item.result ? item.result->library : std::filesystem::path(), item.code_object};
}

// Copies a later verification into a measurement that was timed before the reference existed:
// its verdict, its error, and its failure (with the reason) when it failed.
ROCMTPL_INLINE void merge_verification(measurement& timed, const measurement& verification) {
  timed.verified = verification.verified;
  timed.max_error = verification.max_error;
  if (verification.status != candidate_status::ok) {
    timed.status = verification.status;
    timed.reason = verification.reason;
  }
}

// One benchmark worker per visible GPU (runtime/bench/worker_pool.hpp), each started at once: a crashed
// or hung worker is restarted on its GPU (and gets the setup and the reference again), and GPUs of
// different models are not mixed.
// `model`: the device model every worker must have (empty: the first worker's).
ROCMTPL_INLINE std::shared_ptr<worker_pool> start_workers(const std::filesystem::path& exe, nlohmann::json setup,
                                                          std::chrono::milliseconds timeout, std::string model) {
  return std::make_shared<worker_pool>(visible_devices(gpu_runtime::instance().device_count()),
                                       process_worker_factory(exe), std::move(setup),
                                       worker_pool_options{timeout, timeout * 4, true, std::move(model)});
}

// What a worker pool job's result says about its candidate, and the GPU its worker ran it on (its
// visibility value and model). A worker whose job crashed, hung or failed to launch (its GPU
// context may be broken) is replaced by the pool before its next job.
ROCMTPL_INLINE measurement pool_measurement(const pool_job_result& r) {
  measurement m;
  if (!r.reply) {
    m.status =
        r.failure == worker_process::failure::timed_out ? candidate_status::timed_out : candidate_status::crashed;
    m.reason = r.detail;
  } else if (!r.reply->value("ok", false)) {
    m.status = candidate_status::launch_failed;
    m.reason = r.reply->value("error", std::string());
  } else {
    m = r.reply->at("measurement").get<measurement>();
  }
  m.device = r.device_name;
  m.device_id = r.device;
  return m;
}

// `model`: the device model of the tuning key; isolated, workers on GPUs of another model take
// no jobs, so every measurement is of that model.
ROCMTPL_INLINE candidate_bench::candidate_bench(const autotune_options& options, const rocm_benchmark_request& request,
                                                std::string model)
    : options_(options),
      request_(request),
      tolerance_(options.verify ? default_tolerance(request.output_tensor_meta.type) : 1e300),
      model_(std::move(model)) {}

// Loads the helper kernels and fills the inputs (in the worker: prepares its setup command).
ROCMTPL_INLINE void candidate_bench::setup_helpers(const compiled_binary& helpers) {
  try {
    if (options_.isolate) {
      prepare_worker(helpers);
    } else {
      util_ = std::make_unique<utility_kernels>(helpers);
      bench_ = std::make_unique<bench>(request_, *util_, options_.bench);
      const auto& rt = gpu_runtime::instance();
      const int index = rt.current_device();
      device_id_ = std::to_string(index);
      device_name_ = rt.properties(index).name;
    }
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

// Runs the reference once and keeps its output; `launch` is its description when `reference`
// is a code object. Afterwards candidates are verified as they are measured.
ROCMTPL_INLINE void candidate_bench::run_reference(const compiled_binary& reference,
                                                   const std::optional<launch_description>& launch) {
  if (!error_.empty()) return;
  try {
    if (options_.isolate) {
      // Every worker runs it before its next job (a restarted one again); the first run is waited for.
      nlohmann::json cmd{{"op", "reference"}};
      add_binary(cmd, reference, launch ? bind_reference(*launch) : std::optional<bound_launch>());
      const auto r = pool_->add_setup(std::move(cmd)).get();
      if (!r.reply) {
        std::string why = "rocmtpl: autotune: reference in the worker: ";  // in steps: g++ 12 -O3 -Wrestrict
        why += r.detail;
        throw ::rocmtpl::error(why);
      }
    } else if (reference.code_object) {
      const module_kernel k(std::make_shared<code_object>(reference.path), bind_reference(*launch), sizes());
      bench_->run_reference(k);
    } else {
      auto lib = std::make_shared<shared_library>(reference.path);
      bench_->run_reference(kernel_entry(lib, request_.kernel_name, reference_signature(request_)));
    }
    has_reference_ = true;
  } catch (const std::exception& e) {
    fail(std::string("reference failed: ") + e.what());
  }
}

// Isolated mode: starts the pool's worker processes (one per visible GPU) now, so that their GPU
// contexts are created while the candidates compile; they are set up once the helper kernels are
// built. Does nothing when no worker is found (setup_helpers() then says why).
ROCMTPL_INLINE void candidate_bench::prestart() {
  if (!options_.isolate || pool_) return;
  if (options_.workers) {
    pool_ = options_.workers;
    return;
  }
  try {
    if (auto exe = find_worker()) pool_ = start_workers(*exe, nullptr, timeout(), model_);
  } catch (const std::exception&) {
    pool_.reset();
  }
}

// The measurement (waits for the job).
ROCMTPL_INLINE measurement candidate_bench::ticket::get() {
  if (done) return *done;
  return pool_measurement(job.get());
}

ROCMTPL_INLINE void candidate_bench::prepare_worker(const compiled_binary& helpers) {
  auto exe = find_worker();
  if (!exe)
    throw ::rocmtpl::error("rocmtpl: autotune: isolation needs rocmtpl-bench-worker (set ROCMTPL_BENCH_WORKER)");
  nlohmann::json setup{{"op", "setup"},
                       {helpers.code_object ? "utility_code_object" : "utility_library", helpers.path.string()},
                       {"request", request_to_json(request_)},
                       {"options", options_to_json(options_.bench)}};
  if (options_.workers) {
    pool_ = options_.workers;
    pool_->begin(std::move(setup));  // a new problem on the workers already up
  } else if (pool_) {
    pool_->set_setup(std::move(setup));
  } else {
    pool_ = start_workers(*exe, std::move(setup), timeout(), model_);
  }
}

ROCMTPL_INLINE measurement candidate_bench::run_in_process(const candidate_report& c,
                                                           const rocm_template_caller& caller, bool verify_only) {
  const auto& r = caller.bmreq();
  const auto run = [&](const auto& k) {
    return verify_only ? verify_candidate(*bench_, k, r.extra_args, tolerance_)
                       : measure_candidate(*bench_, k, r.extra_args, tolerance_);
  };
  measurement m;
  try {
    if (options_.emulate_amd) {  // shared libraries only (effective_options())
      m = emulated_run(kernel_entry(std::make_shared<shared_library>(c.library), r.kernel_name, r.signature),
                       r.extra_args, verify_only);
    } else {
      m = with_kernel(c, caller, run);
    }
  } catch (const std::exception& e) {
    m.status = candidate_status::launch_failed;
    m.reason = e.what();
  }
  if (options_.emulate_amd && m.status == candidate_status::launch_failed) {
    // What stopped the launch: the emulator names kernel, block, lane and address.
    const auto why = amd_emulator_runtime(gpu_runtime::instance().library()).last_message();
    if (!why.empty()) m.reason += ": " + why;
  }
  m.device = device_name_;  // where it ran: this process's device
  m.device_id = device_id_;
  return m;
}

// On the AMD emulator, correctness only: verified once the reference ran; before, run once
// (bench_loop verifies it later). A configuration whose AMD entry refuses it (the NVIDIA-only
// Hopper and skinny matrix-core paths answer status 3 on AMD builds) is skipped, not failed.
ROCMTPL_INLINE measurement candidate_bench::emulated_run(const kernel_entry& k, const std::vector<std::int64_t>& extra,
                                                         bool verify_only) {
  measurement m;
  try {
    if (verify_only || bench_->has_reference()) {
      const auto c = bench_->verify(k, extra);
      m.max_error = c.max_abs;
      if (c.nonfinite > 0 || !(c.relative_l2 <= tolerance_)) {
        m.status = candidate_status::verify_failed;
        m.reason = "relative L2 error " + std::to_string(c.relative_l2) + " (tolerance " + std::to_string(tolerance_) +
                   "), " + std::to_string(c.nonfinite) + " non-finite outputs";
      } else {
        m.verified = true;
      }
    } else {
      bench_->run_once(k, extra);
    }
  } catch (const kernel_status_error& e) {
    const bool refused = e.code() == kernel_status::unsupported_argument;
    m.status = refused ? candidate_status::skipped : candidate_status::launch_failed;
    m.reason = refused ? "the AMD entry refuses this configuration (an NVIDIA-only path; status 3)" : e.what();
  } catch (const gpu_error& e) {
    m.status = candidate_status::launch_failed;
    m.reason = e.what();
  }
  return m;
}

// The caller's launch description bound to its benchmark sizes and runtime arguments.
ROCMTPL_INLINE bound_launch candidate_bench::bound_launch_of(const rocm_template_caller& caller) {
  const auto& r = caller.bmreq();
  const auto split = r.extra_args.begin() + static_cast<std::ptrdiff_t>(r.size_arg_count);
  const bool amd = gpu_runtime::instance().kind() == platform::amd;
  return bind(*caller.launch(), {r.extra_args.begin(), split}, {split, r.extra_args.end()}, amd);
}

// A binary in a worker command: `library`, or `code_object` with its bound `launch`.
ROCMTPL_INLINE void candidate_bench::add_binary(nlohmann::json& cmd, const compiled_binary& b,
                                                const std::optional<bound_launch>& launch) {
  if (b.code_object) {
    cmd["code_object"] = b.path.string();
    cmd["launch"] = launch_to_json(*launch);
  } else {
    cmd["library"] = b.path.string();
  }
}

// A `measure` or `verify` job for the pool.
ROCMTPL_INLINE candidate_bench::ticket candidate_bench::submit_isolated(const char* op, const candidate_report& c,
                                                                        const rocm_template_caller& caller) {
  const auto& r = caller.bmreq();
  nlohmann::json cmd{{"op", op}, {"extra_args", r.extra_args}, {"tolerance", tolerance_}};
  try {
    add_binary(cmd, {c.library, c.code_object},
               c.code_object ? std::optional<bound_launch>(bound_launch_of(caller)) : std::nullopt);
  } catch (const std::exception& e) {
    measurement m;
    m.status = candidate_status::launch_failed;
    m.reason = e.what();
    return {m, {}};
  }
  return {std::nullopt, pool_->submit(std::move(cmd))};
}

ROCMTPL_INLINE std::vector<std::size_t> choose_finalists(const autotune_report& report, const autotune_options& options,
                                                         bool require_verified) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    const auto& m = report.candidates[i].result;
    if (m.status != candidate_status::ok || !(m.min_ms > 0) || (require_verified && !m.verified)) continue;
    rows.push_back(i);
  }
  const auto min_of = [&](std::size_t i) { return report.candidates[i].result.min_ms; };
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) { return min_of(a) < min_of(b); });
  if (rows.empty() || min_of(rows.front()) < options.finalist_min_ms) return {};
  const double limit = min_of(rows.front()) * (1.0 + options.finalist_margin);
  std::size_t n = 0;
  while (n < rows.size() && n < options.finalists && min_of(rows[n]) <= limit) ++n;
  rows.resize(n);
  const bool at_hand = std::all_of(rows.begin(), rows.end(), [&](std::size_t i) {
    const auto& c = report.candidates[i];
    return !c.library.empty() && c.result.repetitions > 0;
  });
  if (rows.size() < 2 || !at_hand) return {};
  return rows;
}

ROCMTPL_INLINE std::vector<double> candidate_bench::retime(const autotune_report& report,
                                                           const std::vector<std::size_t>& rows,
                                                           const std::vector<rocm_template_caller>& callers) {
  std::vector<double> medians;
  if (!error_.empty()) return medians;
  try {
    if (options_.isolate) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto i : rows) {
        const auto& c = report.candidates[i];
        nlohmann::json one{{"extra_args", callers[i].bmreq().extra_args}};
        add_binary(one, {c.library, c.code_object},
                   c.code_object ? std::optional<bound_launch>(bound_launch_of(callers[i])) : std::nullopt);
        list.push_back(std::move(one));
      }
      const auto r = pool_->submit({{"op", "retime"}, {"candidates", std::move(list)}}).get();
      if (!r.reply || !r.reply->value("ok", false)) {
        throw ::rocmtpl::error(r.reply ? r.reply->value("error", std::string()) : r.detail);
      }
      for (const auto& t : r.reply->at("timings")) medians.push_back(t.at("median_ms").get<double>());
    } else {
      std::vector<std::shared_ptr<const void>> kernels;  // alive while the calls run
      std::vector<timed_call> calls;
      for (const auto i : rows) {
        const auto& extra = callers[i].bmreq().extra_args;
        with_kernel(report.candidates[i], callers[i], [&](auto&& k) {
          auto kept = std::make_shared<const std::decay_t<decltype(k)>>(std::move(k));
          calls.push_back(bench_->call(*kept, extra));
          kernels.push_back(std::move(kept));
        });
      }
      for (const auto& t : bench_->time_settled(calls)) medians.push_back(t.median_ms);
    }
  } catch (const std::exception& e) {
    log_info("retime: failed, the lowest minimum time picks: {}", first_line(e.what()));
    return {};
  }
  if (medians.size() != rows.size() || !std::all_of(medians.begin(), medians.end(), [](double ms) { return ms > 0; })) {
    log_info("retime: {} timings for {} finalists; the lowest minimum time picks", medians.size(), rows.size());
    return {};
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    log_info("retime {}: median {:.4f} ms under sustained load (min {:.4f} ms before)", report.candidates[rows[i]].name,
             medians[i], report.candidates[rows[i]].result.min_ms);
  }
  return medians;
}

// Picks the winner (see the declaration) and stores it; candidates the database already knew keep
// its measurement.
ROCMTPL_INLINE void pick_and_store(autotune_report& report, tuning_db* db, bool require_verified) {
  if (db) {
    for (auto& c : report.candidates) {
      if (c.result.repetitions == 0 && c.result.status == candidate_status::ok) {
        if (auto m = db->find_measurement(report.key, c.id)) c.result = *m;
      }
    }
  }
  const bool retimed = std::any_of(report.candidates.begin(), report.candidates.end(),
                                   [](const candidate_report& c) { return c.final_ms > 0; });
  const auto time_of = [&](std::size_t i) {
    return retimed ? report.candidates[i].final_ms : report.candidates[i].result.min_ms;
  };
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    const auto& m = report.candidates[i].result;
    if (m.status != candidate_status::ok || !(m.min_ms > 0)) continue;
    if (require_verified && !m.verified) continue;
    if (retimed && !(report.candidates[i].final_ms > 0)) continue;
    if (!report.winner || time_of(i) < time_of(*report.winner)) report.winner = i;
  }
  if (report.winner) {
    const auto& w = report.candidates[*report.winner];
    log_info("winner {}: {:.4f} ms{} ({})", w.name, time_of(*report.winner),
             retimed ? " (median among the finalists)" : "", w.config);
  }
  if (db && report.winner) {
    db->set_winner(report.key, report.candidates[*report.winner].id);
    log_info("database {}: stored the winner of problem {}", db->path().string(), report.key.digest());
  }
}

}  // namespace detail

ROCMTPL_INLINE std::shared_ptr<worker_pool> make_worker_pool(const autotune_options& options) {
  if (!options.isolate || !gpu_runtime::instance().available()) return nullptr;
  const auto exe = find_worker();
  if (!exe) return nullptr;
  const auto& rt = gpu_runtime::instance();
  return detail::start_workers(*exe, nullptr,
                               std::chrono::duration_cast<std::chrono::milliseconds>(options.candidate_timeout),
                               rt.properties(rt.current_device()).name);  // the tuning keys' device model
}

}  // namespace rocmtpl::runtime

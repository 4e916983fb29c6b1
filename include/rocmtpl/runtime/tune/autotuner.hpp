// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The autotuner (the reference's select_algorithm step): compile every candidate in
/// parallel, benchmark them as their compiles finish, verify each against the template's
/// reference, pick the fastest, and remember everything in the tuning database.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rocmtpl/core/version.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/bench/worker_pool.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>

namespace rocmtpl::runtime {

/// @brief How the autotuner works.
struct autotune_options {
  unsigned jobs = 0;                           ///< parallel compiles; 0 = one per core
  benchmark_options bench{};                   ///< timing protocol
  bool verify = true;                          ///< verify every candidate against the template's reference
  bool isolate = false;                        ///< benchmark in crash-safe workers, one per GPU (tools turn this on)
  std::chrono::seconds candidate_timeout{60};  ///< isolated mode: a candidate silent this long is killed
  std::size_t max_candidates = 0;              ///< first N of the policy's ranked configs; 0 = all
  bool use_database = true;                    ///< read and write the tuning database
  std::filesystem::path database{};            ///< empty: tuning_db::default_path()
  std::filesystem::path cache_dir{};           ///< empty: code_cache::default_root()
  std::optional<bool> progress{};              ///< progress line on stderr; default: when stderr is a terminal
  std::vector<std::string> amd_archs{"gfx90a", "gfx940"};  ///< targets compiled when no GPU is present
  /// Candidates whose policy describes its launch (kernel_capabilities::launch) are compiled to
  /// device-only code objects and launched through the module API (runtime/launch/module_launcher.hpp);
  /// off: every candidate is a shared library called through its C entry.
  bool device_only = true;
  /// Isolated mode: benchmark workers kept across tunes (make_worker_pool(); a batch starts them
  /// once); null: each tune starts its own and stops them when it ends.
  std::shared_ptr<worker_pool> workers{};
};

/// @brief One candidate in a report.
struct candidate_report {
  std::string name;    ///< choice name (rocm_<template>_<n>)
  std::string id;      ///< stable identity: the caller's hash_key (source hash and extra arguments)
  std::string config;  ///< configuration text
  std::vector<std::pair<std::string, std::string>> config_values{};  ///< the configuration's (field, value) pairs
  /// status, times, verification (result.candidate == id), and the GPU that timed it
  /// (result.device: its model; result.device_id: its index, or its worker's visibility value)
  measurement result;
  std::vector<kernel_resource_usage> resources;  ///< per-kernel resource usage, as the compiler reported it
  double compile_seconds = 0;                    ///< wall time of its compile (of the original one for a cache hit)
  bool compile_cached = false;                   ///< the code cache answered without running the compiler
  std::filesystem::path library;                 ///< the shared library, or the code object when `code_object`
  bool code_object = false;                      ///< compiled device-only, measured through the module API
  std::vector<std::string> compile_command{};    ///< the compiler's argv (empty when not compiled in this run)
};

/// @brief When the steps of a tune happened, in seconds since the tune started (0: did not happen).
/// The cold tune's critical path: compiles, then the benchmarks that follow the last one.
struct tune_timeline {
  double compiles_started = 0;  ///< the compile pool started (rendering, key and database look-up before)
  double helpers_ready = 0;     ///< the helper kernels compiled and the bench set up (inputs filled)
  double reference_ready = 0;   ///< the reference compiled and ran
  double first_measured = 0;    ///< the first candidate measured
  double compiles_done = 0;     ///< the last compile finished
  double measured_done = 0;     ///< the last candidate measured (and verified)

  /// @brief Every field by name.
  [[nodiscard]] nlohmann::json to_json() const {
    return {{"compiles_started", compiles_started}, {"helpers_ready", helpers_ready},
            {"reference_ready", reference_ready},   {"first_measured", first_measured},
            {"compiles_done", compiles_done},       {"measured_done", measured_done}};
  }
};

/// @brief What a tune did and found.
struct autotune_report {
  tuning_key key;                            ///< the problem's key in the tuning database
  std::vector<candidate_report> candidates;  ///< every candidate, in the policy's ranked order
  std::optional<std::size_t> winner;         ///< index into candidates
  bool gpu = false;                          ///< benchmarked on a GPU
  std::string gpu_status;                    ///< the runtime's status line
  bool from_database = false;                ///< answered from the tuning database: nothing compiled or run
  std::size_t compiled = 0;                  ///< compiler processes spawned
  std::size_t benchmarked = 0;               ///< candidates measured in this run
  double wall_seconds = 0;                   ///< wall time of the tune
  compile_options compile{};                 ///< what candidates are compiled with (device-only ones as code objects)
  tune_timeline timeline{};                  ///< when its steps happened (a cold tune's critical path)

  /// @brief The winning candidate, or nullptr.
  [[nodiscard]] const candidate_report* best() const noexcept { return winner ? &candidates[*winner] : nullptr; }

  /// @brief One line: how many candidates ended in each status, e.g. `32 candidates: 30 ok, 2 compile_failed`.
  [[nodiscard]] std::string summary() const {
    std::map<std::string, std::size_t> counts;
    for (const auto& c : candidates) ++counts[std::string(to_string(c.result.status))];
    std::string s = std::to_string(candidates.size()) + " candidates:";
    bool first = true;
    for (const auto& [status, n] : counts) {
      s += (first ? " " : ", ") + std::to_string(n) + " " + status;
      first = false;
    }
    if (from_database) s += " (from the tuning database)";
    return s;
  }

  /// @brief Candidates that ran, fastest first, then the failed ones with their reasons.
  void print_table(std::ostream& os, std::size_t top = 0) const {
    os << summary() << "\n";
    os << "compiled for " << to_string(compile.platform) << " " << ::rocmtpl::detail::join(compile.archs, ",") << " -O"
       << compile.opt_level << (compile.fast_math ? " fast-math" : "") << "\n";
    if (const auto where = timed_on(); !where.empty()) os << "timed on " << where << "\n";
    std::vector<const candidate_report*> rows;
    for (const auto& c : candidates) rows.push_back(&c);
    std::stable_sort(rows.begin(), rows.end(), [](const candidate_report* a, const candidate_report* b) {
      const bool ao = a->result.status == candidate_status::ok && a->result.min_ms > 0;
      const bool bo = b->result.status == candidate_status::ok && b->result.min_ms > 0;
      if (ao != bo) return ao;
      return ao && a->result.min_ms < b->result.min_ms;
    });
    os << fmt::format("{:>4}  {:<10} {:>10} {:>10} {:>7} {:>5}  {:<7} {:<8} {}\n", "rank", "status", "min ms", "median",
                      "spread", "reps", "verify", "regs", "config");
    std::size_t rank = 0;
    for (const auto* c : rows) {
      if (top != 0 && rank >= top) break;
      ++rank;
      std::string regs;
      for (const auto& r : c->resources) {
        if (!regs.empty()) regs += "/";
        regs += std::to_string(r.registers > 0 ? r.registers : r.vgprs);
        if (r.spills()) regs += "!";
      }
      const auto& m = c->result;
      os << fmt::format("{:>4}  {:<10} {:>10.4f} {:>10.4f} {:>6.1f}% {:>5}  {:<7} {:<8} {}{}\n", rank,
                        to_string(m.status), m.min_ms, m.median_ms, 100.0 * m.spread, m.repetitions,
                        m.verified ? "ok" : "-", regs, c->config, m.reason.empty() ? "" : "  (" + m.reason + ")");
    }
  }

  /// @brief Where the candidates were timed: `<model> (GPU <id>, ...)` per device model, in the
  /// order first met (one model, unless measurements of several were put in one report by hand);
  /// empty when none was timed on a GPU.
  [[nodiscard]] std::string timed_on() const {
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

  /// @brief Everything as JSON (the CLI's --json).
  [[nodiscard]] nlohmann::json to_json() const {
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
                    {"resources", res},
                    {"compile_seconds", c.compile_seconds},
                    {"compile_cached", c.compile_cached},
                    {"library", c.library.string()},
                    {"code_object", c.code_object}});
    }
    return {{"key", key},
            {"winner", winner ? nlohmann::json(candidates[*winner].id) : nlohmann::json()},
            {"gpu", gpu},
            {"gpu_status", gpu_status},
            {"from_database", from_database},
            {"compiled", compiled},
            {"benchmarked", benchmarked},
            {"wall_seconds", wall_seconds},
            {"timeline", timeline.to_json()},
            {"candidates", cs}};
  }

 private:
  // The options a candidate was compiled with: the report's, as a code object when device-only.
  [[nodiscard]] nlohmann::json compile_options_json(bool code_object) const {
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
};

namespace detail {
// A one-line progress display on stderr, redrawn in place.
class progress_line {
 public:
  explicit progress_line(bool enabled) : enabled_(enabled) {}
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  void update(const std::string& text) {
    if (!enabled_) return;
    std::cerr << "\r\033[K" << text << std::flush;
    shown_ = true;
  }
  ~progress_line() {
    if (enabled_ && shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

// Problem signature: every tensor's dtype, sizes, strides and offset as hinted, the hints, and
// the hash of every candidate's source (so a library change that alters code re-tunes).
inline std::string problem_signature(const rocm_benchmark_request& r, const size_hints& hints,
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

struct compiled_candidate {
  std::size_t index;
  std::optional<compile_result> result;
  std::string error;
  bool code_object = false;
};

// ---- the steps of autotune(), in order ----------------------------------------------------------

// The candidates, in the policy's ranked order (the first `max_candidates` when that is set).
template <class Policy>
std::vector<rocm_template_caller> collect_candidates(const rocm_template<Policy>& tpl, const size_hints& hints,
                                                     const autotune_options& options) {
  std::vector<rocm_template_caller> callers;
  for (const auto& config : ::rocmtpl::detail::problem_configs(tpl.policy(), tpl.context(), hints)) {
    if (options.max_candidates != 0 && callers.size() >= options.max_candidates) break;
    callers.push_back(tpl.generate(config, hints));
  }
  if (callers.empty()) {
    throw template_error("rocmtpl: autotune: template '" + std::string(tpl.name()) +
                             "' has no candidates for these sizes; check the policy's configs() and constraints",
                         std::string(tpl.name()));
  }
  return callers;
}

// The device, if possible without starting the GPU runtime (a warm tune never starts it); sets
// report.gpu and report.gpu_status.
inline std::optional<device_identity> find_device(autotune_report& report) {
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

// What the candidates are compiled for: the device, or the AMD archs of a compile-only run.
inline compile_options target_compile_options(bool gpu, const std::optional<device_identity>& device,
                                              const autotune_options& options) {
  if (!gpu) return amd_compile_options(options.amd_archs);
  compile_options o;
  o.platform = device->kind;
  o.archs = {device_compile_arch(device->kind, device->arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

// The tuning database key: the problem, the candidates' sources and runtime arguments, the target
// and the tools.
inline tuning_key make_key(std::string_view template_name, const std::vector<rocm_template_caller>& callers,
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
inline std::vector<candidate_report> describe_candidates(const std::vector<rocm_template_caller>& callers) {
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
    out.push_back(std::move(cr));
  }
  return out;
}

// Copies what the database knows into the report. True (with report.winner set) when every
// candidate was measured before and a winner is stored: then nothing needs compiling or running.
inline bool lookup_db(const tuning_db& db, autotune_report& report) {
  const auto record = db.find(report.key);
  if (!record) return false;
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
  if (!complete) return false;
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    if (report.candidates[i].id == *record->winner) report.winner = i;
  }
  return report.winner.has_value();
}

// Which candidates need work: all without a database; with one, those it does not know.
inline std::vector<std::size_t> pending_candidates(const tuning_db* db, const autotune_report& report) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    if (!db || !db->find_measurement(report.key, report.candidates[i].id)) todo.push_back(i);
  }
  return todo;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- compile jobs -------------------------------------------------------------------------------

// What a compile job builds.
enum class job_kind : std::uint8_t { helpers, reference, candidate };

// One compile: its source, whether it is device-only, and for a candidate its report row.
struct compile_job {
  job_kind kind = job_kind::candidate;
  std::size_t candidate = 0;  // candidate jobs: index into report.candidates
  std::string source;
  bool code_object = false;  // device-only (it has a launch description and options.device_only)
};

// What one pool compiles, in the order it starts them.
struct compile_jobs {
  std::vector<compile_job> jobs;
  std::optional<launch_description> reference_launch;  // set when the reference compiles device-only

  [[nodiscard]] bool has(job_kind kind) const {
    return std::any_of(jobs.begin(), jobs.end(), [&](const compile_job& j) { return j.kind == kind; });
  }
  [[nodiscard]] std::size_t candidates() const {
    return static_cast<std::size_t>(
        std::count_if(jobs.begin(), jobs.end(), [](const compile_job& j) { return j.kind == job_kind::candidate; }));
  }
};

// The compile order: what the benchmarks need first comes first. The helper kernels (every
// measurement fills its inputs with them), then the first candidate (the first thing to time),
// then the reference (needed only to verify: candidates timed before it runs are verified once it
// has), then the other candidates in the policy's ranked order. Everything device-only where a
// launch description exists and `device_only` is on.
template <class Policy>
compile_jobs plan_compiles(const rocm_template<Policy>& tpl, const size_hints& hints,
                           const std::vector<rocm_template_caller>& callers, const std::vector<std::size_t>& todo,
                           bool benchmark, bool want_reference, bool device_only) {
  compile_jobs plan;
  const bool bench = benchmark && !todo.empty();
  if (bench) plan.jobs.push_back({job_kind::helpers, 0, utility_source, device_only});
  for (std::size_t t = 0; t < todo.size(); ++t) {
    const auto i = todo[t];
    plan.jobs.push_back({job_kind::candidate, i, callers[i].source(), device_only && callers[i].launch().has_value()});
    if (t != 0 || !bench || !want_reference) continue;
    if constexpr (rocm_template<Policy>::has_reference()) {
      auto reference = tpl.generate_reference(hints);
      const bool code_object = device_only && reference.launch().has_value();
      if (code_object) plan.reference_launch = *reference.launch();
      plan.jobs.push_back({job_kind::reference, 0, reference.source(), code_object});
    }
  }
  return plan;
}

// Compiles every job on `threads` threads, in the plan's order; pop() hands out results as they
// finish (any order). Each thread compiles on its own: the code cache locks per key (a file lock),
// NVRTC compiles concurrently, and hipcc/nvcc are processes of their own.
class compile_pool {
 public:
  compile_pool(code_cache& cache, const compiler& cc, const compile_options& options, const compile_jobs& jobs,
               unsigned threads)
      : cache_(cache), cc_(cc), options_(options), device_options_(options), jobs_(jobs) {
    device_options_.output = compile_output::code_object;
    for (unsigned w = 0; w < std::min<std::size_t>(threads, jobs_.jobs.size()); ++w) {
      workers_.emplace_back([this] { work(); });
    }
  }
  compile_pool(const compile_pool&) = delete;
  compile_pool& operator=(const compile_pool&) = delete;
  ~compile_pool() { join(); }

  // Waits for the next finished job.
  compiled_candidate pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !done_.empty(); });
    auto item = std::move(done_.front());
    done_.pop_front();
    return item;
  }

  void join() { workers_.clear(); }

 private:
  void work() {
    for (std::size_t j = next_++; j < jobs_.jobs.size(); j = next_++) {
      const auto& job = jobs_.jobs[j];
      compiled_candidate result{j, std::nullopt, {}, false};
      try {
        result.result = cache_.get_or_compile(cc_, job.source, job.code_object ? device_options_ : options_);
        result.code_object = job.code_object;
      } catch (const std::exception& e) {
        result.error = e.what();
      }
      {
        std::lock_guard lock(mutex_);
        done_.push_back(std::move(result));
      }
      ready_.notify_one();
    }
  }

  code_cache& cache_;
  const compiler& cc_;
  const compile_options& options_;
  compile_options device_options_;  // the same, device-only
  const compile_jobs& jobs_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<compiled_candidate> done_;
  std::atomic<std::size_t> next_{0};
  std::vector<std::jthread> workers_;  // last: joined before the members they use go away
};

// ---- where candidates are measured --------------------------------------------------------------

// A finished compile of the helpers or the reference as a binary.
inline compiled_binary binary_of(const compiled_candidate& item) {
  return {item.result ? item.result->library : std::filesystem::path(), item.code_object};
}

// Copies a later verification into a measurement that was timed before the reference existed:
// its verdict, its error, and its failure (with the reason) when it failed.
inline void merge_verification(measurement& timed, const measurement& verification) {
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
inline std::shared_ptr<worker_pool> start_workers(const std::filesystem::path& exe, nlohmann::json setup,
                                                  std::chrono::milliseconds timeout, std::string model) {
  return std::make_shared<worker_pool>(visible_devices(gpu_runtime::instance().device_count()),
                                       process_worker_factory(exe), std::move(setup),
                                       worker_pool_options{timeout, timeout * 4, true, std::move(model)});
}

// What a worker pool job's result says about its candidate, and the GPU its worker ran it on (its
// visibility value and model). A worker whose job crashed, hung or failed to launch (its GPU
// context may be broken) is replaced by the pool before its next job.
inline measurement pool_measurement(const pool_job_result& r) {
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

// Where candidates are measured: in this process, or (options.isolate) in worker processes, one
// per visible GPU (worker_pool.hpp), that may crash or hang without taking the tuner with them.
// The steps, in order: setup_helpers() (the inputs), measure() any number of candidates,
// run_reference() (once its compile is done; every worker runs it before its next job), then
// verify() the candidates measured before it; measure() verifies on its own once the reference
// ran. measure() and verify() return a ticket: isolated, several are under way at once. fail()
// makes every later step skip with its reason.
class candidate_bench {
 public:
  // `model`: the device model of the tuning key; isolated, workers on GPUs of another model take
  // no jobs, so every measurement is of that model.
  candidate_bench(const autotune_options& options, const rocm_benchmark_request& request, std::string model = {})
      : options_(options),
        request_(request),
        tolerance_(options.verify ? default_tolerance(request.output_tensor_meta.type) : 1e300),
        model_(std::move(model)) {}

  // Loads the helper kernels and fills the inputs (in the worker: prepares its setup command).
  void setup_helpers(const compiled_binary& helpers) {
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
  void run_reference(const compiled_binary& reference, const std::optional<launch_description>& launch) {
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

  // From now on every step is skipped with `why`.
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }

  [[nodiscard]] const std::string& setup_error() const noexcept { return error_; }
  [[nodiscard]] bool has_reference() const noexcept { return has_reference_; }

  // Isolated mode: starts the pool's worker processes (one per visible GPU) now, so that their GPU
  // contexts are created while the candidates compile; they are set up once the helper kernels are
  // built. Does nothing when no worker is found (setup_helpers() then says why).
  void prestart() {
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

  // A measurement under way: taken in this process (done at once), or a job of the worker pool.
  struct ticket {
    std::optional<measurement> done;
    std::future<pool_job_result> job;
    [[nodiscard]] bool ready() const {
      return done.has_value() || job.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    }
    // The measurement (waits for the job).
    measurement get() {
      if (done) return *done;
      return pool_measurement(job.get());
    }
  };

  // Verifies (once the reference ran), then times; isolated, on whichever GPU's worker is free.
  ticket measure(const candidate_report& c, const rocm_template_caller& caller) {
    return options_.isolate ? submit_isolated("measure", c, caller) : ticket{run_in_process(c, caller, false), {}};
  }

  // Verifies a candidate measured before the reference ran (status, verified, max_error).
  ticket verify(const candidate_report& c, const rocm_template_caller& caller) {
    return options_.isolate ? submit_isolated("verify", c, caller) : ticket{run_in_process(c, caller, true), {}};
  }

 private:
  void prepare_worker(const compiled_binary& helpers) {
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

  // The benchmark's size arguments (the reference takes no runtime arguments).
  [[nodiscard]] std::vector<std::int64_t> sizes() const {
    return {request_.extra_args.begin(),
            request_.extra_args.begin() + static_cast<std::ptrdiff_t>(request_.size_arg_count)};
  }

  [[nodiscard]] bound_launch bind_reference(const launch_description& d) const {
    return bind(d, sizes(), {}, gpu_runtime::instance().kind() == platform::amd);
  }

  measurement run_in_process(const candidate_report& c, const rocm_template_caller& caller, bool verify_only) {
    const auto& r = caller.bmreq();
    const auto run = [&](const auto& k) {
      return verify_only ? verify_candidate(*bench_, k, r.extra_args, tolerance_)
                         : measure_candidate(*bench_, k, r.extra_args, tolerance_);
    };
    measurement m;
    try {
      if (c.code_object) {
        m = run(module_kernel(std::make_shared<code_object>(c.library), bound_launch_of(caller), r.extra_args));
      } else {
        auto lib = std::make_shared<shared_library>(c.library);
        m = run(kernel_entry(lib, r.kernel_name, r.signature));
      }
    } catch (const std::exception& e) {
      m.status = candidate_status::launch_failed;
      m.reason = e.what();
    }
    m.device = device_name_;  // where it ran: this process's device
    m.device_id = device_id_;
    return m;
  }

  // The caller's launch description bound to its benchmark sizes and runtime arguments.
  static bound_launch bound_launch_of(const rocm_template_caller& caller) {
    const auto& r = caller.bmreq();
    const auto split = r.extra_args.begin() + static_cast<std::ptrdiff_t>(r.size_arg_count);
    const bool amd = gpu_runtime::instance().kind() == platform::amd;
    return bind(*caller.launch(), {r.extra_args.begin(), split}, {split, r.extra_args.end()}, amd);
  }

  // A binary in a worker command: `library`, or `code_object` with its bound `launch`.
  static void add_binary(nlohmann::json& cmd, const compiled_binary& b, const std::optional<bound_launch>& launch) {
    if (b.code_object) {
      cmd["code_object"] = b.path.string();
      cmd["launch"] = launch_to_json(*launch);
    } else {
      cmd["library"] = b.path.string();
    }
  }

  // A `measure` or `verify` job for the pool.
  ticket submit_isolated(const char* op, const candidate_report& c, const rocm_template_caller& caller) {
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

  [[nodiscard]] std::chrono::milliseconds timeout() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(options_.candidate_timeout);
  }

  const autotune_options& options_;
  const rocm_benchmark_request& request_;
  double tolerance_;
  std::string model_;        // the tuning key's device model (isolated: every worker's)
  std::string device_id_;    // in this process: the device's index ...
  std::string device_name_;  // ... and its model
  std::string error_;
  bool has_reference_ = false;
  std::unique_ptr<utility_kernels> util_;
  std::unique_ptr<bench> bench_;
  std::shared_ptr<worker_pool> pool_;  // isolated mode: this tune's, or options.workers
};

// Records what a finished compile produced, then starts measuring the candidate (or says why not:
// nullopt, with the reason in c.result). `Bench`: candidate_bench, or a test's stand-in with
// setup_error() and measure(c, caller) (returning a measurement, or a ticket with ready() and get()).
template <class Bench, class Caller>
auto measure_compiled(autotune_report& report, candidate_report& c, const compiled_candidate& item,
                      const Caller& caller, Bench& bench) -> std::optional<decltype(bench.measure(c, caller))> {
  if (!item.result) {
    c.result.status = candidate_status::compile_failed;
    c.result.reason = item.error;
    return std::nullopt;
  }
  c.library = item.result->library;
  c.resources = item.result->resources;
  c.compile_seconds = item.result->seconds;
  c.compile_cached = item.result->cached;
  c.code_object = item.code_object;
  c.compile_command = item.result->argv;
  if (!report.gpu || !bench.setup_error().empty()) {
    c.result.status = candidate_status::skipped;
    c.result.reason = !report.gpu ? "no GPU" : bench.setup_error();
    return std::nullopt;
  }
  ++report.benchmarked;
  return bench.measure(c, caller);
}

// A measurement under way (a Bench's ticket with ready() and get()), or one taken at once.
template <class Ticket>
bool ticket_ready(const Ticket& t) {
  if constexpr (std::is_same_v<Ticket, measurement>) {
    return true;
  } else {
    return t.ready();
  }
}
template <class Ticket>
measurement ticket_get(Ticket& t) {
  if constexpr (std::is_same_v<Ticket, measurement>) {
    return t;
  } else {
    return t.get();
  }
}

// The benchmark side of a tune: takes each finished compile as it comes and does what it allows.
// The helpers set up the bench (candidates finished before them wait); the reference runs as soon
// as the bench is set up; candidates are measured at once, and those measured before the reference
// ran are verified when it has. Measurements may be under way several at once (isolated: one per
// GPU's worker); each is taken as it finishes, in the order they started. A measurement is stored
// in the database once it is final (verified or failed), so an interrupted tune loses nothing it
// could trust. Every candidate is verified before pick_and_store() may pick it.
// `Pool`: compile_pool, or a test's stand-in with pop(); `Bench`: candidate_bench or a stand-in
// (setup_helpers, run_reference, fail, setup_error, has_reference, measure, verify; measure and
// verify return a measurement or a ticket with ready() and get()); `Callers`: indexable by
// candidate row.
template <class Pool, class Bench, class Callers>
class bench_loop {
  using ticket = decltype(std::declval<Bench&>().measure(std::declval<const candidate_report&>(),
                                                         std::declval<const Callers&>()[0]));
  // A measurement (or a verification) under way.
  struct in_flight {
    std::size_t index;  // candidate row
    ticket work;
    bool verify;    // a verification of a timed candidate
    bool verified;  // started once the reference ran: it verifies too
  };

 public:
  bench_loop(autotune_report& report, const Callers& callers, const compile_jobs& jobs, Bench& bench, tuning_db* db,
             progress_line& progress, std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now())
      : started_(started),
        report_(report),
        callers_(callers),
        jobs_(jobs),
        bench_(bench),
        db_(db),
        progress_(progress),
        helpers_ready_(!jobs.has(job_kind::helpers)),
        reference_expected_(jobs.has(job_kind::reference)),
        total_(jobs.candidates()) {}

  // Takes every job of the plan from `pool`.
  void run(Pool& pool) {
    for (std::size_t n = 0; n < jobs_.jobs.size(); ++n) {
      auto item = pool.pop();
      if (n + 1 == jobs_.jobs.size()) report_.timeline.compiles_done = now();
      on_compiled(std::move(item));
      collect(false);
    }
    collect(true);
    report_.timeline.measured_done = now();
  }

 private:
  void on_compiled(compiled_candidate item) {
    switch (jobs_.jobs[item.index].kind) {
      case job_kind::helpers: on_helpers(std::move(item)); break;
      case job_kind::reference: on_reference(std::move(item)); break;
      case job_kind::candidate: on_candidate(std::move(item)); break;
    }
  }

  void on_helpers(compiled_candidate item) {
    if (item.result) {
      bench_.setup_helpers(binary_of(item));
    } else {
      bench_.fail("helper kernels failed to compile: " + item.error);
    }
    helpers_ready_ = true;
    report_.timeline.helpers_ready = now();
    if (held_reference_) on_reference(*std::exchange(held_reference_, std::nullopt));
    while (!early_.empty()) {
      auto next = std::move(early_.front());
      early_.pop_front();
      measure(next);
    }
  }

  void on_reference(compiled_candidate item) {
    if (!helpers_ready_) {
      held_reference_ = std::move(item);
      return;
    }
    if (item.result) {
      bench_.run_reference(binary_of(item), jobs_.reference_launch);
    } else {
      bench_.fail("reference failed to compile: " + item.error);
    }
    reference_done_ = true;
    report_.timeline.reference_ready = now();
    verify_pending();
  }

  void on_candidate(compiled_candidate item) {
    if (!helpers_ready_) {
      early_.push_back(std::move(item));
      return;
    }
    measure(item);
  }

  void measure(const compiled_candidate& item) {
    const std::size_t index = jobs_.jobs[item.index].candidate;
    auto& c = report_.candidates[index];
    // Started once the reference ran: the measurement verifies too (a worker runs the reference
    // before its next job).
    const bool verifies = bench_.has_reference();
    if (auto t = measure_compiled(report_, c, item, callers_[index], bench_)) {
      running_.push_back({index, std::move(*t), false, verifies});
    } else {
      record(c);
    }
  }

  // Takes the measurements under way that have finished (all of them, waiting, when `wait`), in
  // the order they started.
  void collect(bool wait) {
    while (!running_.empty() && (wait || ticket_ready(running_.front().work))) {
      auto r = std::move(running_.front());
      running_.pop_front();
      finish(r);
    }
  }

  void finish(in_flight& r) {
    auto& c = report_.candidates[r.index];
    measurement m = ticket_get(r.work);
    if (r.verify) {
      merge_verification(c.result, m);
      record(c);
      return;
    }
    m.candidate = c.id;
    m.config = c.config;
    m.source_hash = c.result.source_hash;
    c.result = m;
    if (report_.timeline.first_measured == 0 && c.result.repetitions > 0) report_.timeline.first_measured = now();
    // Timed without the reference (a pool's job verifies when its worker had run the reference).
    if (reference_expected_ && !r.verified && !c.result.verified && c.result.status == candidate_status::ok) {
      if (reference_done_) {
        verify(r.index);  // the reference ran while it was measured
      } else {
        pending_.push_back(r.index);  // timed; verified once the reference ran
      }
      return;
    }
    record(c);
  }

  void verify_pending() {
    for (const auto index : std::exchange(pending_, {})) verify(index);
  }

  // Starts verifying a timed candidate, or skips it when the reference did not run.
  void verify(std::size_t index) {
    auto& c = report_.candidates[index];
    if (!bench_.setup_error().empty() || !bench_.has_reference()) {
      c.result.status = candidate_status::skipped;
      c.result.reason = bench_.setup_error();
      record(c);
      return;
    }
    running_.push_back({index, bench_.verify(c, callers_[index]), true, true});
  }

  // A final measurement: stored, counted, shown.
  void record(const candidate_report& c) {
    if (db_ && c.result.status != candidate_status::skipped) db_->add_measurement(report_.key, c.result);
    if (c.result.status == candidate_status::ok && (best_ms_ == 0 || c.result.min_ms < best_ms_)) {
      best_ms_ = c.result.min_ms;
    }
    ++finished_;
    progress_.update(fmt::format("rocmtpl: {} {}/{} candidates, best {:.4f} ms", report_.gpu ? "tuned" : "compiled",
                                 finished_, total_, best_ms_));
  }

  [[nodiscard]] double now() const { return seconds_since(started_); }

  std::chrono::steady_clock::time_point started_;
  autotune_report& report_;
  const Callers& callers_;
  const compile_jobs& jobs_;
  Bench& bench_;
  tuning_db* db_;
  progress_line& progress_;
  bool helpers_ready_;
  bool reference_expected_;
  bool reference_done_ = false;
  std::optional<compiled_candidate> held_reference_;  // compiled before the helpers
  std::deque<compiled_candidate> early_;              // candidates compiled before the helpers
  std::vector<std::size_t> pending_;                  // rows timed before the reference ran
  std::deque<in_flight> running_;                     // measurements and verifications under way
  std::size_t total_;
  std::size_t finished_ = 0;
  double best_ms_ = 0;
};

// Picks the fastest ok (and, where the template has a reference, verified) candidate and stores it
// as the winner; candidates the database already knew keep its measurement.
inline void pick_and_store(autotune_report& report, tuning_db* db, bool require_verified) {
  if (db) {
    for (auto& c : report.candidates) {
      if (c.result.repetitions == 0 && c.result.status == candidate_status::ok) {
        if (auto m = db->find_measurement(report.key, c.id)) c.result = *m;
      }
    }
  }
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    const auto& m = report.candidates[i].result;
    if (m.status != candidate_status::ok || !(m.min_ms > 0)) continue;
    if (require_verified && !m.verified) continue;
    if (!report.winner || m.min_ms < report.candidates[*report.winner].result.min_ms) report.winner = i;
  }
  if (db && report.winner) db->set_winner(report.key, report.candidates[*report.winner].id);
}

}  // namespace detail

/// @brief Benchmark workers to keep across tunes (autotune_options::workers): one per visible GPU,
/// started now, so that a batch of problems pays for the worker processes and their GPU contexts
/// once. Each tune sets the workers up for its problem (worker_pool::begin()).
/// @return the pool, or null when @p options is not isolated, no GPU is there, or no
///         rocmtpl-bench-worker is found (each tune then says why, as without a pool)
[[nodiscard]] inline std::shared_ptr<worker_pool> make_worker_pool(const autotune_options& options) {
  if (!options.isolate || !gpu_runtime::instance().available()) return nullptr;
  const auto exe = find_worker();
  if (!exe) return nullptr;
  const auto& rt = gpu_runtime::instance();
  return detail::start_workers(*exe, nullptr,
                               std::chrono::duration_cast<std::chrono::milliseconds>(options.candidate_timeout),
                               rt.properties(rt.current_device()).name);  // the tuning keys' device model
}

/// @brief Tunes a template for a problem and returns the report; the winner is stored in the
/// tuning database, so the same problem later returns at once (no compile, no benchmark).
///
/// With a GPU: compiles every candidate in parallel (device-only, with the helper kernels and the
/// reference, where launches are described and options.device_only is on), benchmarks each as its
/// compile finishes (isolated: on one worker per visible GPU, several at once), verifies it
/// against the template's reference (candidates timed before the reference ran are verified once
/// it has), and picks the fastest verified one. Without a GPU: compiles for `options.amd_archs`,
/// reports resource usage, and says that benchmarking needs a GPU (report.gpu is false, nothing is
/// stored).
/// @throws invalid_argument_error when `ROCMTPL_PLATFORM` names no platform.
/// @throws compiler_not_found_error when no compiler exists for the platform.
template <class Policy>
requires kernel_template<Policy>
[[nodiscard]] autotune_report autotune(const rocm_template<Policy>& tpl, const size_hints& hints,
                                       const autotune_options& options = {}) {
  const auto started = std::chrono::steady_clock::now();
  autotune_report report;
  const auto callers = detail::collect_candidates(tpl, hints, options);
  auto device = detail::find_device(report);
  compile_options copts = detail::target_compile_options(report.gpu, device, options);
  compiler cc = compiler::find(copts.platform);
  report.compile = copts;
  report.key = detail::make_key(tpl.name(), callers, hints, device, options, cc);
  report.candidates = detail::describe_candidates(callers);

  // Warm path: every candidate already measured and a winner stored -> no compile, no benchmark.
  std::unique_ptr<tuning_db> db;
  if (options.use_database && report.gpu) {
    db = std::make_unique<tuning_db>(options.database.empty() ? tuning_db::default_path() : options.database);
    if (detail::lookup_db(*db, report)) {
      report.from_database = true;
      report.wall_seconds = detail::seconds_since(started);
      return report;
    }
  }

  // Work to do: the runtime must really be there (a cached identity is only a fingerprint).
  if (report.gpu && !gpu_runtime::instance().available()) {
    report.gpu = false;
    report.gpu_status = gpu_runtime::instance().status();
    copts = detail::target_compile_options(report.gpu, device, options);
    cc = compiler::find(copts.platform);
    report.compile = copts;
  }
  code_cache cache(options.cache_dir.empty() ? code_cache::default_root() : options.cache_dir);
  const std::size_t compiles_before = cache.compiles();
  detail::progress_line progress(options.progress.value_or(::isatty(2) != 0));

  const auto todo = detail::pending_candidates(db.get(), report);
  const bool want_reference = report.gpu && options.verify && rocm_template<Policy>::has_reference();
  const auto jobs = detail::plan_compiles(tpl, hints, callers, todo, report.gpu, want_reference, options.device_only);
  detail::candidate_bench bench(options, callers.front().bmreq(), report.key.device);
  if (jobs.has(detail::job_kind::helpers)) bench.prestart();  // its GPU context starts while compiles run
  // One compile per core: measured on the 16-core H100 box, two per core made each compile twice as slow.
  const unsigned threads = std::max(1U, options.jobs != 0 ? options.jobs : std::thread::hardware_concurrency());
  report.timeline.compiles_started = detail::seconds_since(started);
  detail::compile_pool pool(cache, cc, copts, jobs, threads);
  detail::bench_loop<detail::compile_pool, detail::candidate_bench, std::vector<rocm_template_caller>> loop(
      report, callers, jobs, bench, db.get(), progress, started);
  loop.run(pool);
  pool.join();

  detail::pick_and_store(report, db.get(), options.verify && rocm_template<Policy>::has_reference());
  report.compiled = cache.compiles() - compiles_before;
  report.wall_seconds = detail::seconds_since(started);
  return report;
}

}  // namespace rocmtpl::runtime

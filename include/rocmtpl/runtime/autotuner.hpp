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
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime/benchmark.hpp>
#include <rocmtpl/runtime/code_cache.hpp>
#include <rocmtpl/runtime/compiler.hpp>
#include <rocmtpl/runtime/device_identity.hpp>
#include <rocmtpl/runtime/gpu_runtime.hpp>
#include <rocmtpl/runtime/measure.hpp>
#include <rocmtpl/runtime/module_launcher.hpp>
#include <rocmtpl/runtime/tuning_db.hpp>
#include <rocmtpl/runtime/utility_kernels.hpp>
#include <rocmtpl/runtime/worker_pool.hpp>
#include <rocmtpl/version.hpp>

namespace rocmtpl::runtime {

/// @brief How the autotuner works.
struct autotune_options {
  unsigned jobs = 0;                           ///< parallel compiles; 0 = one per core
  benchmark_options bench{};                   ///< timing protocol
  bool verify = true;                          ///< verify every candidate against the template's reference
  bool isolate = false;                        ///< benchmark in a worker process that may crash (tools turn this on)
  std::chrono::seconds candidate_timeout{60};  ///< isolated mode: a candidate silent this long is killed
  std::size_t max_candidates = 0;              ///< first N of the policy's ranked configs; 0 = all
  bool use_database = true;                    ///< read and write the tuning database
  std::filesystem::path database{};            ///< empty: tuning_db::default_path()
  std::filesystem::path cache_dir{};           ///< empty: code_cache::default_root()
  std::optional<bool> progress{};              ///< progress line on stderr; default: when stderr is a terminal
  std::vector<std::string> amd_archs{"gfx90a", "gfx940"};  ///< targets compiled when no GPU is present
  /// Candidates whose policy describes its launch (kernel_capabilities::launch) are compiled to
  /// device-only code objects and launched through the module API (runtime/module_launcher.hpp);
  /// off: every candidate is a shared library called through its C entry.
  bool device_only = true;
};

/// @brief One candidate in a report.
struct candidate_report {
  std::string name;    ///< choice name (rocm_<template>_<n>)
  std::string id;      ///< stable identity: the caller's hash_key (source hash and extra arguments)
  std::string config;  ///< configuration text
  measurement result;  ///< status, times, verification (result.candidate == id)
  std::vector<kernel_resource_usage> resources;
  double compile_seconds = 0;
  bool compile_cached = false;
  std::filesystem::path library;  ///< the shared library, or the code object when `code_object`
  bool code_object = false;       ///< compiled device-only, measured through the module API
};

/// @brief What a tune did and found.
struct autotune_report {
  tuning_key key;
  std::vector<candidate_report> candidates;
  std::optional<std::size_t> winner;  ///< index into candidates
  bool gpu = false;                   ///< benchmarked on a GPU
  std::string gpu_status;             ///< the runtime's status line
  bool from_database = false;         ///< answered from the tuning database: nothing compiled or run
  std::size_t compiled = 0;           ///< compiler processes spawned
  std::size_t benchmarked = 0;        ///< candidates measured in this run
  double wall_seconds = 0;

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

  /// @brief Everything as JSON (the CLI's --json).
  [[nodiscard]] nlohmann::json to_json() const {
    nlohmann::json cs = nlohmann::json::array();
    for (const auto& c : candidates) {
      // The code cache's record of each kernel's resources (one JSON shape), plus the spill total.
      nlohmann::json res = detail::code_cache_impl::resources_to_json(c.resources);
      for (std::size_t r = 0; r < c.resources.size(); ++r) res[r]["spills"] = c.resources[r].spills();
      cs.push_back({{"name", c.name},
                    {"id", c.id},
                    {"config", c.config},
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
            {"candidates", cs}};
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
      if (k != "backend" && k != "name") fields.push_back(k + "=" + v);
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

// What one pool compiles: the helper kernels and the reference first (the benchmarks wait for
// them), then the pending candidates from `first_candidate` on.
struct compile_jobs {
  std::vector<std::string> sources;
  std::vector<bool> code_object;  // per job: device-only (the candidate has a launch description)
  std::size_t first_candidate = 0;
};

template <class Policy>
compile_jobs plan_compiles(const rocm_template<Policy>& tpl, const size_hints& hints,
                           const std::vector<rocm_template_caller>& callers, const std::vector<std::size_t>& todo,
                           bool benchmark, bool want_reference, bool device_only) {
  compile_jobs jobs;
  if (benchmark && !todo.empty()) {
    jobs.sources.emplace_back(utility_source);
    if constexpr (rocm_template<Policy>::has_reference()) {
      if (want_reference) jobs.sources.push_back(tpl.generate_reference(hints).source());
    }
  }
  jobs.first_candidate = jobs.sources.size();
  jobs.code_object.assign(jobs.first_candidate, false);
  for (auto i : todo) {
    jobs.sources.push_back(callers[i].source());
    jobs.code_object.push_back(device_only && callers[i].launch().has_value());
  }
  return jobs;
}

// Compiles every job on `jobs` threads; pop() hands out results as they finish (any order).
class compile_pool {
 public:
  compile_pool(code_cache& cache, const compiler& cc, const compile_options& options, const compile_jobs& jobs,
               unsigned threads)
      : cache_(cache), cc_(cc), options_(options), device_options_(options), jobs_(jobs) {
    device_options_.output = compile_output::code_object;
    for (unsigned w = 0; w < std::min<std::size_t>(threads, jobs_.sources.size()); ++w) {
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
    for (std::size_t j = next_++; j < jobs_.sources.size(); j = next_++) {
      compiled_candidate result{j, std::nullopt, {}, false};
      try {
        result.result = cache_.get_or_compile(cc_, jobs_.sources[j], jobs_.code_object[j] ? device_options_ : options_);
        result.code_object = jobs_.code_object[j];
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

// The compiled helper kernels and reference, or why they are missing.
struct bench_libraries {
  std::filesystem::path utility;
  std::filesystem::path reference;
  std::string error;
};

// Waits for the helper and reference jobs; candidates that finish first are kept in `early`.
inline bench_libraries wait_for_bench_libraries(compile_pool& pool, std::size_t first_candidate,
                                                std::deque<compiled_candidate>& early) {
  bench_libraries libs;
  for (std::size_t got = 0; got < first_candidate;) {
    auto item = pool.pop();
    if (item.index >= first_candidate) {
      early.push_back(std::move(item));
      continue;
    }
    ++got;
    if (!item.result) {
      libs.error =
          (item.index == 0 ? "helper kernels failed to compile: " : "reference failed to compile: ") + item.error;
    } else {
      (item.index == 0 ? libs.utility : libs.reference) = item.result->library;
    }
  }
  return libs;
}

// Where candidates are measured: in this process, or (options.isolate) in a worker process that
// may crash or hang without taking the tuner with it.
class candidate_bench {
 public:
  candidate_bench(const autotune_options& options, const rocm_benchmark_request& request)
      : options_(options),
        request_(request),
        tolerance_(options.verify ? default_tolerance(request.output_tensor_meta.type) : 1e300) {}

  // Loads the helper kernels and the reference output; afterwards error() says why measuring is
  // impossible (empty when it is possible).
  void setup(const bench_libraries& libs) {
    error_ = libs.error;
    if (!error_.empty()) return;
    try {
      if (options_.isolate) {
        prepare_worker(libs);
      } else {
        prepare_in_process(libs);
      }
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }

  [[nodiscard]] const std::string& setup_error() const noexcept { return error_; }

  // Isolated mode: starts the pool's worker processes (one per visible GPU) now, so that their GPU
  // contexts are created while the candidates compile; setup() gives them their setup command
  // once the helper kernels and the reference are built. Does nothing when no worker is found
  // (setup() then says why).
  void prestart() {
    if (!options_.isolate || pool_) return;
    try {
      if (auto exe = find_worker()) pool_ = make_pool(*exe, nullptr);
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
  };

  // Starts measuring one candidate; isolated, it runs on whichever GPU's worker is free.
  ticket measure(const candidate_report& c, const rocm_template_caller& caller) {
    if (!options_.isolate) return {measure_in_process(c, caller), {}};
    return submit_isolated(c, caller);
  }

  // The measurement of a ticket (waits for the job).
  static measurement result(ticket& t) {
    if (t.done) return *t.done;
    auto r = t.job.get();
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
    return m;
  }

 private:
  void prepare_worker(const bench_libraries& libs) {
    auto exe = find_worker();
    if (!exe)
      throw ::rocmtpl::error("rocmtpl: autotune: isolation needs rocmtpl-bench-worker (set ROCMTPL_BENCH_WORKER)");
    nlohmann::json setup{{"op", "setup"},
                         {"utility_library", libs.utility.string()},
                         {"request", request_to_json(request_)},
                         {"reference_library", libs.reference.string()},
                         {"options", options_to_json(options_.bench)}};
    if (pool_) {
      pool_->set_setup(std::move(setup));
    } else {
      pool_ = make_pool(*exe, std::move(setup));
    }
  }

  // One worker per visible GPU (runtime/worker_pool.hpp): a crashed or hung worker is restarted on
  // its GPU, and GPUs of different models are not mixed.
  std::unique_ptr<worker_pool> make_pool(const std::filesystem::path& exe, nlohmann::json setup) const {
    return std::make_unique<worker_pool>(visible_devices(gpu_runtime::instance().device_count()),
                                         process_worker_factory(exe), std::move(setup),
                                         worker_pool_options{timeout(), timeout() * 4, true});
  }

  void prepare_in_process(const bench_libraries& libs) {
    util_ = std::make_unique<utility_kernels>(libs.utility);
    bench_ = std::make_unique<bench>(request_, *util_, options_.bench);
    if (libs.reference.empty()) return;
    auto lib = std::make_shared<shared_library>(libs.reference);
    bench_->run_reference(kernel_entry(lib, request_.kernel_name, reference_signature(request_)));
  }

  measurement measure_in_process(const candidate_report& c, const rocm_template_caller& caller) {
    const auto& r = caller.bmreq();
    measurement m;
    try {
      if (c.code_object) {
        const module_kernel k(std::make_shared<code_object>(c.library), bound_launch_of(caller), r.extra_args);
        m = measure_candidate(*bench_, k, r.extra_args, tolerance_);
      } else {
        auto lib = std::make_shared<shared_library>(c.library);
        kernel_entry k(lib, r.kernel_name, r.signature);
        m = measure_candidate(*bench_, k, r.extra_args, tolerance_);
      }
    } catch (const std::exception& e) {
      m.status = candidate_status::launch_failed;
      m.reason = e.what();
    }
    return m;
  }

  // The caller's launch description bound to its benchmark sizes and runtime arguments.
  static bound_launch bound_launch_of(const rocm_template_caller& caller) {
    const auto& r = caller.bmreq();
    const auto split = r.extra_args.begin() + static_cast<std::ptrdiff_t>(r.size_arg_count);
    const bool amd = gpu_runtime::instance().kind() == platform::amd;
    return bind(*caller.launch(), {r.extra_args.begin(), split}, {split, r.extra_args.end()}, amd);
  }

  ticket submit_isolated(const candidate_report& c, const rocm_template_caller& caller) {
    const auto& r = caller.bmreq();
    nlohmann::json cmd{{"op", "measure"}, {"extra_args", r.extra_args}, {"tolerance", tolerance_}};
    if (c.code_object) {
      try {
        cmd["launch"] = launch_to_json(bound_launch_of(caller));
      } catch (const std::exception& e) {
        measurement m;
        m.status = candidate_status::launch_failed;
        m.reason = e.what();
        return {m, {}};
      }
      cmd["code_object"] = c.library.string();
    } else {
      cmd["library"] = c.library.string();
    }
    return {std::nullopt, pool_->submit(std::move(cmd))};
  }

  [[nodiscard]] std::chrono::milliseconds timeout() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(options_.candidate_timeout);
  }

  const autotune_options& options_;
  const rocm_benchmark_request& request_;
  double tolerance_;
  std::string error_;
  std::unique_ptr<utility_kernels> util_;
  std::unique_ptr<bench> bench_;
  std::unique_ptr<worker_pool> pool_;  // isolated mode
};

// Records what a finished compile produced, then starts measuring the candidate (or says why not:
// nullopt, with the reason in c.result).
inline std::optional<candidate_bench::ticket> measure_compiled(autotune_report& report, candidate_report& c,
                                                               const compiled_candidate& item,
                                                               const rocm_template_caller& caller,
                                                               candidate_bench& bench) {
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
  if (!report.gpu || !bench.setup_error().empty()) {
    c.result.status = candidate_status::skipped;
    c.result.reason = !report.gpu ? "no GPU" : bench.setup_error();
    return std::nullopt;
  }
  ++report.benchmarked;
  return bench.measure(c, caller);
}

// Takes each pending candidate as its compile finishes (those kept in `early` first) and starts
// measuring it (isolated: on whichever GPU's worker is free); stores each measurement as it
// arrives, so an interrupted tune loses nothing.
inline void benchmark_as_ready(autotune_report& report, const std::vector<rocm_template_caller>& callers,
                               const std::vector<std::size_t>& todo, std::size_t first_candidate, compile_pool& pool,
                               std::deque<compiled_candidate> early, candidate_bench& bench, tuning_db* db,
                               progress_line& progress) {
  double best_ms = 0;
  std::size_t received = 0;
  auto done = [&](candidate_report& c) {
    if (db && c.result.status != candidate_status::skipped) db->add_measurement(report.key, c.result);
    if (c.result.status == candidate_status::ok && (best_ms == 0 || c.result.min_ms < best_ms)) {
      best_ms = c.result.min_ms;
    }
    progress.update(fmt::format("rocmtpl: {} {}/{} candidates, best {:.4f} ms", report.gpu ? "tuned" : "compiled",
                                ++received, todo.size(), best_ms));
  };
  std::deque<std::pair<std::size_t, candidate_bench::ticket>> running;
  auto finish = [&](std::pair<std::size_t, candidate_bench::ticket>& r) {
    auto& c = report.candidates[r.first];
    measurement m = candidate_bench::result(r.second);
    m.candidate = c.id;
    m.config = c.config;
    m.source_hash = c.result.source_hash;
    c.result = m;
    done(c);
  };
  for (std::size_t taken = 0; taken < todo.size(); ++taken) {
    compiled_candidate item;
    if (!early.empty()) {
      item = std::move(early.front());
      early.pop_front();
    } else {
      item = pool.pop();
    }
    const std::size_t index = todo[item.index - first_candidate];
    auto& c = report.candidates[index];
    if (auto t = measure_compiled(report, c, item, callers[index], bench)) {
      running.emplace_back(index, std::move(*t));
    } else {
      done(c);
    }
    while (!running.empty() && running.front().second.ready()) {
      finish(running.front());
      running.pop_front();
    }
  }
  for (auto& r : running) finish(r);
}

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

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace detail

/// @brief Tunes a template for a problem and returns the report; the winner is stored in the
/// tuning database, so the same problem later returns at once (no compile, no benchmark).
///
/// With a GPU: compiles every candidate in parallel, benchmarks each as its compile finishes,
/// verifies it against the template's reference, and picks the fastest verified one. Without a
/// GPU: compiles for `options.amd_archs`, reports resource usage, and says that benchmarking needs
/// a GPU (report.gpu is false, nothing is stored).
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
  }
  code_cache cache(options.cache_dir.empty() ? code_cache::default_root() : options.cache_dir);
  const std::size_t compiles_before = cache.compiles();
  detail::progress_line progress(options.progress.value_or(::isatty(2) != 0));

  const auto todo = detail::pending_candidates(db.get(), report);
  const bool want_reference = report.gpu && options.verify && rocm_template<Policy>::has_reference();
  const auto jobs = detail::plan_compiles(tpl, hints, callers, todo, report.gpu, want_reference, options.device_only);
  // One compile per core: measured on the 16-core H100 box, two per core made each compile twice as slow.
  const unsigned threads = std::max(1U, options.jobs != 0 ? options.jobs : std::thread::hardware_concurrency());
  detail::compile_pool pool(cache, cc, copts, jobs, threads);
  std::deque<detail::compiled_candidate> early;  // candidates compiled before the bench was ready
  detail::candidate_bench bench(options, callers.front().bmreq());
  if (jobs.first_candidate > 0) bench.prestart();
  if (jobs.first_candidate > 0) bench.setup(detail::wait_for_bench_libraries(pool, jobs.first_candidate, early));
  detail::benchmark_as_ready(report, callers, todo, jobs.first_candidate, pool, std::move(early), bench, db.get(),
                             progress);
  pool.join();

  detail::pick_and_store(report, db.get(), options.verify && rocm_template<Policy>::has_reference());
  report.compiled = cache.compiles() - compiles_before;
  report.wall_seconds = detail::seconds_since(started);
  return report;
}

}  // namespace rocmtpl::runtime

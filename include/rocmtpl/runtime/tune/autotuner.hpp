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
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/bench/worker_pool.hpp>
#include <rocmtpl/runtime/build/amd_emulator.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/db/descriptor_json.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/gpu/device_identity.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/sys/log.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

/// @brief How the autotuner works.
struct autotune_options {
  unsigned jobs = 0;                           ///< parallel compiles; 0 = one per core
  benchmark_options bench{};                   ///< timing protocol
  bool verify = true;                          ///< verify every candidate against the template's reference
  bool isolate = false;                        ///< benchmark in crash-safe workers, one per GPU (tools turn this on)
  std::chrono::seconds candidate_timeout{60};  ///< isolated mode: a candidate silent this long is killed
  std::chrono::seconds compile_timeout{300};   ///< a compile running longer is killed (compile_options::timeout)
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
  /// Run the candidates on the AMD emulator (issue 23; runtime/build/amd_emulator.hpp) instead of a
  /// GPU: compiled by clang++ for the CPU as shared libraries, each run once and verified against
  /// the reference, in this process; correctness only: nothing is timed, no winner is picked and
  /// nothing is stored (report.emulated). The emulator becomes the process's GPU runtime
  /// (use_amd_emulator()), so the process must not have used another GPU runtime before.
  bool emulate_amd = false;
  /// The fastest candidates by minimum time (at most this many, within `finalist_margin` of the
  /// fastest) are timed again in the state of sustained use (bench::time_settled(): each after
  /// benchmark_options::settle_ms of load), and the one with the lowest median there wins. Timed
  /// for a few milliseconds after an idle spell, a candidate's minimum is that of a GPU not yet held
  /// to its power limit: at 8192^3 on the H200 a tile 5-8% faster by its minimum ran 5-10% slower in
  /// back-to-back calls. 0 or 1: the lowest minimum wins.
  std::size_t finalists = 4;
  double finalist_margin = 0.10;  ///< relative to the fastest minimum
  /// Re-time only where the fastest minimum is at least this long (milliseconds): the mis-picks
  /// were measured on kernels of 1.5 ms, and the re-timing would cost the README job's cold tune
  /// (0.18 ms kernels, 32 candidates, 2.5 s) about 1 s.
  double finalist_min_ms = 0.5;
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
  /// A finalist's median when re-timed under sustained load (autotune_options::finalists), milliseconds;
  /// 0: not re-timed. Not stored in the tuning database (its winner is).
  double final_ms = 0;
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
  [[nodiscard]] nlohmann::json to_json() const;
};

/// @brief What a tune did and found.
struct autotune_report {
  tuning_key key;                            ///< the problem's key in the tuning database
  std::vector<candidate_report> candidates;  ///< every candidate, in the policy's ranked order
  std::optional<std::size_t> winner;         ///< index into candidates
  bool gpu = false;                          ///< benchmarked on a GPU (or, when `emulated`, run on the AMD emulator)
  bool emulated = false;        ///< run on the AMD emulator (autotune_options::emulate_amd): verified, nothing timed
  std::string gpu_status;       ///< the runtime's status line
  bool from_database = false;   ///< answered from the tuning database: nothing compiled or run
  std::size_t compiled = 0;     ///< compiler processes spawned
  std::size_t benchmarked = 0;  ///< candidates measured in this run
  double wall_seconds = 0;      ///< wall time of the tune
  compile_options compile{};    ///< what candidates are compiled with (device-only ones as code objects)
  tune_timeline timeline{};     ///< when its steps happened (a cold tune's critical path)

  /// @brief The winning candidate, or nullptr.
  [[nodiscard]] const candidate_report* best() const noexcept { return winner ? &candidates[*winner] : nullptr; }

  /// @brief One line: how many candidates ended in each status, e.g. `32 candidates: 30 ok, 2 compile_failed`.
  [[nodiscard]] std::string summary() const;

  /// @brief Candidates in the order of the pick: the re-timed finalists by their median there,
  /// then the others that ran by minimum time, then those that did not run.
  [[nodiscard]] std::vector<const candidate_report*> ranked() const;

  /// @brief Candidates that ran, in ranked() order, then the failed ones with their reasons.
  void print_table(std::ostream& os, std::size_t top = 0) const;

  /// @brief Where the candidates were timed: `<model> (GPU <id>, ...)` per device model, in the
  /// order first met (one model, unless measurements of several were put in one report by hand);
  /// empty when none was timed on a GPU.
  [[nodiscard]] std::string timed_on() const;

  /// @brief Everything as JSON (the CLI's --json).
  [[nodiscard]] nlohmann::json to_json() const;

 private:
  [[nodiscard]] nlohmann::json compile_options_json(bool code_object) const;
};

namespace detail {
// A one-line progress display on stderr, redrawn in place.
class progress_line {
 public:
  explicit progress_line(bool enabled) : enabled_(enabled) {}
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  void update(const std::string& text);
  ~progress_line();

 private:
  bool enabled_;
  bool shown_ = false;
};

std::string problem_signature(const rocm_benchmark_request& r, const size_hints& hints,
                              const std::vector<std::string>& source_hashes);

struct compiled_candidate {
  std::size_t index;
  std::optional<compile_result> result;
  std::string error;
  bool code_object = false;
};

// The benchmark and verification lines of a candidate's final measurement (info level).
void log_measurement(const candidate_report& c);

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

std::optional<device_identity> find_device(autotune_report& report);

std::pair<compiler, device_identity> start_amd_emulator(autotune_report& report);

autotune_options effective_options(const autotune_options& options);

compile_options target_compile_options(bool gpu, const std::optional<device_identity>& device,
                                       const autotune_options& options);

tuning_key make_key(std::string_view template_name, const std::vector<rocm_template_caller>& callers,
                    const size_hints& hints, const std::optional<device_identity>& device,
                    const autotune_options& options, const compiler& cc);

std::vector<candidate_report> describe_candidates(const std::vector<rocm_template_caller>& callers);

bool lookup_db(const tuning_db& db, autotune_report& report);

std::vector<std::size_t> pending_candidates(const tuning_db* db, const autotune_report& report);

double seconds_since(std::chrono::steady_clock::time_point start);

// ---- compile jobs -------------------------------------------------------------------------------

// What a compile job builds.
enum class job_kind : std::uint8_t { helpers, reference, candidate };

// One compile: its source, whether it is device-only, and for a candidate its report row.
struct compile_job {
  job_kind kind = job_kind::candidate;
  std::size_t candidate = 0;  // candidate jobs: index into report.candidates
  std::string source;
  bool code_object = false;  // device-only (it has a launch description and options.device_only)
  symbol_sets symbols{};     // what the compiled file must define (compile_options::required_symbols)
  std::string name;          // what the log calls it: the candidate's name, "helpers" or "reference"
};

// The symbols a compiled file of `caller` must define: the kernels of one of its launch variants
// (a code object), or its C entry (a shared library).
symbol_sets required_symbols(const rocm_template_caller& caller, bool code_object);

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
  if (bench) {
    plan.jobs.push_back({job_kind::helpers, 0, utility_source, device_only, helper_symbols(device_only), "helpers"});
  }
  for (std::size_t t = 0; t < todo.size(); ++t) {
    const auto i = todo[t];
    const bool device_code = device_only && callers[i].launch().has_value();
    plan.jobs.push_back({job_kind::candidate, i, callers[i].source(), device_code,
                         required_symbols(callers[i], device_code), callers[i].name()});
    if (t != 0 || !bench || !want_reference) continue;
    if constexpr (rocm_template<Policy>::has_reference()) {
      auto reference = tpl.generate_reference(hints);
      const bool code_object = device_only && reference.launch().has_value();
      if (code_object) plan.reference_launch = *reference.launch();
      plan.jobs.push_back({job_kind::reference, 0, reference.source(), code_object,
                           required_symbols(reference, code_object), "reference"});
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
               unsigned threads);
  compile_pool(const compile_pool&) = delete;
  compile_pool& operator=(const compile_pool&) = delete;
  ~compile_pool() { join(); }

  compiled_candidate pop();

  void join() { workers_.clear(); }

 private:
  void work();

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

compiled_binary binary_of(const compiled_candidate& item);

void merge_verification(measurement& timed, const measurement& verification);

std::shared_ptr<worker_pool> start_workers(const std::filesystem::path& exe, nlohmann::json setup,
                                           std::chrono::milliseconds timeout, std::string model);

measurement pool_measurement(const pool_job_result& r);

// Where candidates are measured: in this process, or (options.isolate) in worker processes, one
// per visible GPU (worker_pool.hpp), that may crash or hang without taking the tuner with them.
// The steps, in order: setup_helpers() (the inputs), measure() any number of candidates,
// run_reference() (once its compile is done; every worker runs it before its next job), then
// verify() the candidates measured before it; measure() verifies on its own once the reference
// ran. measure() and verify() return a ticket: isolated, several are under way at once. fail()
// makes every later step skip with its reason.
class candidate_bench {
 public:
  candidate_bench(const autotune_options& options, const rocm_benchmark_request& request, std::string model = {});

  void setup_helpers(const compiled_binary& helpers);

  void run_reference(const compiled_binary& reference, const std::optional<launch_description>& launch);

  // From now on every step is skipped with `why`.
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }

  [[nodiscard]] const std::string& setup_error() const noexcept { return error_; }
  [[nodiscard]] bool has_reference() const noexcept { return has_reference_; }

  void prestart();

  // A measurement under way: taken in this process (done at once), or a job of the worker pool.
  struct ticket {
    std::optional<measurement> done;
    std::future<pool_job_result> job;
    [[nodiscard]] bool ready() const {
      return done.has_value() || job.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    }
    measurement get();
  };

  // Verifies (once the reference ran), then times; isolated, on whichever GPU's worker is free.
  ticket measure(const candidate_report& c, const rocm_template_caller& caller) {
    return options_.isolate ? submit_isolated("measure", c, caller) : ticket{run_in_process(c, caller, false), {}};
  }

  // Verifies a candidate measured before the reference ran (status, verified, max_error).
  ticket verify(const candidate_report& c, const rocm_template_caller& caller) {
    return options_.isolate ? submit_isolated("verify", c, caller) : ticket{run_in_process(c, caller, true), {}};
  }

  // Times the candidates `rows` (measured in this run) under sustained load (bench::time_settled(),
  // isolated: on one worker); one median each, in order, or nothing when that failed (logged).
  std::vector<double> retime(const autotune_report& report, const std::vector<std::size_t>& rows,
                             const std::vector<rocm_template_caller>& callers);

 private:
  void prepare_worker(const compiled_binary& helpers);

  // The benchmark's size arguments (the reference takes no runtime arguments).
  [[nodiscard]] std::vector<std::int64_t> sizes() const {
    return {request_.extra_args.begin(),
            request_.extra_args.begin() + static_cast<std::ptrdiff_t>(request_.size_arg_count)};
  }

  [[nodiscard]] bound_launch bind_reference(const launch_description& d) const {
    return bind(d, sizes(), {}, gpu_runtime::instance().kind() == platform::amd);
  }

  measurement run_in_process(const candidate_report& c, const rocm_template_caller& caller, bool verify_only);

  // Calls `fn` with the candidate's kernel loaded in this process, and returns what it returns: a
  // module_kernel of its code object (with the caller's bound launch) or a kernel_entry of its
  // shared library (the worker side's with_worker_kernel()).
  template <class F>
  static decltype(auto) with_kernel(const candidate_report& c, const rocm_template_caller& caller, F&& fn) {
    const auto& r = caller.bmreq();
    if (c.code_object) {
      return fn(module_kernel(std::make_shared<code_object>(c.library), bound_launch_of(caller), r.extra_args));
    }
    return fn(kernel_entry(std::make_shared<shared_library>(c.library), r.kernel_name, r.signature));
  }

  measurement emulated_run(const kernel_entry& k, const std::vector<std::int64_t>& extra, bool verify_only);

  static bound_launch bound_launch_of(const rocm_template_caller& caller);

  static void add_binary(nlohmann::json& cmd, const compiled_binary& b, const std::optional<bound_launch>& launch);

  ticket submit_isolated(const char* op, const candidate_report& c, const rocm_template_caller& caller);

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

  // A final measurement: logged, stored, counted, shown.
  void record(const candidate_report& c) {
    log_measurement(c);
    if (db_ && c.result.status != candidate_status::skipped) {
      db_->add_measurement(report_.key, c.result);
      log_debug("database {}: stored the measurement of {}", db_->path().string(), c.name);
    }
    if (c.result.status == candidate_status::ok && (best_ms_ == 0 || c.result.min_ms < best_ms_)) {
      best_ms_ = c.result.min_ms;
    }
    ++finished_;
    if (report_.emulated) {
      progress_.update(fmt::format("rocmtpl: emulated {}/{} candidates (AMD emulator, not timed)", finished_, total_));
    } else {
      progress_.update(fmt::format("rocmtpl: {} {}/{} candidates, best {:.4f} ms", report_.gpu ? "tuned" : "compiled",
                                   finished_, total_, best_ms_));
    }
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

// The candidates to re-time before the pick (autotune_options::finalists): the fastest ok ones by
// minimum time (verified, where required), within the margin of the fastest, fastest first. None
// when the fastest is shorter than finalist_min_ms, when fewer than two qualify, or when one of
// them was not measured in this run (the database's measurement: its binary is not at hand), so
// that the pick compares like with like.
std::vector<std::size_t> choose_finalists(const autotune_report& report, const autotune_options& options,
                                          bool require_verified);

// Picks the winner and stores it: the finalist with the lowest final_ms where there are re-timed
// finalists, else the ok (and, where required, verified) candidate with the lowest minimum time.
void pick_and_store(autotune_report& report, tuning_db* db, bool require_verified);

// The problem's typed descriptor as JSON (db/descriptor_json.hpp), where the policy offers one
// (`describe_problem(template, hints)`, found by argument-dependent lookup) and it describes this
// template; empty otherwise.
template <class Policy>
std::string problem_descriptor_of(const rocm_template<Policy>& tpl, const size_hints& hints) {
  if constexpr (requires { describe_problem(tpl, hints); }) {
    if (const auto d = describe_problem(tpl, hints)) return descriptor_json(*d);
  }
  return {};
}

}  // namespace detail

/// @brief Benchmark workers to keep across tunes (autotune_options::workers): one per visible GPU,
/// started now, so that a batch of problems pays for the worker processes and their GPU contexts
/// once. Each tune sets the workers up for its problem (worker_pool::begin()).
/// @return the pool, or null when @p options is not isolated, no GPU is there, or no
///         rocmtpl-bench-worker is found (each tune then says why, as without a pool)
[[nodiscard]] std::shared_ptr<worker_pool> make_worker_pool(const autotune_options& options);

/// @brief Tunes a template for a problem and returns the report; the winner is stored in the
/// tuning database, so the same problem later returns at once (no compile, no benchmark).
///
/// With a GPU: compiles every candidate in parallel (device-only, with the helper kernels and the
/// reference, where launches are described and options.device_only is on), benchmarks each as its
/// compile finishes (isolated: on one worker per visible GPU, several at once), verifies it
/// against the template's reference (candidates timed before the reference ran are verified once
/// it has), re-times the fastest few under sustained load where they take 0.5 ms or more
/// (autotune_options::finalists) and picks the fastest verified one. Without a GPU: compiles for
/// `options.amd_archs`, reports resource usage, and says that benchmarking needs a GPU (report.gpu
/// is false, nothing is stored). With options.emulate_amd: on the AMD emulator (report.emulated), every candidate built
/// for the CPU, run once in this process and verified against the reference (a configuration
/// whose AMD entry refuses it, an NVIDIA-only path, is skipped); nothing is timed, no winner is
/// picked and the tuning database is neither read nor written.
/// @throws invalid_argument_error when `ROCMTPL_PLATFORM` names no platform.
/// @throws compiler_not_found_error when no compiler exists for the platform.
template <class Policy>
requires kernel_template<Policy>
[[nodiscard]] autotune_report autotune(const rocm_template<Policy>& tpl, const size_hints& hints,
                                       const autotune_options& given = {}) {
  const auto started = std::chrono::steady_clock::now();
  autotune_report report;
  const autotune_options options = detail::effective_options(given);
  const auto callers = detail::collect_candidates(tpl, hints, options);
  std::optional<device_identity> device;
  std::optional<compiler> emulator;
  if (options.emulate_amd) {
    auto [cc, id] = detail::start_amd_emulator(report);
    emulator.emplace(std::move(cc));
    device = std::move(id);
  } else {
    device = detail::find_device(report);
  }
  compile_options copts = emulator ? amd_emulator_compile_options(device->arch)
                                   : detail::target_compile_options(report.gpu, device, options);
  copts.timeout = options.compile_timeout;
  compiler cc = emulator ? *emulator : compiler::find(copts.platform);
  report.compile = copts;
  report.key = detail::make_key(tpl.name(), callers, hints, device, options, cc);
  report.key.descriptor = detail::problem_descriptor_of(tpl, hints);
  log_info("tune {}: {} candidates, problem {}, {}", tpl.name(), callers.size(), report.key.digest(),
           report.gpu ? "on " + report.key.device : "no GPU: compile only");
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
  if (report.gpu && !emulator && !gpu_runtime::instance().available()) {
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

  const bool require_verified = options.verify && rocm_template<Policy>::has_reference();
  if (report.gpu && !report.emulated) {
    const auto finalists = detail::choose_finalists(report, options, require_verified);
    if (!finalists.empty()) {
      const auto medians = bench.retime(report, finalists, callers);
      for (std::size_t i = 0; i < medians.size(); ++i) report.candidates[finalists[i]].final_ms = medians[i];
    }
  }
  detail::pick_and_store(report, db.get(), require_verified);
  report.compiled = cache.compiles() - compiles_before;
  report.wall_seconds = detail::seconds_since(started);
  return report;
}

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/tune/autotuner-inl.hpp>
#endif

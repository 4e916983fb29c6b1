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
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime/benchmark.hpp>
#include <rocmtpl/runtime/code_cache.hpp>
#include <rocmtpl/runtime/compiler.hpp>
#include <rocmtpl/runtime/device_identity.hpp>
#include <rocmtpl/runtime/gpu_runtime.hpp>
#include <rocmtpl/runtime/measure.hpp>
#include <rocmtpl/runtime/tuning_db.hpp>
#include <rocmtpl/runtime/utility_kernels.hpp>
#include <rocmtpl/version.hpp>

namespace rocmtpl::runtime {

/// @brief How the autotuner works.
struct autotune_options {
  unsigned jobs = 0;                        ///< parallel compiles; 0 = one per core
  benchmark_options bench{};                ///< timing protocol
  bool verify = true;                       ///< verify every candidate against the template's reference
  bool isolate = false;                     ///< benchmark in a worker process that may crash (tools turn this on)
  std::chrono::seconds candidate_timeout{60};  ///< isolated mode: a candidate silent this long is killed
  std::size_t max_candidates = 0;           ///< first N of the policy's ranked configs; 0 = all
  bool use_database = true;                 ///< read and write the tuning database
  std::filesystem::path database{};         ///< empty: tuning_db::default_path()
  std::filesystem::path cache_dir{};        ///< empty: code_cache::default_root()
  std::optional<bool> progress{};           ///< progress line on stderr; default: when stderr is a terminal
  std::vector<std::string> amd_archs{"gfx90a", "gfx940"};  ///< targets compiled when no GPU is present
};

/// @brief One candidate in a report.
struct candidate_report {
  std::string name;       ///< choice name (rocm_<template>_<n>)
  std::string id;         ///< stable identity: the caller's hash_key (source hash and extra arguments)
  std::string config;     ///< configuration text
  measurement result;     ///< status, times, verification (result.candidate == id)
  std::vector<kernel_resource_usage> resources;
  double compile_seconds = 0;
  bool compile_cached = false;
  std::filesystem::path library;
};

/// @brief What a tune did and found.
struct autotune_report {
  tuning_key key;
  std::vector<candidate_report> candidates;
  std::optional<std::size_t> winner;        ///< index into candidates
  bool gpu = false;                         ///< benchmarked on a GPU
  std::string gpu_status;                   ///< the runtime's status line
  bool from_database = false;               ///< answered from the tuning database: nothing compiled or run
  std::size_t compiled = 0;                 ///< compiler processes spawned
  std::size_t benchmarked = 0;              ///< candidates measured in this run
  double wall_seconds = 0;

  /// @brief The winning candidate, or nullptr.
  [[nodiscard]] const candidate_report* best() const noexcept {
    return winner ? &candidates[*winner] : nullptr;
  }

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
      nlohmann::json res = nlohmann::json::array();
      for (const auto& r : c.resources) {
        res.push_back({{"kernel", r.kernel}, {"arch", r.arch}, {"vgprs", r.vgprs}, {"sgprs", r.sgprs},
                       {"agprs", r.agprs}, {"lds_bytes", r.lds_bytes}, {"scratch_bytes", r.scratch_bytes},
                       {"occupancy", r.occupancy}, {"registers", r.registers}, {"shared_bytes", r.shared_bytes},
                       {"stack_bytes", r.stack_bytes}, {"spills", r.spills()}});
      }
      cs.push_back({{"name", c.name}, {"id", c.id}, {"config", c.config}, {"measurement", c.result},
                    {"resources", res}, {"compile_seconds", c.compile_seconds},
                    {"compile_cached", c.compile_cached}, {"library", c.library.string()}});
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
};
}  // namespace detail

/// @brief Tunes a template for a problem and returns the report; the winner is stored in the
/// tuning database, so the same problem later returns at once (no compile, no benchmark).
///
/// With a GPU: compiles every candidate in parallel, benchmarks each as its compile finishes,
/// verifies it against the template's reference, and picks the fastest verified one. Without a
/// GPU: compiles for `options.amd_archs`, reports resource usage, and says that benchmarking needs
/// a GPU (report.gpu is false, nothing is stored).
/// @throws compiler_not_found_error when no compiler exists for the platform.
template <class Policy>
  requires kernel_template<Policy>
[[nodiscard]] autotune_report autotune(const rocm_template<Policy>& tpl, const size_hints& hints,
                                       const autotune_options& options = {}) {
  const auto started = std::chrono::steady_clock::now();
  autotune_report report;

  // Candidates in the policy's ranked order.
  std::vector<rocm_template_caller> callers;
  for (const auto& config : ::rocmtpl::detail::problem_configs(tpl.policy(), tpl.context(), hints)) {
    if (options.max_candidates != 0 && callers.size() >= options.max_candidates) break;
    callers.push_back(tpl.generate(config, hints));
  }
  if (callers.empty()) throw error("rocmtpl: autotune: template '" + std::string(tpl.name()) + "' has no candidates");

  // The device, if possible without starting the GPU runtime (a warm tune never starts it).
  std::optional<device_identity> device = cached_device_identity();
  if (device) {
    report.gpu = true;
    report.gpu_status = "device " + device->name + " (" + device->arch + "), identity cached";
  } else {
    device = query_device_identity();
    report.gpu = device.has_value();
    report.gpu_status = gpu_runtime::instance().status();
  }
  auto target_options = [&] {
    if (!report.gpu) return amd_compile_options(options.amd_archs);
    compile_options o;
    o.platform = device->kind;
    o.archs = {device->arch};
    o.include_dirs = {device_include_dir()};
    return o;
  };
  compile_options copts = target_options();
  compiler cc = compiler::find(copts.platform);

  std::vector<std::string> hashes;
  std::string runtime_args;
  for (const auto& c : callers) {
    hashes.push_back(c.bmreq().source_hash());
    const auto& extra = c.bmreq().extra_args;
    for (auto i = c.bmreq().size_arg_count; i < extra.size(); ++i) runtime_args += std::to_string(extra[i]) + ",";
    runtime_args += ";";
  }
  report.key.template_name = std::string(tpl.name());
  report.key.problem = detail::problem_signature(callers.front().bmreq(), hints, hashes);
  report.key.runtime_args = ::rocmtpl::detail::hash_hex(runtime_args);
  report.key.arch = device ? device->arch : [&] {
    std::string a;
    for (const auto& x : options.amd_archs) a += (a.empty() ? "" : ",") + x;
    return a;
  }();
  report.key.device = device ? device->name : "none";
  report.key.compiler_version = cc.version();
  report.key.library_version = version_string;

  for (const auto& c : callers) {
    candidate_report cr;
    cr.name = c.name();
    cr.id = c.hash_key();
    std::string config;
    for (const auto& [k, v] : c.info_dict()) {
      if (k == "backend" || k == "name") continue;
      config += (config.empty() ? "" : " ") + k + "=" + v;
    }
    cr.config = config;
    cr.result.candidate = cr.id;
    cr.result.config = config;
    cr.result.source_hash = c.bmreq().source_hash();
    report.candidates.push_back(std::move(cr));
  }

  // Warm path: every candidate already measured and a winner stored -> no compile, no benchmark.
  std::unique_ptr<tuning_db> db;
  if (options.use_database && report.gpu) {
    db = std::make_unique<tuning_db>(options.database.empty() ? tuning_db::default_path() : options.database);
    if (auto record = db->find(report.key)) {
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
      if (complete) {
        for (std::size_t i = 0; i < report.candidates.size(); ++i) {
          if (report.candidates[i].id == *record->winner) report.winner = i;
        }
        if (report.winner) {
          report.from_database = true;
          report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          return report;
        }
      }
    }
  }

  // Work to do: the runtime must really be there (a cached identity is only a fingerprint).
  if (report.gpu && !gpu_runtime::instance().available()) {
    report.gpu = false;
    report.gpu_status = gpu_runtime::instance().status();
    copts = target_options();
    cc = compiler::find(copts.platform);
  }
  code_cache cache(options.cache_dir.empty() ? code_cache::default_root() : options.cache_dir);
  const std::size_t compiles_before = cache.compiles();
  const bool show = options.progress.value_or(::isatty(2) != 0);
  detail::progress_line progress(show);

  // Which candidates need work: all without a GPU; with one, those the database does not know.
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < callers.size(); ++i) {
    const bool known = db && db->find_measurement(report.key, report.candidates[i].id).has_value();
    if (!known) todo.push_back(i);
  }

  // One pool compiles everything: the helper kernels and the reference first (the benchmarks wait
  // for them), then every candidate. The main thread benchmarks candidates as their compiles finish.
  const auto& request = callers.front().bmreq();
  const double tolerance = default_tolerance(request.output_tensor_meta.type);
  const bool want_reference = report.gpu && options.verify && rocm_template<Policy>::has_reference();
  std::vector<std::string> sources;  // job j compiles sources[j]; candidates start at `first_candidate`
  if (report.gpu && !todo.empty()) {
    sources.emplace_back(detail::utility_source);
    if (want_reference) {
      if constexpr (rocm_template<Policy>::has_reference()) sources.push_back(tpl.generate_reference(hints).source());
    }
  }
  const std::size_t first_candidate = sources.size();
  for (auto i : todo) sources.push_back(callers[i].source());

  std::mutex mutex;
  std::condition_variable ready;
  std::deque<detail::compiled_candidate> done;
  std::atomic<std::size_t> next{0};
  // One compile per core: measured on the 16-core H100 box, two per core made each compile twice as slow.
  const unsigned jobs = std::max(1U, options.jobs != 0 ? options.jobs : std::thread::hardware_concurrency());
  std::vector<std::jthread> workers;
  for (unsigned w = 0; w < std::min<std::size_t>(jobs, sources.size()); ++w) {
    workers.emplace_back([&] {
      for (std::size_t j = next++; j < sources.size(); j = next++) {
        detail::compiled_candidate result{j, std::nullopt, {}};
        try {
          result.result = cache.get_or_compile(cc, sources[j], copts);
        } catch (const std::exception& e) {
          result.error = e.what();
        }
        {
          std::lock_guard lock(mutex);
          done.push_back(std::move(result));
        }
        ready.notify_one();
      }
    });
  }
  auto pop = [&] {
    std::unique_lock lock(mutex);
    ready.wait(lock, [&] { return !done.empty(); });
    auto item = std::move(done.front());
    done.pop_front();
    return item;
  };

  // The bench: inputs and the reference output, in this process or in an isolated worker.
  std::unique_ptr<utility_kernels> util;
  std::unique_ptr<bench> in_process;
  std::unique_ptr<worker_process> worker;
  nlohmann::json worker_setup;
  std::filesystem::path worker_exe;
  std::string setup_error;
  std::deque<detail::compiled_candidate> early;  // candidates compiled before the bench was ready
  if (first_candidate > 0) {
    std::filesystem::path util_lib;
    std::filesystem::path reference_lib;
    for (std::size_t got = 0; got < first_candidate;) {
      auto item = pop();
      if (item.index >= first_candidate) {
        early.push_back(std::move(item));
        continue;
      }
      ++got;
      if (!item.result) {
        setup_error = (item.index == 0 ? "helper kernels failed to compile: " : "reference failed to compile: ") +
                      item.error;
      } else {
        (item.index == 0 ? util_lib : reference_lib) = item.result->library;
      }
    }
    if (setup_error.empty()) {
      try {
        if (options.isolate) {
          auto exe = find_worker();
          if (!exe) throw error("rocmtpl: autotune: isolation needs rocmtpl-bench-worker (set ROCMTPL_BENCH_WORKER)");
          worker_exe = *exe;
          worker_setup = {{"op", "setup"},
                          {"utility_library", util_lib.string()},
                          {"request", request_to_json(request)},
                          {"reference_library", reference_lib.string()},
                          {"options", options_to_json(options.bench)}};
        } else {
          util = std::make_unique<utility_kernels>(util_lib);
          in_process = std::make_unique<bench>(request, *util, options.bench);
          if (!reference_lib.empty()) {
            auto lib = std::make_shared<shared_library>(reference_lib);
            in_process->run_reference(kernel_entry(lib, request.kernel_name, request.input_tensor_meta.size() + 1,
                                                    request.size_arg_count));
          }
        }
      } catch (const std::exception& e) {
        setup_error = e.what();
      }
    }
  }

  auto measure_isolated = [&](const candidate_report& c, const rocm_benchmark_request& r) {
    measurement m;
    worker_process::failure why{};
    std::string detail;
    if (!worker) {
      worker = std::make_unique<worker_process>(worker_exe);
      auto reply = worker->request(worker_setup, std::chrono::duration_cast<std::chrono::milliseconds>(options.candidate_timeout) * 4, why, detail);
      if (!reply || !reply->at("ok").get<bool>()) {
        worker.reset();
        m.status = candidate_status::crashed;
        m.reason = "worker setup failed: " + (reply ? reply->value("error", std::string()) : detail);
        return m;
      }
    }
    nlohmann::json cmd{{"op", "measure"}, {"library", c.library.string()}, {"extra_args", r.extra_args},
                       {"tolerance", options.verify ? tolerance : 1e300}};
    auto reply = worker->request(cmd, std::chrono::duration_cast<std::chrono::milliseconds>(options.candidate_timeout), why, detail);
    if (!reply) {
      worker.reset();  // the next candidate gets a fresh worker (and a fresh GPU context)
      m.status = why == worker_process::failure::timed_out ? candidate_status::timed_out : candidate_status::crashed;
      m.reason = detail;
      return m;
    }
    if (!reply->at("ok").get<bool>()) {
      m.status = candidate_status::launch_failed;
      m.reason = reply->value("error", std::string());
    } else {
      m = reply->at("measurement").get<measurement>();
    }
    // A launch failure may leave the worker's GPU context broken (sticky errors such as a trap or
    // an illegal address): the next candidate gets a fresh worker.
    if (m.status == candidate_status::launch_failed) worker.reset();
    return m;
  };

  std::size_t received = 0;
  double best_ms = 0;
  while (received < todo.size()) {
    detail::compiled_candidate item;
    if (!early.empty()) {
      item = std::move(early.front());
      early.pop_front();
    } else {
      item = pop();
    }
    ++received;
    const std::size_t index = todo[item.index - first_candidate];
    auto& c = report.candidates[index];
    const auto& caller = callers[index];
    if (!item.result) {
      c.result.status = candidate_status::compile_failed;
      c.result.reason = item.error;
    } else {
      c.library = item.result->library;
      c.resources = item.result->resources;
      c.compile_seconds = item.result->seconds;
      c.compile_cached = item.result->cached;
      if (!report.gpu) {
        c.result.status = candidate_status::skipped;
        c.result.reason = "no GPU";
      } else if (!setup_error.empty()) {
        c.result.status = candidate_status::skipped;
        c.result.reason = setup_error;
      } else {
        measurement m;
        if (options.isolate) {
          m = measure_isolated(c, caller.bmreq());
        } else {
          try {
            auto lib = std::make_shared<shared_library>(c.library);
            kernel_entry k(lib, request.kernel_name, request.input_tensor_meta.size() + 1, caller.bmreq().extra_args.size());
            m = measure_candidate(*in_process, k, caller.bmreq().extra_args, options.verify ? tolerance : 1e300);
          } catch (const std::exception& e) {
            m.status = candidate_status::launch_failed;
            m.reason = e.what();
          }
        }
        m.candidate = c.id;
        m.config = c.config;
        m.source_hash = c.result.source_hash;
        c.result = m;
        ++report.benchmarked;
      }
    }
    if (db && c.result.status != candidate_status::skipped) db->add_measurement(report.key, c.result);
    if (c.result.status == candidate_status::ok && (best_ms == 0 || c.result.min_ms < best_ms)) best_ms = c.result.min_ms;
    progress.update(fmt::format("rocmtpl: {} {}/{} candidates, best {:.4f} ms", report.gpu ? "tuned" : "compiled",
                                received, todo.size(), best_ms));
  }
  workers.clear();  // joins

  // Candidates the database already knew keep its measurement.
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
    if (options.verify && !m.verified && rocm_template<Policy>::has_reference()) continue;
    if (!report.winner || m.min_ms < report.candidates[*report.winner].result.min_ms) report.winner = i;
  }
  if (db && report.winner) db->set_winner(report.key, report.candidates[*report.winner].id);
  report.compiled = cache.compiles() - compiles_before;
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace rocmtpl::runtime

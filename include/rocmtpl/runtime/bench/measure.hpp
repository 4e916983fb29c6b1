// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief One candidate's measurement (verify, then time), in this process or in an isolated
/// worker process that survives candidates which crash, hang or fault the GPU.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

namespace rocmtpl::runtime {

/// @brief The benchmark worker got a command it cannot carry out (malformed, unknown, out of order).
class worker_protocol_error : public error {
 public:
  using error::error;
};

namespace detail {
// Runs `step` (a launch of a candidate); a launch error it throws (the kernel's non-zero status,
// or the GPU runtime's error) makes `m` launch_failed with the error as its reason.
template <class Step>
void launch_or_fail(measurement& m, Step&& step) {
  auto failed = [&m](const ::rocmtpl::error& e) {
    m.status = candidate_status::launch_failed;
    m.reason = e.what();
  };
  try {
    std::forward<Step>(step)();
  } catch (const kernel_status_error& e) {
    failed(e);
  } catch (const gpu_error& e) {
    failed(e);
  }
}
}  // namespace detail

/// @brief Verifies a loaded candidate against the bench's reference output: runs it once on
/// poisoned output and compares. Sets `verified` and `max_error`, or the status verify_failed
/// (relative L2 error above `tolerance`, or non-finite outputs) or launch_failed with the reason.
/// Errors become a failed measurement, never an exception. `Kernel`: a kernel_entry or a module_kernel.
/// @throws bench_usage_error when the bench has no reference output yet
template <class Kernel>
[[nodiscard]] measurement verify_candidate(bench& b, const Kernel& k, const std::vector<std::int64_t>& extra,
                                           double tolerance) {
  measurement m;
  detail::launch_or_fail(m, [&] {
    const auto c = b.verify(k, extra);
    m.max_error = c.max_abs;
    if (c.nonfinite > 0 || !(c.relative_l2 <= tolerance)) {
      m.status = candidate_status::verify_failed;
      m.reason = "relative L2 error " + std::to_string(c.relative_l2) + " (tolerance " + std::to_string(tolerance) +
                 "), " + std::to_string(c.nonfinite) + " non-finite outputs";
      return;
    }
    m.verified = true;
  });
  return m;
}

/// @brief Measures a loaded candidate on a bench: verify against the reference (when the bench
/// has one; see verify_candidate()), then time. Errors become a failed measurement, never an
/// exception. `Kernel`: a kernel_entry or a module_kernel.
template <class Kernel>
[[nodiscard]] measurement measure_candidate(bench& b, const Kernel& k, const std::vector<std::int64_t>& extra,
                                            double tolerance) {
  measurement m;
  if (b.has_reference()) {
    m = verify_candidate(b, k, extra, tolerance);
    if (m.status != candidate_status::ok) return m;
  }
  detail::launch_or_fail(m, [&] {
    const auto t = b.time(k, extra);
    m.min_ms = t.min_ms;
    m.median_ms = t.median_ms;
    m.spread = t.spread;
    m.repetitions = t.repetitions;
    if (!(t.min_ms > 0)) {
      m.status = candidate_status::launch_failed;
      m.reason = "non-positive time " + std::to_string(t.min_ms) + " ms";
    }
  });
  return m;
}

namespace detail {
nlohmann::json meta_to_json(const tensor_meta& m);
nlohmann::json signature_to_json(const entry_signature& sig);
entry_signature signature_from_json(const nlohmann::json& j);
tensor_meta meta_from_json(const nlohmann::json& j);
}  // namespace detail

/// @brief The signature of a template's reference kernel for a request: the candidates' entry
/// without the runtime arguments (rocm_template::generate_reference() renders it so).
[[nodiscard]] inline entry_signature reference_signature(const rocm_benchmark_request& r) {
  return r.signature.without_runtime_args();
}

/// @brief A bound launch description as JSON (the worker protocol's `launch`).
[[nodiscard]] nlohmann::json launch_to_json(const bound_launch& b);

/// @brief Inverse of launch_to_json().
[[nodiscard]] bound_launch launch_from_json(const nlohmann::json& j);

/// @brief The request's data (no source) as JSON, for the worker protocol.
[[nodiscard]] nlohmann::json request_to_json(const rocm_benchmark_request& r);

/// @brief Inverse of request_to_json().
[[nodiscard]] rocm_benchmark_request request_from_json(const nlohmann::json& j);

/// @brief benchmark_options as JSON, for the worker protocol's `setup`.
[[nodiscard]] nlohmann::json options_to_json(const benchmark_options& o);

/// @brief Inverse of options_to_json().
/// @throws nlohmann::json::exception when a field is missing or has the wrong type.
[[nodiscard]] benchmark_options options_from_json(const nlohmann::json& j);

namespace detail {
// Calls `fn` with the kernel a worker command names: `library` (the request's C entry, with
// `signature`) or `code_object` with its bound `launch` (the module API).
template <class Fn>
auto with_worker_kernel(const nlohmann::json& cmd, const rocm_benchmark_request& request,
                        const entry_signature& signature, const std::vector<std::int64_t>& extra, Fn&& fn) {
  if (cmd.contains("code_object")) {
    const module_kernel k(std::make_shared<code_object>(cmd.at("code_object").get<std::string>()),
                          launch_from_json(cmd.at("launch")), extra);
    return fn(k);
  }
  auto lib = std::make_shared<shared_library>(cmd.at("library").get<std::string>());
  const kernel_entry k(lib, request.kernel_name, signature);
  return fn(k);
}

// The worker's state: the helpers and the bench once set up.
struct worker_state {
  std::unique_ptr<utility_kernels> util;
  std::unique_ptr<bench> b;
};

nlohmann::json retime_candidates(bench& b, const nlohmann::json& candidates);
nlohmann::json worker_command(worker_state& w, const nlohmann::json& cmd);
}  // namespace detail

/// @brief The worker side of fault isolation: reads one JSON command per line, answers one JSON
/// line per command. The commands:
/// - `setup` {utility_library | utility_code_object, request, options[, reference_library]}: loads
///   the helper kernels (a library or a device-only code object), builds the bench (seeded inputs),
///   and replies with the GPU's model as `device` (a worker_pool refuses to mix models);
/// - `reference` {library | code_object + launch}: runs the reference once and keeps its output;
/// - `measure` {library | code_object + launch, extra_args, tolerance}: verifies the candidate
///   (once a reference ran), then times it;
/// - `verify` {the same}: verifies a candidate measured before the reference ran;
/// - `retime` {candidates: [{library | code_object + launch, extra_args}, ...]}: times the
///   candidates in the state of sustained use (bench::time_settled(); the autotuner's finalists) and
///   replies `timings`, one {min_ms, median_ms, spread, repetitions} per candidate, in order.
/// `launch` is launch_to_json() of the bound description; a `code_object` runs through the module
/// API. Replies `{"ok": true[, "measurement": ...]}` or `{"ok": false, "error": ...}`. Returns the
/// process exit code. Used by tools/rocmtpl-bench-worker.
int run_worker(std::FILE* in, std::FILE* out);

/// @brief The worker executable: env ROCMTPL_BENCH_WORKER, else `rocmtpl-bench-worker` next to
/// this program, else in the folders this library was configured with, else on PATH.
[[nodiscard]] std::optional<std::filesystem::path> find_worker();

/// @brief A worker child process driven over a socket (see child_process); restarted by the
/// caller after a crash.
class worker_process {
 public:
  /// @throws executable_not_found_error or process_error (both rocmtpl::error) when the worker cannot be started.
  explicit worker_process(const std::filesystem::path& executable) : child_({executable.string()}) {}
  /// @brief The same, with environment changes (worker_pool: the GPU a worker sees).
  worker_process(const std::filesystem::path& executable, const process_options& options)
      : child_({executable.string()}, options) {}

  /// @brief Why a request got no reply.
  enum class failure { none, crashed, timed_out };

  /// @brief Sends one command; waits up to `timeout` for the reply line.
  /// @return the reply, or nullopt with `why` set (the worker is then dead and must be replaced).
  std::optional<nlohmann::json> request(const nlohmann::json& command, std::chrono::milliseconds timeout, failure& why,
                                        std::string& detail);

 private:
  std::string reap();

  child_process child_;
  std::string buffer_;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/bench/measure-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Tuning a batch of problems: a list read from JSON, worked through with claims in the
/// tuning database (db/claims.hpp) so that an interrupted batch resumes where it stopped and
/// several tuners, on one host or many (PostgreSQL), share one batch without overlap; with a
/// progress display (problems done, candidates compiled and benchmarked, ETA).
///
/// The batch does not know what a problem is: the caller's tune function turns a problem's JSON
/// into a tune (rocmtpl-tune batch: a GEMM with the `gemm` command's fields).
///
/// @code{.cpp}
/// rocmtpl::runtime::tuning_db db("postgresql:///tuning?host=/run/pg");
/// auto problems = rocmtpl::runtime::load_batch_file("model.json");
/// rocmtpl::runtime::batch_options o{.name = "model", .target = "gfx90a", .tuner = "host-1:4242"};
/// auto summary = rocmtpl::runtime::run_batch(db, problems, o, [](const auto& claim, const nlohmann::json& spec) {
///   return tune_one(spec);  // a batch_outcome
/// });
/// @endcode

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rocmtpl::runtime {

/// @brief One problem of a batch: its JSON and a stable id (a digest of the JSON, so the same
/// problem has the same id in every file and on every host).
struct batch_problem {
  std::string id;       ///< 16 lowercase hex digits (XXH3-64 of the canonical JSON text).
  nlohmann::json spec;  ///< The problem as written (an object).
};

/// @brief The problems of a batch document: a JSON array of objects, or an object whose
/// `problems` member is one.
/// @param doc The document.
/// @param origin Names the document in messages (a file name).
/// @return The problems, in document order.
/// @throws invalid_argument_error if the document has another shape, a problem is not an object,
///         the list is empty, or a problem appears twice.
[[nodiscard]] std::vector<batch_problem> parse_batch(const nlohmann::json& doc, std::string_view origin = "batch");

/// @brief Read a batch file (see parse_batch()).
/// @throws invalid_argument_error if the file cannot be read, is not JSON, or has the wrong shape.
[[nodiscard]] std::vector<batch_problem> load_batch_file(const std::filesystem::path& file);

/// @brief What the tune function reports for one problem.
struct batch_outcome {
  bool ok = false;                                   ///< false: the problem is marked failed (not retried by a resume).
  std::string summary;                               ///< One line for the progress display.
  std::size_t compiled = 0;                          ///< Candidates compiled.
  std::size_t benchmarked = 0;                       ///< Candidates benchmarked.
  nlohmann::json result = nlohmann::json::object();  ///< Stored with the problem (winner, times, ...).
};

/// @brief How a batch runs.
struct batch_options {
  std::string name;                         ///< The batch's name in the database.
  std::string target;                       ///< What it is tuned for (a device, or the archs of a compile-only run).
  std::string tuner;                        ///< This tuner's name, unique among the tuners (host:pid).
  std::chrono::milliseconds lease{60'000};  ///< A claim not renewed for this long is taken over.
  std::chrono::milliseconds poll{1'000};    ///< Wait between looks when the free problems are held by others.
  bool tty = false;                         ///< Progress as one line redrawn in place; else plain lines.
  std::ostream* out = &std::cout;           ///< Where progress goes (nullptr: nowhere).
  /// Set (by a signal handler) to stop: the claim in hand is released, then `on_interrupt` runs
  /// (it may end the process); without it the batch stops after the current problem.
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void()> on_interrupt;  ///< See `interrupt`.
};

/// @brief What a batch run did.
struct batch_summary {
  std::size_t total = 0;        ///< Problems in the batch.
  std::size_t done_before = 0;  ///< Done or failed before this run started (a resumed batch).
  std::size_t done = 0;         ///< Done at the end (by any tuner).
  std::size_t failed = 0;       ///< Failed at the end (by any tuner).
  std::size_t tuned_here = 0;   ///< Finished ok by this tuner.
  std::size_t failed_here = 0;  ///< Failed in this tuner.
  std::size_t reclaimed = 0;    ///< Claims this tuner took over from a tuner whose lease expired.
  std::size_t lost = 0;         ///< Problems this tuner lost (its lease expired and another took over).
  std::size_t compiled = 0;     ///< Candidates compiled by this tuner.
  std::size_t benchmarked = 0;  ///< Candidates benchmarked by this tuner.
  double seconds = 0;           ///< Wall time.
  bool interrupted = false;     ///< Stopped by `batch_options::interrupt`.
};

/// @brief The progress display of a batch: problems done, candidates compiled and benchmarked, ETA.
///
/// On a terminal one line redrawn in place (`\r`, erase to end of line); otherwise one plain line
/// per finished problem, so a log stays readable. The ETA divides the problems left by the rate at
/// which problems finished since this run started, counting every tuner's work.
class batch_progress {
 public:
  /// @param out where to print (null: nothing is printed)
  /// @param tty redraw one line in place (a terminal) instead of a line per finished problem
  /// @param name the batch's name, shown at the start of the terminal line
  batch_progress(std::ostream* out, bool tty, std::string name);
  batch_progress(const batch_progress&) = delete;
  batch_progress& operator=(const batch_progress&) = delete;
  ~batch_progress() { end(); }

  /// @brief Take the batch's states from the database (call after claims and finishes).
  void update_states(const std::vector<batch_item>& items);

  /// @brief The problem now being tuned here (empty: none).
  void working_on(std::string text);

  /// @brief Count a finished problem's candidates and report it.
  void finished(const std::string& line, std::size_t compiled, std::size_t benchmarked);

  /// @brief Redraw (the terminal line's clock); nothing when not a terminal.
  void tick();

  /// @brief A plain message (on a terminal: above the progress line).
  void note(const std::string& line);

  /// @brief Clear the terminal line.
  void end();

  /// @brief The text of the status part: counts, candidates and ETA (for tests and the last line).
  [[nodiscard]] std::string status() const;

 private:
  static std::string clock(double seconds);

  [[nodiscard]] std::string status_() const;

  void draw_();

  mutable std::mutex mutex_;
  std::ostream* out_;
  bool tty_;
  std::string name_;
  std::chrono::steady_clock::time_point start_;
  std::size_t total_ = 0, done_ = 0, failed_ = 0, claimed_ = 0;
  std::optional<std::size_t> baseline_;
  std::size_t compiled_ = 0, benchmarked_ = 0;
  std::string current_;
  bool drawn_ = false;
};

namespace detail {

// Renews a claim's lease while the problem is tuned (every third of the lease), redraws the
// progress clock, and on an interrupt releases the claim at once. Stops in its destructor.
class lease_keeper {
 public:
  lease_keeper(tuning_db& db, const batch_options& o, std::string item, batch_progress& progress);
  lease_keeper(const lease_keeper&) = delete;
  lease_keeper& operator=(const lease_keeper&) = delete;
  ~lease_keeper() { stop(); }

  void stop();
  [[nodiscard]] bool lost() const noexcept { return lost_.load(); }
  [[nodiscard]] bool released() const noexcept { return released_.load(); }

 private:
  void loop_();

  tuning_db& db_;
  const batch_options& o_;
  std::string item_;
  batch_progress& progress_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<bool> lost_{false};
  std::atomic<bool> released_{false};
  std::thread thread_;  // last: starts after the members it uses
};

bool batch_has_open_items(const std::vector<batch_item>& items);

batch_outcome tune_claim(const batch_claim& claim,
                         const std::function<batch_outcome(const batch_claim&, const nlohmann::json&)>& tune);

}  // namespace detail

/// @brief Tune every problem of a batch that is not done yet, sharing the work with any other
/// tuner of the same batch and target.
///
/// Adds the problems to the database (those already there keep their state: a resumed batch skips
/// what was done), then claims one problem at a time, tunes it with @p tune while a thread renews
/// the lease, and stores the outcome. When every free problem is held by other tuners it waits and
/// looks again, so a problem whose tuner died is taken over once its lease expires. Returns when
/// every problem is done or failed.
/// @param db The tuning database (a SQLite file shares a batch between processes of one host; a
///        PostgreSQL database between hosts).
/// @param problems The batch (see load_batch_file()).
/// @param o Names, lease, progress.
/// @param tune Tunes one problem; an exception marks the problem failed with its message.
/// @return What this run did.
/// @throws tuning_db_error on a database error.
batch_summary run_batch(tuning_db& db, const std::vector<batch_problem>& problems, const batch_options& o,
                        const std::function<batch_outcome(const batch_claim&, const nlohmann::json&)>& tune);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/tune/tune_batch-inl.hpp>
#endif

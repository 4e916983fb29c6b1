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

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <rocmtpl/detail/hash.hpp>  // xxHash, inlined

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
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
[[nodiscard]] inline std::vector<batch_problem> parse_batch(const nlohmann::json& doc,
                                                            std::string_view origin = "batch") {
  const nlohmann::json* list = &doc;
  if (doc.is_object() && doc.contains("problems")) list = &doc.at("problems");
  if (!list->is_array()) {
    throw invalid_argument_error(
        fmt::format("rocmtpl: {}: a batch is a JSON array of problems or an object with a \"problems\" array", origin));
  }
  if (list->empty()) throw invalid_argument_error(fmt::format("rocmtpl: {}: the batch has no problems", origin));
  std::vector<batch_problem> out;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto& spec = (*list)[i];
    if (!spec.is_object()) {
      throw invalid_argument_error(fmt::format(
          "rocmtpl: {}: problem {} is not a JSON object; write {{\"m\": ..., \"n\": ..., ...}}", origin, i));
    }
    const std::string text = spec.dump();  // object keys sorted: the same problem, the same text
    const std::string id = fmt::format("{:016x}", XXH3_64bits(text.data(), text.size()));
    if (auto [it, fresh] = seen.emplace(id, i); !fresh) {
      throw invalid_argument_error(
          fmt::format("rocmtpl: {}: problems {} and {} are the same; remove one", origin, it->second, i));
    }
    out.push_back(batch_problem{id, spec});
  }
  return out;
}

/// @brief Read a batch file (see parse_batch()).
/// @throws invalid_argument_error if the file cannot be read, is not JSON, or has the wrong shape.
[[nodiscard]] inline std::vector<batch_problem> load_batch_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw invalid_argument_error(fmt::format("rocmtpl: batch file '{}' cannot be read", file.string()));
  nlohmann::json doc;
  try {
    in >> doc;
  } catch (const nlohmann::json::exception& e) {
    throw invalid_argument_error(fmt::format("rocmtpl: batch file '{}' is not JSON: {}", file.string(), e.what()));
  }
  return parse_batch(doc, fmt::format("batch file '{}'", file.string()));
}

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
  batch_progress(std::ostream* out, bool tty, std::string name)
      : out_(out), tty_(tty), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}
  batch_progress(const batch_progress&) = delete;
  batch_progress& operator=(const batch_progress&) = delete;
  ~batch_progress() { end(); }

  /// @brief Take the batch's states from the database (call after claims and finishes).
  void update_states(const std::vector<batch_item>& items) {
    std::lock_guard lock(mutex_);
    total_ = items.size();
    done_ = failed_ = claimed_ = 0;
    for (const auto& it : items) {
      done_ += it.state == batch_state::done ? 1 : 0;
      failed_ += it.state == batch_state::failed ? 1 : 0;
      claimed_ += it.state == batch_state::claimed ? 1 : 0;
    }
    if (!baseline_) baseline_ = done_ + failed_;
  }

  /// @brief The problem now being tuned here (empty: none).
  void working_on(std::string text) {
    std::lock_guard lock(mutex_);
    current_ = std::move(text);
    draw_();
  }

  /// @brief Count a finished problem's candidates and report it.
  void finished(const std::string& line, std::size_t compiled, std::size_t benchmarked) {
    std::lock_guard lock(mutex_);
    compiled_ += compiled;
    benchmarked_ += benchmarked;
    current_.clear();
    if (tty_) {
      draw_();
    } else if (out_ != nullptr) {
      *out_ << fmt::format("[{}/{}] {} | {}\n", done_ + failed_, total_, line, status_()) << std::flush;
    }
  }

  /// @brief Redraw (the terminal line's clock); nothing when not a terminal.
  void tick() {
    std::lock_guard lock(mutex_);
    draw_();
  }

  /// @brief A plain message (on a terminal: above the progress line).
  void note(const std::string& line) {
    std::lock_guard lock(mutex_);
    if (out_ == nullptr) return;
    if (tty_) *out_ << "\r\033[K";
    *out_ << line << '\n';
    draw_();
  }

  /// @brief Clear the terminal line.
  void end() {
    std::lock_guard lock(mutex_);
    if (tty_ && drawn_ && out_ != nullptr) *out_ << "\r\033[K" << std::flush;
    drawn_ = false;
  }

  /// @brief The text of the status part: counts, candidates and ETA (for tests and the last line).
  [[nodiscard]] std::string status() const {
    std::lock_guard lock(mutex_);
    return status_();
  }

 private:
  static std::string clock(double seconds) {
    const auto s = static_cast<long long>(seconds);
    return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                     : fmt::format("{}:{:02}", s / 60, s % 60);
  }

  [[nodiscard]] std::string status_() const {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::size_t finished = done_ + failed_;
    const std::size_t progressed = finished - std::min(finished, baseline_.value_or(finished));
    std::string eta = "--";
    if (finished >= total_) {
      eta = "0:00";
    } else if (progressed > 0 && elapsed > 0) {
      eta = clock(static_cast<double>(total_ - finished) * elapsed / static_cast<double>(progressed));
    }
    std::string s = fmt::format("{} done", done_);
    if (failed_ > 0) s += fmt::format(", {} failed", failed_);
    if (claimed_ > 0) s += fmt::format(", {} in progress", claimed_);
    return s + fmt::format(" | compiled {}, benchmarked {} | {} elapsed, ETA {}", compiled_, benchmarked_,
                           clock(elapsed), eta);
  }

  void draw_() {
    if (!tty_ || out_ == nullptr) return;
    constexpr std::size_t width = 24;
    const std::size_t finished = done_ + failed_;
    const std::size_t filled = total_ == 0 ? 0 : width * finished / total_;
    std::string bar(filled, '#');
    bar.append(width - filled, '-');
    std::string line =
        fmt::format("{} [{}] {}/{} | {}{}", name_, bar, finished, total_, status_(), current_.empty() ? "" : " | ");
    line += current_;
    *out_ << "\r\033[K" << line << std::flush;
    drawn_ = true;
  }

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
  lease_keeper(tuning_db& db, const batch_options& o, std::string item, batch_progress& progress)
      : db_(db), o_(o), item_(std::move(item)), progress_(progress), thread_([this] { loop_(); }) {}
  lease_keeper(const lease_keeper&) = delete;
  lease_keeper& operator=(const lease_keeper&) = delete;
  ~lease_keeper() { stop(); }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] bool lost() const noexcept { return lost_.load(); }
  [[nodiscard]] bool released() const noexcept { return released_.load(); }

 private:
  void loop_() {
    using namespace std::chrono;
    const auto renew_every = std::max(milliseconds(50), o_.lease / 3);
    auto next_renew = steady_clock::now() + renew_every;
    auto next_tick = steady_clock::now() + seconds(1);
    std::unique_lock lock(mutex_);
    while (!stop_) {
      cv_.wait_for(lock, milliseconds(50));
      if (stop_) break;
      const auto now = steady_clock::now();
      try {
        if (o_.interrupt != nullptr && o_.interrupt->load()) {
          db_.release_batch_claim(o_.name, o_.target, item_, o_.tuner);
          released_ = true;
          progress_.note(fmt::format("interrupted: released problem {}; it is pending again", item_));
          if (o_.on_interrupt) o_.on_interrupt();
          return;
        }
        if (now >= next_renew && !lost_) {
          if (!db_.renew_batch_claim(o_.name, o_.target, item_, o_.tuner, o_.lease)) lost_ = true;
          next_renew = now + renew_every;
        }
      } catch (const std::exception& e) {
        // A database hiccup: try again at the next renewal; the lease covers a few misses.
        progress_.note(fmt::format("warning: renewing the lease on {} failed: {}", item_, e.what()));
        next_renew = now + renew_every;
      }
      if (now >= next_tick) {
        progress_.tick();
        next_tick = now + seconds(1);
      }
    }
  }

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

inline bool batch_has_open_items(const std::vector<batch_item>& items) {
  for (const auto& it : items) {
    if (it.state == batch_state::pending || it.state == batch_state::claimed) return true;
  }
  return false;
}

// Runs the tune function on one claim, turning an exception into a failed outcome.
inline batch_outcome tune_claim(const batch_claim& claim,
                                const std::function<batch_outcome(const batch_claim&, const nlohmann::json&)>& tune) {
  try {
    return tune(claim, nlohmann::json::parse(claim.spec));
  } catch (const std::exception& e) {
    batch_outcome out;
    out.summary = fmt::format("failed: {}", e.what());
    out.result = {{"error", e.what()}};
    return out;
  }
}

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
inline batch_summary run_batch(tuning_db& db, const std::vector<batch_problem>& problems, const batch_options& o,
                               const std::function<batch_outcome(const batch_claim&, const nlohmann::json&)>& tune) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& p : problems) rows.emplace_back(p.id, p.spec.dump());
  db.add_batch_items(o.name, o.target, rows);

  batch_summary s;
  batch_progress progress(o.out, o.tty, o.name);
  auto items = db.batch_items(o.name, o.target);
  progress.update_states(items);
  s.total = items.size();
  for (const auto& it : items) s.done_before += it.state == batch_state::done || it.state == batch_state::failed;
  if (s.done_before > 0) {
    progress.note(fmt::format("batch {}: {} of {} problems finished before; resuming", o.name, s.done_before, s.total));
  }
  bool waiting_noted = false;
  while (!(o.interrupt != nullptr && o.interrupt->load())) {
    auto claim = db.claim_batch_item(o.name, o.target, o.tuner, o.lease);
    items = db.batch_items(o.name, o.target);
    progress.update_states(items);
    if (!claim) {
      if (!detail::batch_has_open_items(items)) break;
      if (!waiting_noted) progress.note("waiting: the remaining problems are held by other tuners");
      waiting_noted = true;
      progress.tick();
      std::this_thread::sleep_for(o.poll);
      continue;
    }
    waiting_noted = false;
    if (claim->previous) {
      ++s.reclaimed;
      progress.note(fmt::format("took over problem {} from {} (its lease expired)", claim->item, *claim->previous));
    }
    progress.working_on(fmt::format("tuning {}: {}", claim->item, claim->spec));
    const auto t0 = std::chrono::steady_clock::now();
    batch_outcome out;
    bool released = false;
    {
      detail::lease_keeper keeper(db, o, claim->item, progress);
      out = detail::tune_claim(*claim, tune);
      keeper.stop();
      released = keeper.released();
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s.compiled += out.compiled;
    s.benchmarked += out.benchmarked;
    // Interrupted while tuning: the outcome may be the signal's doing (a Ctrl-C also stops the
    // compilers), so the problem is given back, never finished.
    if (released || (o.interrupt != nullptr && o.interrupt->load())) {
      if (!released) db.release_batch_claim(o.name, o.target, claim->item, o.tuner);
      s.interrupted = true;
      break;
    }
    out.result["tuner"] = o.tuner;
    out.result["seconds"] = secs;
    out.result["summary"] = out.summary;
    const bool kept = db.finish_batch_item(o.name, o.target, claim->item, o.tuner,
                                           out.ok ? batch_state::done : batch_state::failed, out.result.dump());
    progress.update_states(db.batch_items(o.name, o.target));
    if (!kept) {
      ++s.lost;
      progress.finished(fmt::format("lost {}: its lease expired and another tuner took it over", claim->item),
                        out.compiled, out.benchmarked);
      continue;
    }
    (out.ok ? s.tuned_here : s.failed_here) += 1;
    progress.finished(fmt::format("{} {} in {:.1f} s: {}", out.ok ? "done" : "FAILED", claim->item, secs, out.summary),
                      out.compiled, out.benchmarked);
  }
  s.interrupted = s.interrupted || (o.interrupt != nullptr && o.interrupt->load());
  items = db.batch_items(o.name, o.target);
  progress.update_states(items);
  for (const auto& it : items) {
    s.done += it.state == batch_state::done ? 1 : 0;
    s.failed += it.state == batch_state::failed ? 1 : 0;
  }
  progress.end();
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return s;
}

}  // namespace rocmtpl::runtime

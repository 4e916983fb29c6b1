// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/tune/tune_batch.hpp: included at its end (header-only) or compiled once by
// src/runtime/tune.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>  // xxHash, inlined
#include <rocmtpl/runtime/db/tuning_db.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace rocmtpl::runtime {

ROCMTPL_INLINE std::vector<batch_problem> parse_batch(const nlohmann::json& doc, std::string_view origin) {
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

ROCMTPL_INLINE std::vector<batch_problem> load_batch_file(const std::filesystem::path& file) {
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

ROCMTPL_INLINE batch_progress::batch_progress(std::ostream* out, bool tty, std::string name)
    : out_(out), tty_(tty), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

ROCMTPL_INLINE void batch_progress::update_states(const std::vector<batch_item>& items) {
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

ROCMTPL_INLINE void batch_progress::working_on(std::string text) {
  std::lock_guard lock(mutex_);
  current_ = std::move(text);
  draw_();
}

ROCMTPL_INLINE void batch_progress::finished(const std::string& line, std::size_t compiled, std::size_t benchmarked) {
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

ROCMTPL_INLINE void batch_progress::tick() {
  std::lock_guard lock(mutex_);
  draw_();
}

ROCMTPL_INLINE void batch_progress::note(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (out_ == nullptr) return;
  if (tty_) *out_ << "\r\033[K";
  *out_ << line << '\n';
  draw_();
}

ROCMTPL_INLINE void batch_progress::end() {
  std::lock_guard lock(mutex_);
  if (tty_ && drawn_ && out_ != nullptr) *out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

ROCMTPL_INLINE std::string batch_progress::status() const {
  std::lock_guard lock(mutex_);
  return status_();
}

ROCMTPL_INLINE std::string batch_progress::clock(double seconds) {
  const auto s = static_cast<long long>(seconds);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

ROCMTPL_INLINE std::string batch_progress::status_() const {
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
  return s + fmt::format(" | compiled {}, benchmarked {} | {} elapsed, ETA {}", compiled_, benchmarked_, clock(elapsed),
                         eta);
}

ROCMTPL_INLINE void batch_progress::draw_() {
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

namespace detail {

ROCMTPL_INLINE lease_keeper::lease_keeper(tuning_db& db, const batch_options& o, std::string item,
                                          batch_progress& progress)
    : db_(db), o_(o), item_(std::move(item)), progress_(progress), thread_([this] { loop_(); }) {}

ROCMTPL_INLINE void lease_keeper::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

ROCMTPL_INLINE void lease_keeper::loop_() {
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

ROCMTPL_INLINE bool batch_has_open_items(const std::vector<batch_item>& items) {
  for (const auto& it : items) {
    if (it.state == batch_state::pending || it.state == batch_state::claimed) return true;
  }
  return false;
}

// Runs the tune function on one claim, turning an exception into a failed outcome.
ROCMTPL_INLINE batch_outcome tune_claim(
    const batch_claim& claim, const std::function<batch_outcome(const batch_claim&, const nlohmann::json&)>& tune) {
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

ROCMTPL_INLINE batch_summary
run_batch(tuning_db& db, const std::vector<batch_problem>& problems, const batch_options& o,
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

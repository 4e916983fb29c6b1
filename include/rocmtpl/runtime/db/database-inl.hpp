// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/db/database.hpp: included at its end (header-only) or compiled once by
// src/runtime/db.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/json.hpp>
#include <rocmtpl/runtime/db/key.hpp>
#include <rocmtpl/runtime/db/postgres.hpp>
#include <rocmtpl/runtime/db/schema.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>
#include <rocmtpl/runtime/sys/log.hpp>

#include <fmt/format.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rocmtpl::runtime {

namespace detail {

ROCMTPL_INLINE std::string utc_now_iso8601() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const auto secs = floor<seconds>(now);
  const auto ms = duration_cast<milliseconds>(now - secs).count();
  const auto t = static_cast<std::time_t>(secs.time_since_epoch().count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

// Binds the seven key fields to ?first .. ?first+6.
ROCMTPL_INLINE void bind_key_fields(statement& st, int first, const tuning_key& key) {
  st.bind_text(first + 0, key.template_name)
      .bind_text(first + 1, key.problem)
      .bind_text(first + 2, key.runtime_args)
      .bind_text(first + 3, key.arch)
      .bind_text(first + 4, key.device)
      .bind_text(first + 5, key.compiler_version)
      .bind_text(first + 6, key.library_version);
}

// Reads a row selected with key_columns (starting at column 0); returns the key id.
ROCMTPL_INLINE std::int64_t read_key_row(const statement& st, tuning_record& rec) {
  rec.key.template_name = st.text(1);
  rec.key.problem = st.text(2);
  rec.key.runtime_args = st.text(3);
  rec.key.arch = st.text(4);
  rec.key.device = st.text(5);
  rec.key.compiler_version = st.text(6);
  rec.key.library_version = st.text(7);
  rec.winner = st.optional_text(8);
  rec.created_at = st.text(9);
  rec.updated_at = st.text(10);
  rec.key.descriptor = st.text(11);
  return st.integer(0);
}

// Reads a row selected with measurement_columns starting at column `c`.
ROCMTPL_INLINE measurement read_measurement_row(const statement& st, const connection& conn, int c) {
  measurement m;
  m.candidate = st.text(c + 1);
  m.config = st.text(c + 2);
  m.source_hash = st.text(c + 3);
  const std::string status = st.text(c + 4);
  try {
    m.status = parse_candidate_status(status);
  } catch (const invalid_argument_error& e) {
    throw tuning_db_error(conn.path(), "reading a measurement", e.what(), 0,
                          "the file holds a status this rocmtpl does not know");
  }
  m.reason = st.text(c + 5);
  m.min_ms = st.real(c + 6);
  m.median_ms = st.real(c + 7);
  m.spread = st.real(c + 8);
  m.repetitions = static_cast<int>(st.integer(c + 9));
  m.verified = st.integer(c + 10) != 0;
  m.max_error = st.real(c + 11);
  m.device = st.text(c + 12);
  m.device_id = st.text(c + 13);
  return m;
}

}  // namespace detail

ROCMTPL_INLINE tuning_db::tuning_db(std::filesystem::path file)
    : path_(std::move(file)), mutex_(std::make_unique<std::mutex>()) {
  if (path_.empty()) throw invalid_argument_error("rocmtpl: tuning_db: the database path is empty");
  if (is_postgresql_url(path_.native())) {
    pg_ = std::make_unique<detail::pg_store>(path_.native());
    path_ = pg_->location();
    log_info("database {}: opened", path_.string());
    return;
  }
  // Any other `scheme://` is a URL this build cannot open, never a file name to create.
  const std::string_view location = path_.native();
  if (const auto colon = location.find("://"); colon != std::string_view::npos && colon > 0) {
    const auto scheme = location.substr(0, colon);
    const bool is_scheme =
        std::isalpha(static_cast<unsigned char>(scheme.front())) != 0 &&
        std::all_of(scheme.begin(), scheme.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
        });
    if (is_scheme) {
      throw invalid_argument_error(fmt::format(
          "rocmtpl: tuning_db: '{}' is a {}:// URL; a tuning database is a SQLite file path or a postgresql:// URL",
          location, scheme));
    }
  }
  if (path_.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
    if (ec) {
      throw tuning_db_error(path_, fmt::format("creating directory '{}'", path_.parent_path().string()), ec.message(),
                            0, detail::hint_for(SQLITE_CANTOPEN));
    }
  }
  conn_ = detail::connection(path_, busy_timeout);
  set_journal_mode_wal_();
  // NORMAL is safe with WAL (a power loss may drop the last commits, never corrupts) and avoids
  // an fsync per measurement.
  conn_.exec("PRAGMA synchronous = NORMAL");
  conn_.exec("PRAGMA foreign_keys = ON");
  ensure_schema_();
  log_info("database {}: opened", path_.string());
}

ROCMTPL_INLINE std::filesystem::path tuning_db::default_path() {
  if (const char* db = detail::non_empty_env("ROCMTPL_TUNING_DB")) return db;
  return cache_root() / "tuning.sqlite3";
}

ROCMTPL_INLINE std::filesystem::path tuning_db::default_location() {
  if (const char* db = detail::non_empty_env("ROCMTPL_TUNING_DB")) return db;
  return cache_root_location() / "tuning.sqlite3";
}

ROCMTPL_INLINE tuning_db tuning_db::open_existing(std::filesystem::path location) {
  if (location.empty()) location = default_location();
  // A URL (any scheme://) is the constructor's to open or refuse; a file must be there.
  if (location.native().find("://") == std::string::npos) {
    std::error_code ec;
    if (!std::filesystem::exists(location, ec)) {
      throw invalid_argument_error(
          fmt::format("rocmtpl: tuning_db: '{}' does not exist; a tuning database is created by tuning, not by reading "
                      "it (nothing was created)",
                      location.string()));
    }
  }
  return tuning_db(std::move(location));
}

ROCMTPL_INLINE void tuning_db::record(const tuning_key& key, const std::vector<measurement>& measurements,
                                      const std::optional<std::string>& winner) {
  check_key_(key);
  for (const auto& m : measurements) check_measurement_(key, m);
  if (pg_) return pg_->record(key, measurements, winner, detail::utc_now_iso8601());
  std::lock_guard lock(*mutex_);
  detail::transaction tx(conn_, detail::transaction::kind::immediate);
  const auto now = detail::utc_now_iso8601();
  const auto id = upsert_key_(key, now);
  for (const auto& m : measurements) upsert_measurement_(id, m, now);
  if (winner) {
    require_ok_measurement_(id, *winner, "record");
  }
  detail::statement st(conn_, "UPDATE tuning_keys SET winner = ?1 WHERE id = ?2");
  st.bind_optional_text(1, winner).bind_int(2, id).run();
  tx.commit();
}

ROCMTPL_INLINE void tuning_db::add_measurement(const tuning_key& key, const measurement& m) {
  check_key_(key);
  check_measurement_(key, m);
  if (pg_) return pg_->add_measurement(key, m, detail::utc_now_iso8601());
  std::lock_guard lock(*mutex_);
  detail::transaction tx(conn_, detail::transaction::kind::immediate);
  const auto now = detail::utc_now_iso8601();
  const auto id = upsert_key_(key, now);
  upsert_measurement_(id, m, now);
  // Keep the invariant "the winner has an ok measurement".
  detail::statement st(conn_, "UPDATE tuning_keys SET winner = NULL WHERE id = ?1 AND winner = ?2 AND ?3 <> 'ok'");
  st.bind_int(1, id).bind_text(2, m.candidate).bind_text(3, to_string(m.status)).run();
  tx.commit();
}

ROCMTPL_INLINE void tuning_db::set_winner(const tuning_key& key, const std::string& candidate) {
  if (pg_) return pg_->set_winner(key, candidate, detail::utc_now_iso8601());
  std::lock_guard lock(*mutex_);
  detail::transaction tx(conn_, detail::transaction::kind::immediate);
  const auto id = find_key_id_(key);
  if (!id) {
    throw invalid_argument_error(
        fmt::format("rocmtpl: tuning_db::set_winner: no tuning record for template '{}' (key {}); store its "
                    "measurements first",
                    key.template_name, key.digest()));
  }
  require_ok_measurement_(*id, candidate, "set_winner");
  detail::statement st(conn_, "UPDATE tuning_keys SET winner = ?1, updated_at = ?2 WHERE id = ?3");
  st.bind_text(1, candidate).bind_text(2, detail::utc_now_iso8601()).bind_int(3, *id).run();
  tx.commit();
}

ROCMTPL_INLINE std::optional<tuning_record> tuning_db::find(const tuning_key& key) const {
  if (pg_) return pg_->find(key);
  std::lock_guard lock(*mutex_);
  detail::transaction tx(conn_, detail::transaction::kind::deferred);  // one consistent snapshot
  detail::statement st(conn_,
                       fmt::format("SELECT {} FROM tuning_keys k WHERE {}", detail::key_columns, detail::key_match));
  bind_key_(st, key);
  if (!st.step()) return std::nullopt;
  tuning_record rec;
  const auto id = detail::read_key_row(st, rec);
  detail::statement ms(conn_, fmt::format("SELECT {} FROM measurements m WHERE m.key_id = ?1 ORDER BY m.id",
                                          detail::measurement_columns));
  ms.bind_int(1, id);
  while (ms.step()) rec.measurements.push_back(detail::read_measurement_row(ms, conn_, 0));
  tx.commit();
  return rec;
}

ROCMTPL_INLINE std::optional<measurement> tuning_db::find_measurement(const tuning_key& key,
                                                                      std::string_view candidate) const {
  if (pg_) return pg_->find_measurement(key, candidate);
  std::lock_guard lock(*mutex_);
  detail::statement st(conn_, fmt::format("SELECT {} FROM measurements m JOIN tuning_keys k ON m.key_id = k.id "
                                          "WHERE {} AND m.candidate = ?9",
                                          detail::measurement_columns, detail::key_match));
  bind_key_(st, key);
  st.bind_text(9, candidate);
  if (!st.step()) return std::nullopt;
  return detail::read_measurement_row(st, conn_, 0);
}

ROCMTPL_INLINE std::vector<tuning_record> tuning_db::list() const {
  if (pg_) return pg_->list();
  std::lock_guard lock(*mutex_);
  detail::transaction tx(conn_, detail::transaction::kind::deferred);
  std::vector<tuning_record> out;
  std::unordered_map<std::int64_t, std::size_t> index;
  detail::statement st(
      conn_, fmt::format("SELECT {} FROM tuning_keys k ORDER BY k.created_at DESC, k.id DESC", detail::key_columns));
  while (st.step()) {
    tuning_record rec;
    index.emplace(detail::read_key_row(st, rec), out.size());
    out.push_back(std::move(rec));
  }
  detail::statement ms(conn_, fmt::format("SELECT {} FROM measurements m ORDER BY m.id", detail::measurement_columns));
  while (ms.step()) {
    if (auto it = index.find(ms.integer(0)); it != index.end()) {
      out[it->second].measurements.push_back(detail::read_measurement_row(ms, conn_, 0));
    }
  }
  tx.commit();
  return out;
}

ROCMTPL_INLINE std::size_t tuning_db::erase(std::optional<std::string> template_name) {
  if (pg_) return pg_->erase(template_name);
  std::lock_guard lock(*mutex_);
  detail::transaction tx(conn_, detail::transaction::kind::immediate);
  std::int64_t removed = 0;
  if (template_name) {
    detail::statement(conn_,
                      "DELETE FROM measurements WHERE key_id IN (SELECT id FROM tuning_keys WHERE template_name = ?1)")
        .bind_text(1, *template_name)
        .run();
    removed =
        detail::statement(conn_, "DELETE FROM tuning_keys WHERE template_name = ?1").bind_text(1, *template_name).run();
  } else {
    detail::statement(conn_, "DELETE FROM measurements").run();
    removed = detail::statement(conn_, "DELETE FROM tuning_keys").run();
  }
  tx.commit();
  return static_cast<std::size_t>(removed);
}

ROCMTPL_INLINE nlohmann::json tuning_db::to_json() const {
  nlohmann::json records = nlohmann::json::array();
  for (const auto& rec : list()) records.push_back(rec);
  return nlohmann::json{{"format", "rocmtpl.tuning_db"},
                        {"schema_version", schema_version},
                        {"path", path_.string()},
                        {"records", std::move(records)}};
}

ROCMTPL_INLINE std::size_t tuning_db::add_batch_items(std::string_view batch, std::string_view target,
                                                      const std::vector<std::pair<std::string, std::string>>& items) {
  if (pg_) return pg_->add_items(batch, target, items, detail::utc_now_iso8601());
  std::lock_guard lock(*mutex_);
  return claims_().add(batch, target, items, detail::utc_now_iso8601());
}

ROCMTPL_INLINE std::optional<batch_claim> tuning_db::claim_batch_item(std::string_view batch, std::string_view target,
                                                                      std::string_view tuner,
                                                                      std::chrono::milliseconds lease) {
  if (pg_) return pg_->claim(batch, target, tuner, lease, detail::utc_now_iso8601());
  std::lock_guard lock(*mutex_);
  return claims_().claim(batch, target, tuner, lease, detail::utc_now_iso8601());
}

ROCMTPL_INLINE bool tuning_db::renew_batch_claim(std::string_view batch, std::string_view target, std::string_view item,
                                                 std::string_view tuner, std::chrono::milliseconds lease) {
  if (pg_) return pg_->renew(batch, target, item, tuner, lease);
  std::lock_guard lock(*mutex_);
  return claims_().renew(batch, target, item, tuner, lease);
}

ROCMTPL_INLINE bool tuning_db::finish_batch_item(std::string_view batch, std::string_view target, std::string_view item,
                                                 std::string_view tuner, batch_state state, std::string_view result) {
  if (state != batch_state::done && state != batch_state::failed) {
    throw invalid_argument_error("rocmtpl: tuning_db::finish_batch_item: the state must be done or failed");
  }
  if (pg_) return pg_->finish(batch, target, item, tuner, state, result, detail::utc_now_iso8601());
  std::lock_guard lock(*mutex_);
  return claims_().finish(batch, target, item, tuner, state, result, detail::utc_now_iso8601());
}

ROCMTPL_INLINE bool tuning_db::release_batch_claim(std::string_view batch, std::string_view target,
                                                   std::string_view item, std::string_view tuner) {
  if (pg_) return pg_->release(batch, target, item, tuner, detail::utc_now_iso8601());
  std::lock_guard lock(*mutex_);
  return claims_().release(batch, target, item, tuner, detail::utc_now_iso8601());
}

ROCMTPL_INLINE std::vector<batch_item> tuning_db::batch_items(std::string_view batch, std::string_view target) const {
  if (pg_) return pg_->items(batch, target);
  std::lock_guard lock(*mutex_);
  return claims_().items(batch, target);
}

ROCMTPL_INLINE std::vector<batch_event> tuning_db::batch_events(std::string_view batch, std::string_view target) const {
  if (pg_) return pg_->events(batch, target);
  std::lock_guard lock(*mutex_);
  return claims_().events(batch, target);
}

ROCMTPL_INLINE std::vector<std::string> tuning_db::batch_targets(std::string_view batch) const {
  if (pg_) return pg_->targets(batch);
  std::lock_guard lock(*mutex_);
  return claims_().targets(batch);
}

// The batch tables are created on first use (under mutex_).
ROCMTPL_INLINE detail::sqlite_claims tuning_db::claims_() const {
  detail::sqlite_claims c(conn_);
  if (!batch_schema_ready_) {
    c.ensure_schema();
    batch_schema_ready_ = true;
  }
  return c;
}

ROCMTPL_INLINE void tuning_db::set_journal_mode_wal_() {
  // Switching to WAL needs an exclusive lock and may report SQLITE_BUSY without waiting in the
  // busy handler while another process creates the same file; retry until the busy timeout.
  const auto deadline = std::chrono::steady_clock::now() + busy_timeout;
  for (;;) {
    const int rc = sqlite3_exec(conn_.get(), "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) {
      conn_.fail("setting `PRAGMA journal_mode = WAL`", rc);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// nullopt when the schema_version table does not exist yet.
ROCMTPL_INLINE std::optional<std::int64_t> tuning_db::read_schema_version_() const {
  detail::statement exists(conn_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  if (!exists.step()) return std::nullopt;
  detail::statement st(conn_, "SELECT version FROM schema_version WHERE id = 1");
  if (!st.step()) return std::nullopt;
  return st.integer(0);
}

ROCMTPL_INLINE void tuning_db::refuse_newer_(std::int64_t found) const {
  if (found <= schema_version) return;
  throw tuning_db_error(
      path_, "opening",
      fmt::format("schema version {} is newer than this rocmtpl understands ({})", found, schema_version), 0,
      "it was written by a newer rocmtpl; use that version, or point ROCMTPL_CACHE_DIR elsewhere");
}

ROCMTPL_INLINE void tuning_db::ensure_schema_() {
  // Fast path: an up-to-date file needs no write lock.
  if (auto v = read_schema_version_()) {
    refuse_newer_(*v);
    if (*v == schema_version) return;
  }
  detail::transaction tx(conn_, detail::transaction::kind::immediate);
  const auto v = read_schema_version_();  // again, under the write lock
  if (v) refuse_newer_(*v);
  // An older file: its tables exist; bring them up to date (another process may have done it
  // between the two reads, then *v is current and there is nothing to do).
  if (v) {
    for (const auto& step : detail::schema_migration(*v)) conn_.exec(step);
  }
  conn_.exec(detail::with_dialect(detail::tuning_tables, detail::sqlite_dialect).c_str());
  detail::statement(conn_,
                    "INSERT INTO schema_version(id, version) VALUES (1, ?1) "
                    "ON CONFLICT(id) DO UPDATE SET version = excluded.version")
      .bind_int(1, schema_version)
      .run();
  tx.commit();
}

ROCMTPL_INLINE void tuning_db::check_key_(const tuning_key& key) {
  if (key.template_name.empty()) {
    throw invalid_argument_error("rocmtpl: tuning_db: tuning_key::template_name is empty; name the template");
  }
}

ROCMTPL_INLINE void tuning_db::check_measurement_(const tuning_key& key, const measurement& m) {
  if (m.candidate.empty()) {
    throw invalid_argument_error("rocmtpl: tuning_db: measurement::candidate is empty; name the candidate");
  }
  // Times are comparable only on one device model (issue 11). A measurement that names no device
  // (a compile failure, or one read from a database older than schema version 2) fits any key.
  if (!m.device.empty() && m.device != key.device) {
    throw device_mismatch_error(m.candidate, key.device, m.device, m.device_id);
  }
}

ROCMTPL_INLINE void tuning_db::bind_key_(detail::statement& st, const tuning_key& key) const {
  st.bind_text(1, key.digest());
  detail::bind_key_fields(st, 2, key);
}

ROCMTPL_INLINE std::optional<std::int64_t> tuning_db::find_key_id_(const tuning_key& key) const {
  detail::statement st(conn_, fmt::format("SELECT k.id FROM tuning_keys k WHERE {}", detail::key_match));
  bind_key_(st, key);
  if (!st.step()) return std::nullopt;
  return st.integer(0);
}

// Inserts the key or touches updated_at; returns its id. Must run inside a write transaction.
ROCMTPL_INLINE std::int64_t tuning_db::upsert_key_(const tuning_key& key, const std::string& now) {
  const auto digest = key.digest();
  detail::statement ins(conn_,
                        "INSERT INTO tuning_keys(digest, template_name, problem, runtime_args, arch, device, "
                        "compiler_version, library_version, winner, created_at, updated_at, descriptor) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL, ?9, ?9, ?10) "
                        "ON CONFLICT(digest) DO UPDATE SET updated_at = excluded.updated_at, "
                        "descriptor = COALESCE(NULLIF(excluded.descriptor, ''), tuning_keys.descriptor)");
  ins.bind_text(1, digest);
  detail::bind_key_fields(ins, 2, key);
  ins.bind_text(9, now).bind_text(10, key.descriptor).run();
  if (auto id = find_key_id_(key)) return *id;
  // The digest is stored but with other field values: a 128-bit collision (or a hand-edited file).
  throw tuning_db_error(path_, fmt::format("storing key {}", digest), "digest collision with another key", 0,
                        "the stored row's fields differ from this key's");
}

ROCMTPL_INLINE void tuning_db::upsert_measurement_(std::int64_t key_id, const measurement& m, const std::string& now) {
  detail::statement st(conn_,
                       "INSERT INTO measurements(key_id, candidate, config, source_hash, status, reason, min_ms, "
                       "median_ms, spread, repetitions, verified, max_error, measured_at, device, device_id) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
                       "ON CONFLICT(key_id, candidate) DO UPDATE SET config = excluded.config, "
                       "source_hash = excluded.source_hash, status = excluded.status, reason = excluded.reason, "
                       "min_ms = excluded.min_ms, median_ms = excluded.median_ms, spread = excluded.spread, "
                       "repetitions = excluded.repetitions, verified = excluded.verified, "
                       "max_error = excluded.max_error, measured_at = excluded.measured_at, "
                       "device = excluded.device, device_id = excluded.device_id");
  st.bind_int(1, key_id)
      .bind_text(2, m.candidate)
      .bind_text(3, m.config)
      .bind_text(4, m.source_hash)
      .bind_text(5, to_string(m.status))
      .bind_text(6, m.reason)
      .bind_real(7, m.min_ms)
      .bind_real(8, m.median_ms)
      .bind_real(9, m.spread)
      .bind_int(10, m.repetitions)
      .bind_int(11, m.verified ? 1 : 0)
      .bind_real(12, m.max_error)
      .bind_text(13, now)
      .bind_text(14, m.device)
      .bind_text(15, m.device_id)
      .run();
}

ROCMTPL_INLINE void tuning_db::require_ok_measurement_(std::int64_t key_id, const std::string& candidate,
                                                       std::string_view caller) const {
  detail::statement st(conn_, "SELECT status FROM measurements WHERE key_id = ?1 AND candidate = ?2");
  st.bind_int(1, key_id).bind_text(2, candidate);
  if (!st.step()) {
    throw invalid_argument_error(fmt::format(
        "rocmtpl: tuning_db::{}: winner '{}' has no measurement for this key; store it first", caller, candidate));
  }
  if (auto status = st.text(0); status != to_string(candidate_status::ok)) {
    throw invalid_argument_error(fmt::format(
        "rocmtpl: tuning_db::{}: winner '{}' has status {}; only an ok candidate can win", caller, candidate, status));
  }
}

}  // namespace rocmtpl::runtime

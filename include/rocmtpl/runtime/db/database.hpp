// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The tuning database: a SQLite file (or a PostgreSQL server, db/postgres.hpp) that
/// remembers every autotuning measurement and the winner.
///
/// Unlike Inductor's autotune JSON (one blob per system, rewritten whole, where one missing choice
/// re-benchmarks every choice and runtime arguments are not part of the key), this database:
/// - keys a tuning problem by every field that changes the answer, runtime arguments included
///   (`tuning_key`), and stores each field in its own column next to a stable digest;
/// - stores one row per (problem, candidate), so the autotuner can look up each candidate on its
///   own (`tuning_db::find_measurement`) and measure only the ones that are missing;
/// - remembers failures (compile, launch, verification, crash, timeout) with their reason, so a
///   failing candidate is not rebuilt on every run;
/// - commits each measurement as it is taken (`tuning_db::add_measurement`), so a crash loses nothing;
/// - is shared safely by several processes (WAL journal, busy timeout, `BEGIN IMMEDIATE` writes);
/// - given a `postgresql://` URL instead of a file, keeps the same records in a PostgreSQL server
///   that tuners on several hosts share, and hands out the problems of a batch to several tuners
///   without overlap (db/claims.hpp).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/json.hpp>
#include <rocmtpl/runtime/db/key.hpp>
#include <rocmtpl/runtime/db/postgres.hpp>
#include <rocmtpl/runtime/db/schema.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rocmtpl::runtime {

namespace detail {

std::string utc_now_iso8601();

// ---- schema -------------------------------------------------------------------------------------

// Column lists shared by the readers, so that column indices stay in one place.
inline constexpr const char* key_columns =
    "k.id, k.template_name, k.problem, k.runtime_args, k.arch, k.device, k.compiler_version, "
    "k.library_version, k.winner, k.created_at, k.updated_at, k.descriptor";
inline constexpr const char* measurement_columns =
    "m.key_id, m.candidate, m.config, m.source_hash, m.status, m.reason, m.min_ms, m.median_ms, m.spread, "
    "m.repetitions, m.verified, m.max_error, m.device, m.device_id";

void bind_key_fields(statement& st, int first, const tuning_key& key);

// Matches a key row by digest *and* every field, so that a digest collision can never return
// another problem's data.
inline constexpr const char* key_match =
    "k.digest = ?1 AND k.template_name = ?2 AND k.problem = ?3 AND k.runtime_args = ?4 AND k.arch = ?5 "
    "AND k.device = ?6 AND k.compiler_version = ?7 AND k.library_version = ?8";

std::int64_t read_key_row(const statement& st, tuning_record& rec);

measurement read_measurement_row(const statement& st, const connection& conn, int c);

}  // namespace detail

/// @brief The persistent tuning database: one SQLite file, or a PostgreSQL database given by a
/// `postgresql://` URL (same records, same calls).
///
/// Several `tuning_db` objects, in one process or many, may use the same file at once: the file is
/// in WAL mode, writers take the write lock at the start of their transaction and wait up to
/// `busy_timeout` for it. One object may be used from several threads (calls are serialised).
/// Do not carry an object across `fork()`: open a new one in the child.
///
/// @code{.cpp}
/// rocmtpl::runtime::tuning_db db;  // <cache root>/tuning.sqlite3
/// rocmtpl::runtime::tuning_key key{"gemm", "f16[M=4096,K=4096] x f16[K,N=4096]", "split_k=1",
///                                  "gfx90a", "AMD Instinct MI210", "clang 15", "0.1.0"};
/// for (const auto& candidate : candidates) {
///   if (db.find_measurement(key, candidate.name)) continue;  // measured before: reuse
///   db.add_measurement(key, benchmark(candidate));            // stored at once
/// }
/// db.set_winner(key, pick_best(*db.find(key)));
/// @endcode
class tuning_db {
 public:
  /// @brief The schema version this build writes and reads. Files with a newer version are refused.
  static constexpr std::int64_t schema_version = tuning_schema_version;
  /// @brief How long a writer waits for another process's write lock before failing.
  static constexpr std::chrono::milliseconds busy_timeout{60'000};

  /// @brief Open (or create) the database file, or connect to a PostgreSQL database.
  ///
  /// A file: creates missing parent directories and the schema, switches the file to WAL mode and
  /// sets the busy timeout. A `postgresql://` (or `postgres://`) URL: connects (libpq's URL form,
  /// e.g. `postgresql://user@host:5432/tuning` or `postgresql:///tuning?host=/run/pg`) and creates
  /// the schema; `path()` is then the URL without its password.
  /// @param file The database file or URL; defaults to `default_path()`.
  /// @throws invalid_argument_error if @p file is empty or a URL of another scheme than postgresql:// (mysql://...).
  /// @throws tuning_db_error if the directory or file cannot be created or opened, the file is not
  ///         a SQLite database (the message names the path), the server cannot be reached, this
  ///         build has no PostgreSQL backend (`postgresql_enabled`), or the schema version is newer
  ///         than `schema_version`.
  explicit tuning_db(std::filesystem::path file = default_path());

  /// @brief Where the database lives by default: `$ROCMTPL_TUNING_DB` when set (a file, or a
  /// `postgresql://` URL), else `cache_root() / "tuning.sqlite3"`, where the cache root is
  /// `$ROCMTPL_CACHE_DIR`, else `$XDG_CACHE_HOME/rocmtpl`, else `$HOME/.cache/rocmtpl`.
  /// @return The path or URL (the environment is read on every call; the cache folder is created).
  /// @throws cache_directory_error if no cache folder can be located or created.
  [[nodiscard]] static std::filesystem::path default_path();

  /// @brief default_path() without creating the cache folder (see open_existing()).
  /// @throws cache_directory_error if no cache folder can be located.
  [[nodiscard]] static std::filesystem::path default_location();

  /// @brief Open a database that exists, for reading it (list, show, export): a file that is not
  /// there is refused, and neither it nor its folders are created (only tuning creates a database).
  /// A URL opens as with the constructor.
  /// @param location The database file or URL; empty: default_location().
  /// @throws invalid_argument_error (`rocmtpl: tuning_db: 'PATH' does not exist; ...`) when the file
  ///         does not exist; what the constructor throws otherwise.
  [[nodiscard]] static tuning_db open_existing(std::filesystem::path location = {});

  /// @brief Whether this object talks to a PostgreSQL server (else a SQLite file).
  [[nodiscard]] bool is_postgresql() const noexcept { return pg_ != nullptr; }

  /// @brief Store the result of a tuning run in one transaction.
  ///
  /// Each measurement is upserted by (key, candidate): candidates stored earlier and absent from
  /// @p measurements are kept, so a re-tune that adds candidates loses nothing. If a candidate
  /// appears twice in @p measurements the last one is kept.
  /// @param key The problem.
  /// @param measurements The measurements of this run.
  /// @param winner The winner over all measurements now stored for @p key, or nullopt when there
  ///        is none (clears a previous winner).
  /// @throws device_mismatch_error if a measurement names a device model other than @p key's
  ///         (nothing is stored then).
  /// @throws invalid_argument_error if a candidate name or the template name is empty, or
  ///         @p winner has no measurement with status ok once @p measurements are stored
  ///         (nothing is stored then).
  /// @throws tuning_db_error on a database error (nothing is stored then).
  void record(const tuning_key& key, const std::vector<measurement>& measurements,
              const std::optional<std::string>& winner);

  /// @brief Store one measurement at once (its own transaction), creating the key if needed.
  ///
  /// The autotuner calls this as each candidate finishes, so a crash loses nothing. Replaces an
  /// earlier measurement of the same candidate; if that candidate was the winner and the new
  /// status is not ok, the winner is cleared.
  /// @param key The problem.
  /// @param m The measurement.
  /// @throws device_mismatch_error if @p m names a device model other than @p key's.
  /// @throws invalid_argument_error if the candidate name or the template name is empty.
  /// @throws tuning_db_error on a database error.
  void add_measurement(const tuning_key& key, const measurement& m);

  /// @brief Mark @p candidate as the winner of @p key.
  /// @param key The problem.
  /// @param candidate A candidate stored for @p key with status ok.
  /// @throws invalid_argument_error if @p key is unknown or @p candidate has no ok measurement for it.
  /// @throws tuning_db_error on a database error.
  void set_winner(const tuning_key& key, const std::string& candidate);

  /// @brief Everything stored for @p key.
  /// @param key The problem (all fields must match).
  /// @return The record, or nullopt when the key was never stored.
  /// @throws tuning_db_error on a database error.
  [[nodiscard]] std::optional<tuning_record> find(const tuning_key& key) const;

  /// @brief The stored measurement of one candidate of @p key: the autotuner measures only the
  /// candidates for which this returns nullopt.
  /// @param key The problem (all fields must match).
  /// @param candidate The candidate name.
  /// @return The measurement, or nullopt.
  /// @throws tuning_db_error on a database error.
  [[nodiscard]] std::optional<measurement> find_measurement(const tuning_key& key, std::string_view candidate) const;

  /// @brief All records, newest first (by `created_at`, then by insertion order).
  /// @return The records with their measurements.
  /// @throws tuning_db_error on a database error.
  [[nodiscard]] std::vector<tuning_record> list() const;

  /// @brief Remove all records, or those of one template.
  /// @param template_name The template whose records to remove; nullopt removes everything.
  /// @return The number of tuning records (keys) removed; their measurements go with them.
  /// @throws tuning_db_error on a database error.
  std::size_t erase(std::optional<std::string> template_name = std::nullopt);

  /// @brief Export everything as JSON.
  ///
  /// Layout: `{"format": "rocmtpl.tuning_db", "schema_version": 2, "path": "...", "records": [
  /// {"digest", "key": {...}, "winner": string|null, "created_at", "updated_at", "measurements": [...]}, ...]}`,
  /// records newest first as in `list()`. Non-finite numbers are written as null by `dump()`.
  /// @return The JSON document.
  /// @throws tuning_db_error on a database error.
  [[nodiscard]] nlohmann::json to_json() const;

  /// @brief The database file, or the PostgreSQL URL without its password.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  // ---- batches shared by several tuners (the protocol: db/claims.hpp) ----

  /// @brief Add the problems of a batch; problems already there (any state) are left alone.
  /// @param batch The batch's name.
  /// @param target What the problems are tuned for (a device, or the archs of a compile-only run).
  /// @param items (id, JSON text) per problem, in batch order (the order claims follow).
  /// @return How many were new.
  /// @throws tuning_db_error on a database error.
  std::size_t add_batch_items(std::string_view batch, std::string_view target,
                              const std::vector<std::pair<std::string, std::string>>& items);

  /// @brief Claim the first problem that is pending, or whose tuner's lease has expired.
  /// @param tuner Who claims (a name unique among the tuners, e.g. host:pid).
  /// @param lease How long the claim holds without `renew_batch_claim`.
  /// @return The claim, or nullopt when no problem is free now (all done, failed, or held).
  /// @throws tuning_db_error on a database error.
  [[nodiscard]] std::optional<batch_claim> claim_batch_item(std::string_view batch, std::string_view target,
                                                            std::string_view tuner, std::chrono::milliseconds lease);

  /// @brief Extend @p tuner's lease on @p item to now + @p lease.
  /// @return false when the claim is no longer @p tuner's (its lease expired and another took it).
  bool renew_batch_claim(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
                         std::chrono::milliseconds lease);

  /// @brief Mark @p item done or failed with a JSON result, if @p tuner still holds it.
  /// @return false (and nothing changes but the log) when the claim was lost.
  bool finish_batch_item(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
                         batch_state state, std::string_view result);

  /// @brief Give @p tuner's claim on @p item back (pending again at once).
  /// @return false when @p tuner did not hold it.
  bool release_batch_claim(std::string_view batch, std::string_view target, std::string_view item,
                           std::string_view tuner);

  /// @brief The problems of a batch, in batch order.
  [[nodiscard]] std::vector<batch_item> batch_items(std::string_view batch, std::string_view target) const;

  /// @brief The log of a batch: every claim, take-over, finish, lost claim and release, oldest first.
  [[nodiscard]] std::vector<batch_event> batch_events(std::string_view batch, std::string_view target) const;

  /// @brief The targets a batch was run for (each tuner records its problems under its target: a
  /// device, or the archs of a compile-only run), sorted; empty when no tuner ran it here. What
  /// `rocmtpl-tune batch --status` shows when it is not told the target.
  [[nodiscard]] std::vector<std::string> batch_targets(std::string_view batch) const;

 private:
  detail::sqlite_claims claims_() const;

  void set_journal_mode_wal_();

  std::optional<std::int64_t> read_schema_version_() const;

  void refuse_newer_(std::int64_t found) const;

  void ensure_schema_();

  static void check_key_(const tuning_key& key);
  static void check_measurement_(const tuning_key& key, const measurement& m);

  void bind_key_(detail::statement& st, const tuning_key& key) const;

  std::optional<std::int64_t> find_key_id_(const tuning_key& key) const;

  std::int64_t upsert_key_(const tuning_key& key, const std::string& now);

  void upsert_measurement_(std::int64_t key_id, const measurement& m, const std::string& now);

  void require_ok_measurement_(std::int64_t key_id, const std::string& candidate, std::string_view caller) const;

  std::filesystem::path path_;
  detail::connection conn_;
  std::unique_ptr<std::mutex> mutex_;     // behind a pointer so that tuning_db stays movable
  std::unique_ptr<detail::pg_store> pg_;  // set: a PostgreSQL database; conn_ is unused then
  mutable bool batch_schema_ready_ = false;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/db/database-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The PostgreSQL backend of the tuning database (`tuning_db{"postgresql://host/db"}`): the
/// same records as the SQLite file, in a server that tuners on several hosts share, and the batch
/// claim protocol (db/claims.hpp) with `SELECT ... FOR UPDATE SKIP LOCKED`.
///
/// Optional at build time: with libpq (Debian libpq-dev) CMake defines `ROCMTPL_HAS_LIBPQ=1` and
/// links it; without it `postgresql_enabled` is false and opening a postgresql:// URL throws a
/// `tuning_db_error` that says how to enable it. Lease times use the server's clock, so the hosts'
/// clocks need not agree.

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/key.hpp>
#include <rocmtpl/runtime/db/schema.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// @cond ROCMTPL_INTERNAL
#if defined(ROCMTPL_HAS_LIBPQ) && ROCMTPL_HAS_LIBPQ
#include <libpq-fe.h>
#define ROCMTPL_DETAIL_PG 1
#else
#define ROCMTPL_DETAIL_PG 0
#endif
/// @endcond

namespace rocmtpl::runtime {

/// @brief Whether this build has the PostgreSQL backend (libpq was found when it was configured).
inline constexpr bool postgresql_enabled = ROCMTPL_DETAIL_PG != 0;

/// @brief Whether @p location names a PostgreSQL database (`postgresql://...` or `postgres://...`)
/// rather than a SQLite file.
[[nodiscard]] inline bool is_postgresql_url(std::string_view location) noexcept {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

/// @brief @p url with its password replaced by `***`, for messages and listings.
[[nodiscard]] std::string redact_postgresql_url(std::string_view url);

/// @brief How long connecting may take unless the URL says otherwise (libpq's `connect_timeout`).
inline constexpr std::chrono::seconds postgresql_connect_timeout{10};
/// @brief How long one statement may run on the server unless the URL says otherwise
/// (`options=-c statement_timeout=...`). The client waits this long and 5 s more for an answer
/// before it gives the connection up, so a server that accepts and then stops answering fails the
/// call instead of hanging it.
inline constexpr std::chrono::milliseconds postgresql_statement_timeout{60000};

/// @brief @p url with the library's defaults for what it does not set: `connect_timeout=10`, TCP
/// keepalives (`keepalives=1`, `keepalives_idle=30`, `keepalives_interval=10`, `keepalives_count=3`:
/// a dead peer is noticed in about a minute) and `options=-c statement_timeout=60000`. A parameter
/// the URL sets is kept as it is (the environment's PGCONNECT_TIMEOUT and PGOPTIONS count as set:
/// PGOPTIONS is kept in front of an added statement timeout); `options` without a statement timeout
/// gets one appended. Needs no libpq.
///
/// @code{.cpp}
/// postgresql_url_with_defaults("postgresql://host/db?connect_timeout=3")
/// // "postgresql://host/db?connect_timeout=3&keepalives=1&keepalives_idle=30&keepalives_interval=10"
/// // "&keepalives_count=3&options=-c%20statement_timeout%3D60000"
/// @endcode
[[nodiscard]] std::string postgresql_url_with_defaults(std::string_view url);

namespace detail {

std::string pg_percent_decode(std::string_view text);

std::string pg_percent_encode(std::string_view text);

// The URL's query parameters, decoded, in order.
std::vector<std::pair<std::string, std::string>> pg_url_parameters(std::string_view url);

#if ROCMTPL_DETAIL_PG

struct pg_conn_closer {
  void operator()(PGconn* c) const noexcept { PQfinish(c); }
};
struct pg_result_clearer {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using pg_result = std::unique_ptr<PGresult, pg_result_clearer>;
using pg_param = std::optional<std::string>;

std::string pg_real(double v);

/// One libpq connection; values are always sent as parameters, never spliced into SQL. Opened with
/// postgresql_url_with_defaults(): nothing it does waits without a limit.
class pg_connection {
 public:
  explicit pg_connection(const std::string& url);

  [[nodiscard]] const std::string& location() const noexcept { return location_; }

  void exec(const char* sql) const;

  pg_result exec(std::string_view sql, const std::vector<pg_param>& params) const;

  // Rows changed by an INSERT/UPDATE/DELETE.
  static std::int64_t changed(const pg_result& r) { return std::strtoll(PQcmdTuples(r.get()), nullptr, 10); }

  // How long a call waits for the server's answer (the statement timeout and 5 s more; zero: no limit).
  [[nodiscard]] std::chrono::milliseconds answer_timeout() const noexcept { return answer_timeout_; }

 private:
  static std::string trimmed(const char* message);

  void check(const pg_result& r, std::string_view sql) const;

  // Waits for the results of the query just sent, at most answer_timeout_; the first error, else the last result.
  pg_result collect(std::string_view sql) const;

  std::unique_ptr<PGconn, pg_conn_closer> conn_;
  std::string location_;
  std::chrono::milliseconds answer_timeout_{0};
  mutable bool abandoned_ = false;  // a call timed out: the connection's state is unknown
};

// The server's `SHOW statement_timeout` ("0", "500ms", "60s", "1min", "2h", "1d") in milliseconds.
std::optional<std::chrono::milliseconds> pg_parse_duration(std::string_view text);

/// A transaction that rolls back unless committed.
class pg_transaction {
 public:
  explicit pg_transaction(const pg_connection& c, const char* begin = "BEGIN");
  pg_transaction(const pg_transaction&) = delete;
  pg_transaction& operator=(const pg_transaction&) = delete;
  ~pg_transaction();
  void commit();

 private:
  const pg_connection* conn_;
  bool open_ = true;
};

// The server's clock in milliseconds since the epoch: leases of tuners on different hosts compare
// against one clock.
inline constexpr std::string_view pg_now_ms = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

inline constexpr std::string_view pg_key_columns =
    "k.id, k.template_name, k.problem, k.runtime_args, k.arch, k.device, k.compiler_version, k.library_version, "
    "k.winner, k.created_at, k.updated_at, k.descriptor";
inline constexpr std::string_view pg_measurement_columns =
    "m.key_id, m.candidate, m.config, m.source_hash, m.status, m.reason, m.min_ms, m.median_ms, m.spread, "
    "m.repetitions, m.verified, m.max_error, m.device, m.device_id";
inline constexpr std::string_view pg_key_match =
    "k.digest = $1 AND k.template_name = $2 AND k.problem = $3 AND k.runtime_args = $4 AND k.arch = $5 "
    "AND k.device = $6 AND k.compiler_version = $7 AND k.library_version = $8";

/// The tuning database in a PostgreSQL server. Calls are serialised (one connection).
class pg_store {
 public:
  static constexpr std::int64_t schema_version = tuning_schema_version;

  explicit pg_store(const std::string& url);

  [[nodiscard]] const std::string& location() const noexcept { return conn_.location(); }

  void record(const tuning_key& key, const std::vector<measurement>& ms, const std::optional<std::string>& winner,
              const std::string& now);

  void add_measurement(const tuning_key& key, const measurement& m, const std::string& now);

  void set_winner(const tuning_key& key, const std::string& candidate, const std::string& now);

  [[nodiscard]] std::optional<tuning_record> find(const tuning_key& key) const;

  [[nodiscard]] std::optional<measurement> find_measurement(const tuning_key& key, std::string_view candidate) const;

  [[nodiscard]] std::vector<tuning_record> list() const;

  std::size_t erase(const std::optional<std::string>& template_name);

  // ---- batch claims (db/claims.hpp) ----

  std::size_t add_items(std::string_view batch, std::string_view target,
                        const std::vector<std::pair<std::string, std::string>>& items, const std::string& now);

  std::optional<batch_claim> claim(std::string_view batch, std::string_view target, std::string_view tuner,
                                   std::chrono::milliseconds lease, const std::string& now);

  bool renew(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
             std::chrono::milliseconds lease);

  bool finish(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
              batch_state state, std::string_view result, const std::string& now);

  bool release(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
               const std::string& now);

  [[nodiscard]] std::vector<batch_item> items(std::string_view batch, std::string_view target) const;

  [[nodiscard]] std::vector<batch_event> events(std::string_view batch, std::string_view target) const;

  [[nodiscard]] std::vector<std::string> targets(std::string_view batch) const;

 private:
  void ensure_schema();

  std::optional<std::int64_t> stored_version() const;

  static std::vector<pg_param> key_params(const tuning_key& key);

  static std::optional<std::string> optional_text(const pg_result& r, int row, int col);

  static double real(const pg_result& r, int row, int col);

  static std::int64_t read_key_row(const pg_result& r, int row, tuning_record& rec);

  measurement read_measurement_row(const pg_result& r, int row) const;

  std::optional<std::int64_t> find_key_id(const tuning_key& key) const;

  std::int64_t upsert_key(const tuning_key& key, const std::string& now);

  void upsert_measurement(std::int64_t key_id, const measurement& m, const std::string& now);

  void require_ok(std::int64_t key_id, const std::string& candidate, std::string_view caller) const;

  void log(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
           std::string_view event, const std::string& now) const;

  pg_connection conn_;
  mutable std::mutex mutex_;
};

#else  // no libpq: the same name, refusing to open

class pg_store {
 public:
  explicit pg_store(const std::string& url);
  [[noreturn]] static void unreachable() { std::abort(); }
  [[nodiscard]] const std::string& location() const noexcept { unreachable(); }
  void record(const tuning_key&, const std::vector<measurement>&, const std::optional<std::string>&,
              const std::string&) {
    unreachable();
  }
  void add_measurement(const tuning_key&, const measurement&, const std::string&) { unreachable(); }
  void set_winner(const tuning_key&, const std::string&, const std::string&) { unreachable(); }
  [[nodiscard]] std::optional<tuning_record> find(const tuning_key&) const { unreachable(); }
  [[nodiscard]] std::optional<measurement> find_measurement(const tuning_key&, std::string_view) const {
    unreachable();
  }
  [[nodiscard]] std::vector<tuning_record> list() const { unreachable(); }
  std::size_t erase(const std::optional<std::string>&) { unreachable(); }
  std::size_t add_items(std::string_view, std::string_view, const std::vector<std::pair<std::string, std::string>>&,
                        const std::string&) {
    unreachable();
  }
  std::optional<batch_claim> claim(std::string_view, std::string_view, std::string_view, std::chrono::milliseconds,
                                   const std::string&) {
    unreachable();
  }
  bool renew(std::string_view, std::string_view, std::string_view, std::string_view, std::chrono::milliseconds) {
    unreachable();
  }
  bool finish(std::string_view, std::string_view, std::string_view, std::string_view, batch_state, std::string_view,
              const std::string&) {
    unreachable();
  }
  bool release(std::string_view, std::string_view, std::string_view, std::string_view, const std::string&) {
    unreachable();
  }
  [[nodiscard]] std::vector<batch_item> items(std::string_view, std::string_view) const { unreachable(); }
  [[nodiscard]] std::vector<batch_event> events(std::string_view, std::string_view) const { unreachable(); }
  [[nodiscard]] std::vector<std::string> targets(std::string_view) const { unreachable(); }
};

#endif

}  // namespace detail

}  // namespace rocmtpl::runtime

#undef ROCMTPL_DETAIL_PG

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/db/postgres-inl.hpp>
#endif

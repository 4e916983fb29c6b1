// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/db/postgres.hpp: included at its end (header-only) or compiled once by
// src/runtime/db.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/key.hpp>
#include <rocmtpl/runtime/db/schema.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>

#include <fmt/format.h>

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
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

ROCMTPL_INLINE std::string redact_postgresql_url(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const auto authority_end = url.find_first_of("/?", scheme + 3);
  const auto at = url.rfind('@', authority_end);
  if (at == std::string_view::npos || at < scheme + 3) return std::string(url);
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return fmt::format("{}***{}", url.substr(0, colon + 1), url.substr(at));
}

namespace detail {

ROCMTPL_INLINE std::string pg_percent_decode(std::string_view text) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

ROCMTPL_INLINE std::string pg_percent_encode(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || c == '.' || c == '~' || c == '/' || c == ':';
    if (plain) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

ROCMTPL_INLINE std::vector<std::pair<std::string, std::string>> pg_url_parameters(std::string_view url) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto q = url.find('?');
  if (q == std::string_view::npos) return out;
  std::string_view rest = url.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto item = rest.substr(0, amp);
    if (!item.empty()) {
      const auto eq = item.find('=');
      out.emplace_back(pg_percent_decode(item.substr(0, eq)),
                       eq == std::string_view::npos ? std::string() : pg_percent_decode(item.substr(eq + 1)));
    }
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return out;
}

}  // namespace detail

ROCMTPL_INLINE std::string postgresql_url_with_defaults(std::string_view url) {
  const auto given = detail::pg_url_parameters(url);
  const auto find = [&](std::string_view key) -> const std::string* {
    for (const auto& [k, v] : given) {
      if (k == key) return &v;
    }
    return nullptr;
  };
  const auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
  std::vector<std::pair<std::string, std::string>> added;
  if (!find("connect_timeout") && !env("PGCONNECT_TIMEOUT")) {
    added.emplace_back("connect_timeout", std::to_string(postgresql_connect_timeout.count()));
  }
  for (const auto& [k, v] : {std::pair<const char*, const char*>{"keepalives", "1"},
                             {"keepalives_idle", "30"},
                             {"keepalives_interval", "10"},
                             {"keepalives_count", "3"}}) {
    if (!find(k)) added.emplace_back(k, v);
  }
  const auto statement = fmt::format("-c statement_timeout={}", postgresql_statement_timeout.count());
  std::string base = url.find('?') == std::string_view::npos ? std::string(url) + "?" : std::string(url);
  if (const std::string* options = find("options")) {
    if (options->find("statement_timeout") == std::string::npos) {
      // Rewritten in place: the URL's options, then the statement timeout.
      std::string rebuilt = std::string(url.substr(0, url.find('?') + 1));
      bool first = true;
      for (const auto& [k, v] : given) {
        if (!first) rebuilt += '&';
        first = false;
        rebuilt += detail::pg_percent_encode(k) + "=" +
                   detail::pg_percent_encode(k == "options" ? (v.empty() ? statement : v + " " + statement) : v);
      }
      base = rebuilt;
    }
  } else {
    const auto from_env = env("PGOPTIONS");
    if (!from_env) {
      added.emplace_back("options", statement);
    } else if (from_env->find("statement_timeout") == std::string::npos) {
      added.emplace_back("options", *from_env + " " + statement);  // the URL's options replace PGOPTIONS
    }
  }
  std::string out = base;
  for (const auto& [k, v] : added) {
    if (out.back() != '?' && out.back() != '&') out += '&';
    out += detail::pg_percent_encode(k) + "=" + detail::pg_percent_encode(v);
  }
  if (out.back() == '?' || out.back() == '&') out.pop_back();
  return out;
}

namespace detail {

#if ROCMTPL_DETAIL_PG

// Doubles as text that PostgreSQL reads back bit for bit (17 significant digits; NaN and infinities
// by name).
ROCMTPL_INLINE std::string pg_real(double v) {
  if (v != v) return "NaN";
  if (v == std::numeric_limits<double>::infinity()) return "Infinity";
  if (v == -std::numeric_limits<double>::infinity()) return "-Infinity";
  return fmt::format("{:.17g}", v);
}

ROCMTPL_INLINE std::optional<std::chrono::milliseconds> pg_parse_duration(std::string_view text) {
  std::size_t i = 0;
  long long value = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
  if (i == 0) return std::nullopt;
  const auto unit = text.substr(i);
  long long ms = 0;
  if (unit.empty() || unit == "ms") {
    ms = value;
  } else if (unit == "s") {
    ms = value * 1000;
  } else if (unit == "min") {
    ms = value * 60000;
  } else if (unit == "h") {
    ms = value * 3600000;
  } else if (unit == "d") {
    ms = value * 86400000;
  } else {
    return std::nullopt;
  }
  return std::chrono::milliseconds(ms);
}

ROCMTPL_INLINE pg_connection::pg_connection(const std::string& url) : location_(redact_postgresql_url(url)) {
  const auto effective = postgresql_url_with_defaults(url);
  conn_.reset(PQconnectdb(effective.c_str()));
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK) {
    std::string msg = conn_ ? trimmed(PQerrorMessage(conn_.get())) : "out of memory";
    std::string hint = "check that the server runs and the URL (host, port, user, database) is right";
    if (msg.find("timeout expired") != std::string::npos) {
      // libpq's own words name the host and port; say which limit that was and how to change it.
      std::string limit = fmt::format("the default connect_timeout={}", postgresql_connect_timeout.count());
      std::string seconds = std::to_string(postgresql_connect_timeout.count());
      const char* env = std::getenv("PGCONNECT_TIMEOUT");  // NOLINT(concurrency-mt-unsafe)
      if (env != nullptr && *env != '\0') {
        limit = fmt::format("PGCONNECT_TIMEOUT={}", env);
        seconds = env;
      }
      for (const auto& [k, v] : pg_url_parameters(url)) {
        if (k != "connect_timeout") continue;
        limit = fmt::format("the URL's connect_timeout={}", v);
        seconds = v;
      }
      msg = fmt::format("timed out: no answer from the server within {} s ({}): {}", seconds, limit, msg);
      hint =
          "the server accepts connections but does not answer (a hung server, or something else on that port); "
          "set connect_timeout=<seconds> in the URL to wait longer";
    }
    throw tuning_db_error(location_, "connect", std::move(msg), 0, hint);
  }
  // `CREATE TABLE IF NOT EXISTS` on an existing table sends a NOTICE: keep stderr quiet.
  PQsetNoticeProcessor(
      conn_.get(), [](void*, const char*) {}, nullptr);
  // What the server enforces (the URL, PGOPTIONS, or the role's or database's setting), plus 5 s:
  // a server that stops answering fails the call after that.
  answer_timeout_ = postgresql_statement_timeout + std::chrono::seconds(5);
  pg_result r = exec("SHOW statement_timeout", {});
  if (PQntuples(r.get()) == 1) {
    if (const auto t = pg_parse_duration(PQgetvalue(r.get(), 0, 0))) {
      answer_timeout_ = t->count() == 0 ? std::chrono::milliseconds(0) : *t + std::chrono::seconds(5);
    }
  }
}

// SQL without parameters; may hold several statements.
ROCMTPL_INLINE void pg_connection::exec(const char* sql) const {
  if (!abandoned_ && PQsendQuery(conn_.get(), sql) == 1) {
    check(collect(sql), sql);
    return;
  }
  check(pg_result(nullptr), sql);
}

ROCMTPL_INLINE pg_result pg_connection::exec(std::string_view sql, const std::vector<pg_param>& params) const {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  const std::string text(sql);
  if (abandoned_ || PQsendQueryParams(conn_.get(), text.c_str(), static_cast<int>(values.size()), nullptr,
                                      values.data(), nullptr, nullptr, 0) != 1) {
    check(pg_result(nullptr), text);
  }
  pg_result r = collect(text);
  check(r, text);
  return r;
}

ROCMTPL_INLINE pg_result pg_connection::collect(std::string_view sql) const {
  using clock = std::chrono::steady_clock;
  const bool limited = answer_timeout_.count() > 0;
  const auto deadline = clock::now() + answer_timeout_;
  pg_result first_error;  // like PQexec: the first error, else the last result
  pg_result last;
  for (;;) {
    while (PQisBusy(conn_.get()) == 1) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
      if (limited && left <= 0) {
        abandoned_ = true;  // the answer may still come: this connection can no longer be used
        throw tuning_db_error(
            location_, fmt::format("running `{}`", sql),
            fmt::format("no answer from the server within {} ms (statement_timeout + 5 s)", answer_timeout_.count()), 0,
            "the server stopped answering (hung, overloaded, or the network is down); set "
            "options=-c%20statement_timeout%3D<ms> in the URL to allow longer statements");
      }
      pollfd p{PQsocket(conn_.get()), POLLIN, 0};
      const int r = ::poll(&p, 1, limited ? static_cast<int>(std::min<long long>(left, 1000)) : 1000);
      if (r < 0 && errno != EINTR) break;
      if (r > 0 && PQconsumeInput(conn_.get()) != 1) break;  // the connection failed: PQgetResult says why
    }
    pg_result r(PQgetResult(conn_.get()));
    if (!r) break;
    const auto status = PQresultStatus(r.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      last = std::move(r);
      continue;
    }
    if (!first_error) first_error = std::move(r);
    if (PQstatus(conn_.get()) != CONNECTION_OK) break;  // a lost connection: nothing more will come
  }
  return first_error ? std::move(first_error) : std::move(last);
}

ROCMTPL_INLINE std::string pg_connection::trimmed(const char* message) {
  std::string s = message != nullptr ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

ROCMTPL_INLINE void pg_connection::check(const pg_result& r, std::string_view sql) const {
  if (!r && abandoned_) {
    throw tuning_db_error(location_, fmt::format("running `{}`", sql),
                          "this connection was given up when the server stopped answering an earlier call", 0,
                          "open the database again");
  }
  const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  std::string msg = r ? trimmed(PQresultErrorMessage(r.get())) : trimmed(PQerrorMessage(conn_.get()));
  throw tuning_db_error(location_, fmt::format("running `{}`", sql), std::move(msg), 0,
                        PQstatus(conn_.get()) == CONNECTION_OK ? "" : "the connection to the server was lost");
}

ROCMTPL_INLINE pg_transaction::pg_transaction(const pg_connection& c, const char* begin) : conn_(&c) { c.exec(begin); }

ROCMTPL_INLINE pg_transaction::~pg_transaction() {
  if (open_) {
    try {
      conn_->exec("ROLLBACK");
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failed rollback leaves nothing to undo
    }
  }
}

ROCMTPL_INLINE void pg_transaction::commit() {
  conn_->exec("COMMIT");
  open_ = false;
}

ROCMTPL_INLINE pg_store::pg_store(const std::string& url) : conn_(url) { ensure_schema(); }

ROCMTPL_INLINE void pg_store::record(const tuning_key& key, const std::vector<measurement>& ms,
                                     const std::optional<std::string>& winner, const std::string& now) {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_);
  const auto id = upsert_key(key, now);
  for (const auto& m : ms) upsert_measurement(id, m, now);
  if (winner) require_ok(id, *winner, "record");
  conn_.exec("UPDATE tuning_keys SET winner = $1 WHERE id = $2", {winner, std::to_string(id)});
  tx.commit();
}

ROCMTPL_INLINE void pg_store::add_measurement(const tuning_key& key, const measurement& m, const std::string& now) {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_);
  const auto id = upsert_key(key, now);
  upsert_measurement(id, m, now);
  if (m.status != candidate_status::ok) {
    conn_.exec("UPDATE tuning_keys SET winner = NULL WHERE id = $1 AND winner = $2", {std::to_string(id), m.candidate});
  }
  tx.commit();
}

ROCMTPL_INLINE void pg_store::set_winner(const tuning_key& key, const std::string& candidate, const std::string& now) {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_);
  const auto id = find_key_id(key);
  if (!id) {
    throw invalid_argument_error(
        fmt::format("rocmtpl: tuning_db::set_winner: no tuning record for template '{}' (key {}); store its "
                    "measurements first",
                    key.template_name, key.digest()));
  }
  require_ok(*id, candidate, "set_winner");
  conn_.exec("UPDATE tuning_keys SET winner = $1, updated_at = $2 WHERE id = $3",
             {candidate, now, std::to_string(*id)});
  tx.commit();
}

ROCMTPL_INLINE std::optional<tuning_record> pg_store::find(const tuning_key& key) const {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");  // one snapshot
  auto r =
      conn_.exec(fmt::format("SELECT {} FROM tuning_keys k WHERE {}", pg_key_columns, pg_key_match), key_params(key));
  if (PQntuples(r.get()) == 0) return std::nullopt;
  tuning_record rec;
  const auto id = read_key_row(r, 0, rec);
  auto ms =
      conn_.exec(fmt::format("SELECT {} FROM measurements m WHERE m.key_id = $1 ORDER BY m.id", pg_measurement_columns),
                 {std::to_string(id)});
  for (int row = 0; row < PQntuples(ms.get()); ++row) rec.measurements.push_back(read_measurement_row(ms, row));
  tx.commit();
  return rec;
}

ROCMTPL_INLINE std::optional<measurement> pg_store::find_measurement(const tuning_key& key,
                                                                     std::string_view candidate) const {
  std::lock_guard lock(mutex_);
  auto params = key_params(key);
  params.emplace_back(std::string(candidate));
  auto r = conn_.exec(fmt::format("SELECT {} FROM measurements m JOIN tuning_keys k ON m.key_id = k.id WHERE {} "
                                  "AND m.candidate = $9",
                                  pg_measurement_columns, pg_key_match),
                      params);
  if (PQntuples(r.get()) == 0) return std::nullopt;
  return read_measurement_row(r, 0);
}

ROCMTPL_INLINE std::vector<tuning_record> pg_store::list() const {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  std::vector<tuning_record> out;
  std::vector<std::pair<std::int64_t, std::size_t>> index;
  auto r =
      conn_.exec(fmt::format("SELECT {} FROM tuning_keys k ORDER BY k.created_at DESC, k.id DESC", pg_key_columns), {});
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    tuning_record rec;
    index.emplace_back(read_key_row(r, row, rec), out.size());
    out.push_back(std::move(rec));
  }
  std::sort(index.begin(), index.end());
  auto ms = conn_.exec(fmt::format("SELECT {} FROM measurements m ORDER BY m.id", pg_measurement_columns), {});
  for (int row = 0; row < PQntuples(ms.get()); ++row) {
    const std::int64_t key_id = std::strtoll(PQgetvalue(ms.get(), row, 0), nullptr, 10);
    auto it = std::lower_bound(index.begin(), index.end(), std::pair<std::int64_t, std::size_t>{key_id, 0});
    if (it != index.end() && it->first == key_id) out[it->second].measurements.push_back(read_measurement_row(ms, row));
  }
  tx.commit();
  return out;
}

ROCMTPL_INLINE std::size_t pg_store::erase(const std::optional<std::string>& template_name) {
  std::lock_guard lock(mutex_);
  // Measurements go with their key (ON DELETE CASCADE).
  auto r = template_name ? conn_.exec("DELETE FROM tuning_keys WHERE template_name = $1", {*template_name})
                         : conn_.exec("DELETE FROM tuning_keys", {});
  return static_cast<std::size_t>(pg_connection::changed(r));
}

ROCMTPL_INLINE std::size_t pg_store::add_items(std::string_view batch, std::string_view target,
                                               const std::vector<std::pair<std::string, std::string>>& items,
                                               const std::string& now) {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_);
  std::size_t added = 0;
  std::int64_t position = 0;
  for (const auto& [item, spec] : items) {
    auto r = conn_.exec(
        "INSERT INTO batch_items(batch, target, item, position, spec, state, updated_at) "
        "VALUES ($1, $2, $3, $4, $5, 'pending', $6) ON CONFLICT DO NOTHING",
        {std::string(batch), std::string(target), item, std::to_string(position++), spec, now});
    added += static_cast<std::size_t>(pg_connection::changed(r));
  }
  tx.commit();
  return added;
}

ROCMTPL_INLINE std::optional<batch_claim> pg_store::claim(std::string_view batch, std::string_view target,
                                                          std::string_view tuner, std::chrono::milliseconds lease,
                                                          const std::string& now) {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_);
  // SKIP LOCKED: a row another tuner is claiming right now is passed over, not waited for.
  auto r = conn_.exec(
      fmt::format("WITH next AS (SELECT item, claimed_by AS previous, state AS old_state FROM batch_items "
                  "WHERE batch = $1 AND target = $2 AND (state = 'pending' OR (state = 'claimed' AND lease_until < "
                  "{0})) ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED) "
                  "UPDATE batch_items b SET state = 'claimed', claimed_by = $3, lease_until = {0} + $4::bigint, "
                  "attempts = b.attempts + 1, updated_at = $5 FROM next "
                  "WHERE b.batch = $1 AND b.target = $2 AND b.item = next.item "
                  "RETURNING b.item, b.position, b.spec, b.attempts, "
                  "CASE WHEN next.old_state = 'claimed' THEN next.previous END",
                  pg_now_ms),
      {std::string(batch), std::string(target), std::string(tuner), std::to_string(lease.count()), now});
  if (PQntuples(r.get()) == 0) return std::nullopt;
  batch_claim c;
  c.item = PQgetvalue(r.get(), 0, 0);
  c.position = std::strtoll(PQgetvalue(r.get(), 0, 1), nullptr, 10);
  c.spec = PQgetvalue(r.get(), 0, 2);
  c.attempts = std::strtoll(PQgetvalue(r.get(), 0, 3), nullptr, 10);
  if (PQgetisnull(r.get(), 0, 4) == 0) c.previous = PQgetvalue(r.get(), 0, 4);
  log(batch, target, c.item, tuner, c.previous ? "reclaimed" : "claimed", now);
  tx.commit();
  return c;
}

ROCMTPL_INLINE bool pg_store::renew(std::string_view batch, std::string_view target, std::string_view item,
                                    std::string_view tuner, std::chrono::milliseconds lease) {
  std::lock_guard lock(mutex_);
  auto r = conn_.exec(
      fmt::format("UPDATE batch_items SET lease_until = {} + $5::bigint WHERE batch = $1 AND "
                  "target = $2 AND item = $3 AND state = 'claimed' AND claimed_by = $4",
                  pg_now_ms),
      {std::string(batch), std::string(target), std::string(item), std::string(tuner), std::to_string(lease.count())});
  return pg_connection::changed(r) == 1;
}

ROCMTPL_INLINE bool pg_store::finish(std::string_view batch, std::string_view target, std::string_view item,
                                     std::string_view tuner, batch_state state, std::string_view result,
                                     const std::string& now) {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_);
  auto r = conn_.exec(
      "UPDATE batch_items SET state = $5, result = $6, finished_by = $4, claimed_by = NULL, lease_until = NULL, "
      "updated_at = $7 WHERE batch = $1 AND target = $2 AND item = $3 AND state = 'claimed' AND claimed_by = $4",
      {std::string(batch), std::string(target), std::string(item), std::string(tuner), std::string(to_string(state)),
       std::string(result), now});
  const bool ok = pg_connection::changed(r) == 1;
  log(batch, target, item, tuner, ok ? to_string(state) : std::string_view("lost"), now);
  tx.commit();
  return ok;
}

ROCMTPL_INLINE bool pg_store::release(std::string_view batch, std::string_view target, std::string_view item,
                                      std::string_view tuner, const std::string& now) {
  std::lock_guard lock(mutex_);
  pg_transaction tx(conn_);
  auto r = conn_.exec(
      "UPDATE batch_items SET state = 'pending', claimed_by = NULL, lease_until = NULL, updated_at = $5 "
      "WHERE batch = $1 AND target = $2 AND item = $3 AND state = 'claimed' AND claimed_by = $4",
      {std::string(batch), std::string(target), std::string(item), std::string(tuner), now});
  const bool ok = pg_connection::changed(r) == 1;
  if (ok) log(batch, target, item, tuner, "released", now);
  tx.commit();
  return ok;
}

ROCMTPL_INLINE std::vector<batch_item> pg_store::items(std::string_view batch, std::string_view target) const {
  std::lock_guard lock(mutex_);
  auto r = conn_.exec(
      "SELECT item, position, spec, state, claimed_by, attempts, result, finished_by FROM batch_items "
      "WHERE batch = $1 AND target = $2 ORDER BY position",
      {std::string(batch), std::string(target)});
  std::vector<batch_item> out;
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    batch_item it;
    it.item = PQgetvalue(r.get(), row, 0);
    it.position = std::strtoll(PQgetvalue(r.get(), row, 1), nullptr, 10);
    it.spec = PQgetvalue(r.get(), row, 2);
    it.state = parse_batch_state(PQgetvalue(r.get(), row, 3));
    it.claimed_by = optional_text(r, row, 4);
    it.attempts = std::strtoll(PQgetvalue(r.get(), row, 5), nullptr, 10);
    it.result = optional_text(r, row, 6);
    it.finished_by = optional_text(r, row, 7);
    out.push_back(std::move(it));
  }
  return out;
}

ROCMTPL_INLINE std::vector<std::string> pg_store::targets(std::string_view batch) const {
  std::lock_guard lock(mutex_);
  auto r = conn_.exec("SELECT DISTINCT target FROM batch_items WHERE batch = $1 ORDER BY target", {std::string(batch)});
  std::vector<std::string> out;
  for (int row = 0; row < PQntuples(r.get()); ++row) out.emplace_back(PQgetvalue(r.get(), row, 0));
  return out;
}

ROCMTPL_INLINE std::vector<batch_event> pg_store::events(std::string_view batch, std::string_view target) const {
  std::lock_guard lock(mutex_);
  auto r = conn_.exec("SELECT item, tuner, event, at FROM batch_events WHERE batch = $1 AND target = $2 ORDER BY id",
                      {std::string(batch), std::string(target)});
  std::vector<batch_event> out;
  for (int row = 0; row < PQntuples(r.get()); ++row) {
    out.push_back(batch_event{PQgetvalue(r.get(), row, 0), PQgetvalue(r.get(), row, 1), PQgetvalue(r.get(), row, 2),
                              PQgetvalue(r.get(), row, 3)});
  }
  return out;
}

ROCMTPL_INLINE void pg_store::ensure_schema() {
  // Concurrent `CREATE TABLE IF NOT EXISTS` can collide in PostgreSQL's catalog: one tuner at a
  // time creates (or migrates) the schema, under a transaction-scoped advisory lock.
  pg_transaction tx(conn_);
  conn_.exec("SELECT pg_advisory_xact_lock(7234185820614410301)", {});
  if (const auto found = stored_version()) {
    if (*found > schema_version) {
      throw tuning_db_error(
          conn_.location(), "opening",
          fmt::format("schema version {} is newer than this rocmtpl understands ({})", *found, schema_version), 0,
          "it was written by a newer rocmtpl; use that version, or another database");
    }
    for (const auto& step : schema_migration(*found)) conn_.exec(step);  // an older database
  }
  conn_.exec(with_dialect(tuning_tables, postgresql_dialect).c_str());
  conn_.exec(with_dialect(batch_tables, postgresql_dialect).c_str());
  conn_.exec(
      "INSERT INTO schema_version(id, version) VALUES (1, $1) ON CONFLICT(id) DO UPDATE SET version = "
      "excluded.version",
      {std::to_string(schema_version)});
  tx.commit();
}

// The schema version stored in the database; nullopt in a new database.
ROCMTPL_INLINE std::optional<std::int64_t> pg_store::stored_version() const {
  auto exists = conn_.exec("SELECT to_regclass('schema_version') IS NOT NULL", {});
  if (std::string_view(PQgetvalue(exists.get(), 0, 0)) != "t") return std::nullopt;
  auto v = conn_.exec("SELECT version FROM schema_version WHERE id = 1", {});
  if (PQntuples(v.get()) != 1) return std::nullopt;
  return std::strtoll(PQgetvalue(v.get(), 0, 0), nullptr, 10);
}

ROCMTPL_INLINE std::vector<pg_param> pg_store::key_params(const tuning_key& key) {
  return {key.digest(), key.template_name, key.problem,          key.runtime_args,
          key.arch,     key.device,        key.compiler_version, key.library_version};
}

ROCMTPL_INLINE std::optional<std::string> pg_store::optional_text(const pg_result& r, int row, int col) {
  if (PQgetisnull(r.get(), row, col) != 0) return std::nullopt;
  return std::string(PQgetvalue(r.get(), row, col));
}

ROCMTPL_INLINE double pg_store::real(const pg_result& r, int row, int col) {
  if (PQgetisnull(r.get(), row, col) != 0) return std::numeric_limits<double>::quiet_NaN();
  return std::strtod(PQgetvalue(r.get(), row, col), nullptr);  // reads NaN, Infinity, -Infinity too
}

ROCMTPL_INLINE std::int64_t pg_store::read_key_row(const pg_result& r, int row, tuning_record& rec) {
  auto text = [&](int col) { return std::string(PQgetvalue(r.get(), row, col)); };
  rec.key.template_name = text(1);
  rec.key.problem = text(2);
  rec.key.runtime_args = text(3);
  rec.key.arch = text(4);
  rec.key.device = text(5);
  rec.key.compiler_version = text(6);
  rec.key.library_version = text(7);
  rec.winner = optional_text(r, row, 8);
  rec.created_at = text(9);
  rec.updated_at = text(10);
  rec.key.descriptor = text(11);
  return std::strtoll(PQgetvalue(r.get(), row, 0), nullptr, 10);
}

ROCMTPL_INLINE measurement pg_store::read_measurement_row(const pg_result& r, int row) const {
  auto text = [&](int col) { return std::string(PQgetvalue(r.get(), row, col)); };
  measurement m;
  m.candidate = text(1);
  m.config = text(2);
  m.source_hash = text(3);
  try {
    m.status = parse_candidate_status(text(4));
  } catch (const invalid_argument_error& e) {
    throw tuning_db_error(conn_.location(), "reading a measurement", e.what(), 0,
                          "the database holds a status this rocmtpl does not know");
  }
  m.reason = text(5);
  m.min_ms = real(r, row, 6);
  m.median_ms = real(r, row, 7);
  m.spread = real(r, row, 8);
  m.repetitions = static_cast<int>(std::strtol(PQgetvalue(r.get(), row, 9), nullptr, 10));
  m.verified = text(10) == "t";
  m.max_error = real(r, row, 11);
  m.device = text(12);
  m.device_id = text(13);
  return m;
}

ROCMTPL_INLINE std::optional<std::int64_t> pg_store::find_key_id(const tuning_key& key) const {
  auto r = conn_.exec(fmt::format("SELECT k.id FROM tuning_keys k WHERE {}", pg_key_match), key_params(key));
  if (PQntuples(r.get()) == 0) return std::nullopt;
  return std::strtoll(PQgetvalue(r.get(), 0, 0), nullptr, 10);
}

ROCMTPL_INLINE std::int64_t pg_store::upsert_key(const tuning_key& key, const std::string& now) {
  auto params = key_params(key);
  params.emplace_back(now);
  params.emplace_back(key.descriptor);
  conn_.exec(
      "INSERT INTO tuning_keys(digest, template_name, problem, runtime_args, arch, device, compiler_version, "
      "library_version, winner, created_at, updated_at, descriptor) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, "
      "$9, $9, $10) ON CONFLICT(digest) DO UPDATE SET updated_at = excluded.updated_at, "
      "descriptor = COALESCE(NULLIF(excluded.descriptor, ''), tuning_keys.descriptor)",
      params);
  if (auto id = find_key_id(key)) return *id;
  throw tuning_db_error(conn_.location(), fmt::format("storing key {}", key.digest()),
                        "digest collision with another key", 0, "the stored row's fields differ from this key's");
}

ROCMTPL_INLINE void pg_store::upsert_measurement(std::int64_t key_id, const measurement& m, const std::string& now) {
  conn_.exec(
      "INSERT INTO measurements(key_id, candidate, config, source_hash, status, reason, min_ms, median_ms, spread, "
      "repetitions, verified, max_error, measured_at, device, device_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
      "$9, $10, $11, $12, $13, $14, $15) ON CONFLICT(key_id, candidate) DO UPDATE SET config = excluded.config, "
      "source_hash = "
      "excluded.source_hash, status = excluded.status, reason = excluded.reason, min_ms = excluded.min_ms, "
      "median_ms = excluded.median_ms, spread = excluded.spread, repetitions = excluded.repetitions, verified = "
      "excluded.verified, max_error = excluded.max_error, measured_at = excluded.measured_at, device = "
      "excluded.device, device_id = excluded.device_id",
      {std::to_string(key_id), m.candidate, m.config, m.source_hash, std::string(to_string(m.status)), m.reason,
       pg_real(m.min_ms), pg_real(m.median_ms), pg_real(m.spread), std::to_string(m.repetitions),
       m.verified ? "true" : "false", pg_real(m.max_error), now, m.device, m.device_id});
}

ROCMTPL_INLINE void pg_store::require_ok(std::int64_t key_id, const std::string& candidate,
                                         std::string_view caller) const {
  auto r = conn_.exec("SELECT status FROM measurements WHERE key_id = $1 AND candidate = $2",
                      {std::to_string(key_id), candidate});
  if (PQntuples(r.get()) == 0) {
    throw invalid_argument_error(fmt::format(
        "rocmtpl: tuning_db::{}: winner '{}' has no measurement for this key; store it first", caller, candidate));
  }
  if (std::string_view status = PQgetvalue(r.get(), 0, 0); status != to_string(candidate_status::ok)) {
    throw invalid_argument_error(fmt::format(
        "rocmtpl: tuning_db::{}: winner '{}' has status {}; only an ok candidate can win", caller, candidate, status));
  }
}

ROCMTPL_INLINE void pg_store::log(std::string_view batch, std::string_view target, std::string_view item,
                                  std::string_view tuner, std::string_view event, const std::string& now) const {
  conn_.exec("INSERT INTO batch_events(batch, target, item, tuner, event, at) VALUES ($1, $2, $3, $4, $5, $6)",
             {std::string(batch), std::string(target), std::string(item), std::string(tuner), std::string(event), now});
}

#else  // no libpq: the same name, refusing to open

ROCMTPL_INLINE pg_store::pg_store(const std::string& url) {
  throw tuning_db_error(redact_postgresql_url(url), "open",
                        "this rocmtpl was built without the PostgreSQL backend (libpq was not found, or "
                        "ROCMTPL_WITH_POSTGRESQL was off, when it was configured)",
                        0, "apt-get install libpq-dev and configure again, or use a SQLite file");
}

#endif

}  // namespace detail

}  // namespace rocmtpl::runtime

#undef ROCMTPL_DETAIL_PG

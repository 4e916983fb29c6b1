// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/db/sqlite.hpp: included at its end (header-only) or compiled once by
// src/runtime/db.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rocmtpl::runtime {

ROCMTPL_INLINE tuning_db_error::tuning_db_error(std::filesystem::path file, std::string operation,
                                                std::string sqlite_message, int sqlite_code, std::string_view hint)
    : error(make_message(file, operation, sqlite_message, sqlite_code, hint)),
      path_(std::move(file)),
      operation_(std::move(operation)),
      sqlite_message_(std::move(sqlite_message)),
      sqlite_code_(sqlite_code) {}

ROCMTPL_INLINE std::string tuning_db_error::make_message(const std::filesystem::path& file, std::string_view operation,
                                                         std::string_view sqlite_message, int sqlite_code,
                                                         std::string_view hint) {
  std::string msg = fmt::format("rocmtpl: tuning database '{}': {} failed", file.string(), operation);
  if (!sqlite_message.empty()) msg += fmt::format(": {}", sqlite_message);
  if (sqlite_code != 0) msg += fmt::format(" (sqlite code {})", sqlite_code);
  if (!hint.empty()) msg += fmt::format("; {}", hint);
  return msg;
}

namespace detail {

// Hint appended to errors that mean the file itself is unusable.
ROCMTPL_INLINE std::string_view hint_for(int code) {
  switch (code & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return "the file is not a usable tuning database; delete it (it is only a cache) or point "
             "ROCMTPL_CACHE_DIR elsewhere";
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return "another process held the database longer than the busy timeout";
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM: return "check that the directory exists and is writable, or set ROCMTPL_CACHE_DIR";
    default: return {};
  }
}

ROCMTPL_INLINE connection::connection(std::filesystem::path file, std::chrono::milliseconds busy_timeout)
    : path_(std::move(file)) {
  sqlite3* raw = nullptr;
  // NOMUTEX: tuning_db serialises use of its connection with its own mutex.
  const int rc =
      sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  db_.reset(raw);  // sqlite3_open_v2 may return a handle even on failure; it must still be closed
  if (rc != SQLITE_OK) {
    std::string msg = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    const int code = raw != nullptr ? sqlite3_extended_errcode(raw) : rc;
    throw tuning_db_error(path_, "open", std::move(msg), code, hint_for(code));
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, static_cast<int>(busy_timeout.count()));
}

ROCMTPL_INLINE void connection::fail(std::string operation, int rc) const {
  const int code = db_ ? sqlite3_extended_errcode(db_.get()) : rc;
  std::string msg = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
  throw tuning_db_error(path_, std::move(operation), std::move(msg), code, hint_for(code));
}

// Runs SQL that takes no values (schema, pragmas, transaction control); rows are ignored.
ROCMTPL_INLINE void connection::exec(const char* sql) const {
  const int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(fmt::format("executing `{}`", sql), rc);
}

ROCMTPL_INLINE statement::statement(const connection& conn, std::string_view sql) : conn_(&conn), sql_(sql) {
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v2(conn.get(), sql_.data(), static_cast<int>(sql_.size()), &raw, nullptr);
  stmt_.reset(raw);
  if (rc != SQLITE_OK) conn.fail(fmt::format("preparing `{}`", sql_), rc);
}

ROCMTPL_INLINE statement& statement::bind_text(int index, std::string_view value) {
  // SQLITE_TRANSIENT: SQLite copies the bytes; explicit length keeps embedded NULs.
  check(sqlite3_bind_text64(stmt_.get(), index, value.data(), static_cast<sqlite3_uint64>(value.size()),
                            SQLITE_TRANSIENT, SQLITE_UTF8),
        "binding");
  return *this;
}

ROCMTPL_INLINE statement& statement::bind_real(int index, double value) {
  check(sqlite3_bind_double(stmt_.get(), index, value), "binding");
  return *this;
}

ROCMTPL_INLINE statement& statement::bind_int(int index, std::int64_t value) {
  check(sqlite3_bind_int64(stmt_.get(), index, static_cast<sqlite3_int64>(value)), "binding");
  return *this;
}

ROCMTPL_INLINE statement& statement::bind_null(int index) {
  check(sqlite3_bind_null(stmt_.get(), index), "binding");
  return *this;
}

// One step: true when a row is available, false when done.
ROCMTPL_INLINE bool statement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  conn_->fail(fmt::format("running `{}`", sql_), rc);
}

// Runs a statement that returns no rows; returns the number of rows it changed.
ROCMTPL_INLINE std::int64_t statement::run() {
  while (step()) {
  }
  return static_cast<std::int64_t>(sqlite3_changes(conn_->get()));
}

ROCMTPL_INLINE std::string statement::text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), col));
  const int n = sqlite3_column_bytes(stmt_.get(), col);  // after column_text, per the SQLite docs
  return p != nullptr ? std::string(p, static_cast<std::size_t>(n)) : std::string();
}

ROCMTPL_INLINE std::optional<std::string> statement::optional_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return text(col);
}

// SQLite stores NaN as NULL; read it back as NaN so non-finite values round-trip.
ROCMTPL_INLINE double statement::real(int col) const {
  if (is_null(col)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_.get(), col);
}

ROCMTPL_INLINE void statement::check(int rc, std::string_view what) const {
  if (rc != SQLITE_OK) conn_->fail(fmt::format("{} a value of `{}`", what, sql_), rc);
}

ROCMTPL_INLINE transaction::transaction(const connection& conn, kind k) : conn_(&conn) {
  conn.exec(k == kind::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

ROCMTPL_INLINE transaction::~transaction() {
  if (open_) sqlite3_exec(conn_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

ROCMTPL_INLINE void transaction::commit() {
  conn_->exec("COMMIT");
  open_ = false;
}

}  // namespace detail

}  // namespace rocmtpl::runtime

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The SQLite layer of the tuning database: `tuning_db_error`, and the RAII wrappers
/// (`detail::connection`, `detail::statement`, `detail::transaction`) whose errors name the file,
/// the SQL statement and SQLite's message.

#include <rocmtpl/core/error.hpp>

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rocmtpl::runtime {

/// @brief A tuning database operation failed: SQLite reported an error, the file is not a
/// database, or it was written by a newer rocmtpl.
///
/// `what()` names the database file, the operation (with the SQL statement where there is one)
/// and SQLite's error text.
class tuning_db_error : public error {
 public:
  /// @brief Build the error.
  /// @param file The database file.
  /// @param operation What was being done (may include the SQL text).
  /// @param sqlite_message SQLite's error text (empty when the error did not come from SQLite).
  /// @param sqlite_code SQLite's extended result code (0 when not from SQLite).
  /// @param hint Advice appended to the message (may be empty).
  tuning_db_error(std::filesystem::path file, std::string operation, std::string sqlite_message, int sqlite_code,
                  std::string_view hint = {})
      : error(make_message(file, operation, sqlite_message, sqlite_code, hint)),
        path_(std::move(file)),
        operation_(std::move(operation)),
        sqlite_message_(std::move(sqlite_message)),
        sqlite_code_(sqlite_code) {}

  /// @brief The database file.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// @brief The operation that failed (may include the SQL statement).
  [[nodiscard]] const std::string& operation() const noexcept { return operation_; }
  /// @brief SQLite's error text, empty when the error did not come from SQLite.
  [[nodiscard]] const std::string& sqlite_message() const noexcept { return sqlite_message_; }
  /// @brief SQLite's extended result code (e.g. SQLITE_NOTADB), 0 when the error did not come from SQLite.
  [[nodiscard]] int sqlite_code() const noexcept { return sqlite_code_; }

 private:
  static std::string make_message(const std::filesystem::path& file, std::string_view operation,
                                  std::string_view sqlite_message, int sqlite_code, std::string_view hint) {
    std::string msg = fmt::format("rocmtpl: tuning database '{}': {} failed", file.string(), operation);
    if (!sqlite_message.empty()) msg += fmt::format(": {}", sqlite_message);
    if (sqlite_code != 0) msg += fmt::format(" (sqlite code {})", sqlite_code);
    if (!hint.empty()) msg += fmt::format("; {}", hint);
    return msg;
  }

  std::filesystem::path path_;
  std::string operation_;
  std::string sqlite_message_;
  int sqlite_code_ = 0;
};

namespace detail {

struct sqlite_closer {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
struct sqlite_finalizer {
  void operator()(sqlite3_stmt* stmt) const noexcept { sqlite3_finalize(stmt); }
};

// Hint appended to errors that mean the file itself is unusable.
inline std::string_view hint_for(int code) {
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

/// One SQLite connection plus the file name, for error messages.
class connection {
 public:
  connection() = default;

  connection(std::filesystem::path file, std::chrono::milliseconds busy_timeout) : path_(std::move(file)) {
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

  [[nodiscard]] sqlite3* get() const noexcept { return db_.get(); }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  [[noreturn]] void fail(std::string operation, int rc) const {
    const int code = db_ ? sqlite3_extended_errcode(db_.get()) : rc;
    std::string msg = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
    throw tuning_db_error(path_, std::move(operation), std::move(msg), code, hint_for(code));
  }

  // Runs SQL that takes no values (schema, pragmas, transaction control); rows are ignored.
  void exec(const char* sql) const {
    const int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(fmt::format("executing `{}`", sql), rc);
  }

 private:
  std::unique_ptr<sqlite3, sqlite_closer> db_;
  std::filesystem::path path_;
};

/// A prepared statement. Values are always bound, never spliced into the SQL text.
class statement {
 public:
  statement(const connection& conn, std::string_view sql) : conn_(&conn), sql_(sql) {
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(conn.get(), sql_.data(), static_cast<int>(sql_.size()), &raw, nullptr);
    stmt_.reset(raw);
    if (rc != SQLITE_OK) conn.fail(fmt::format("preparing `{}`", sql_), rc);
  }

  statement& bind_text(int index, std::string_view value) {
    // SQLITE_TRANSIENT: SQLite copies the bytes; explicit length keeps embedded NULs.
    check(sqlite3_bind_text64(stmt_.get(), index, value.data(), static_cast<sqlite3_uint64>(value.size()),
                              SQLITE_TRANSIENT, SQLITE_UTF8),
          "binding");
    return *this;
  }
  statement& bind_real(int index, double value) {
    check(sqlite3_bind_double(stmt_.get(), index, value), "binding");
    return *this;
  }
  statement& bind_int(int index, std::int64_t value) {
    check(sqlite3_bind_int64(stmt_.get(), index, static_cast<sqlite3_int64>(value)), "binding");
    return *this;
  }
  statement& bind_null(int index) {
    check(sqlite3_bind_null(stmt_.get(), index), "binding");
    return *this;
  }
  statement& bind_optional_text(int index, const std::optional<std::string>& value) {
    return value ? bind_text(index, *value) : bind_null(index);
  }

  // One step: true when a row is available, false when done.
  bool step() {
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    conn_->fail(fmt::format("running `{}`", sql_), rc);
  }

  // Runs a statement that returns no rows; returns the number of rows it changed.
  std::int64_t run() {
    while (step()) {
    }
    return static_cast<std::int64_t>(sqlite3_changes(conn_->get()));
  }

  [[nodiscard]] bool is_null(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  [[nodiscard]] std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), col));
    const int n = sqlite3_column_bytes(stmt_.get(), col);  // after column_text, per the SQLite docs
    return p != nullptr ? std::string(p, static_cast<std::size_t>(n)) : std::string();
  }
  [[nodiscard]] std::optional<std::string> optional_text(int col) const {
    if (is_null(col)) return std::nullopt;
    return text(col);
  }
  // SQLite stores NaN as NULL; read it back as NaN so non-finite values round-trip.
  [[nodiscard]] double real(int col) const {
    if (is_null(col)) return std::numeric_limits<double>::quiet_NaN();
    return sqlite3_column_double(stmt_.get(), col);
  }
  [[nodiscard]] std::int64_t integer(int col) const {
    return static_cast<std::int64_t>(sqlite3_column_int64(stmt_.get(), col));
  }

 private:
  void check(int rc, std::string_view what) const {
    if (rc != SQLITE_OK) conn_->fail(fmt::format("{} a value of `{}`", what, sql_), rc);
  }

  const connection* conn_;
  std::string sql_;
  std::unique_ptr<sqlite3_stmt, sqlite_finalizer> stmt_;
};

/// A transaction that rolls back unless committed. Writers use `immediate` so that they take the
/// write lock up front (and wait through the busy handler) instead of failing with
/// SQLITE_BUSY_SNAPSHOT when upgrading a stale read snapshot.
class transaction {
 public:
  enum class kind { deferred, immediate };

  transaction(const connection& conn, kind k) : conn_(&conn) {
    conn.exec(k == kind::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction() {
    if (open_) sqlite3_exec(conn_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }

  void commit() {
    conn_->exec("COMMIT");
    open_ = false;
  }

 private:
  const connection* conn_;
  bool open_ = true;
};

}  // namespace detail

}  // namespace rocmtpl::runtime

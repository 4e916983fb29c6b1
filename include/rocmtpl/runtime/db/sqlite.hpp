// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The SQLite layer of the tuning database: `tuning_db_error`, and the RAII wrappers
/// (`detail::connection`, `detail::statement`, `detail::transaction`) whose errors name the file,
/// the SQL statement and SQLite's message.

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <sqlite3.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
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
                  std::string_view hint = {});

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
                                  std::string_view sqlite_message, int sqlite_code, std::string_view hint);

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

std::string_view hint_for(int code);

/// One SQLite connection plus the file name, for error messages.
class connection {
 public:
  connection() = default;

  connection(std::filesystem::path file, std::chrono::milliseconds busy_timeout);

  [[nodiscard]] sqlite3* get() const noexcept { return db_.get(); }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  [[noreturn]] void fail(std::string operation, int rc) const;

  void exec(const char* sql) const;

 private:
  std::unique_ptr<sqlite3, sqlite_closer> db_;
  std::filesystem::path path_;
};

/// A prepared statement. Values are always bound, never spliced into the SQL text.
class statement {
 public:
  statement(const connection& conn, std::string_view sql);

  statement& bind_text(int index, std::string_view value);
  statement& bind_real(int index, double value);
  statement& bind_int(int index, std::int64_t value);
  statement& bind_null(int index);
  statement& bind_optional_text(int index, const std::optional<std::string>& value) {
    return value ? bind_text(index, *value) : bind_null(index);
  }

  bool step();

  std::int64_t run();

  [[nodiscard]] bool is_null(int col) const { return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL; }
  [[nodiscard]] std::string text(int col) const;
  [[nodiscard]] std::optional<std::string> optional_text(int col) const;
  [[nodiscard]] double real(int col) const;
  [[nodiscard]] std::int64_t integer(int col) const {
    return static_cast<std::int64_t>(sqlite3_column_int64(stmt_.get(), col));
  }

 private:
  void check(int rc, std::string_view what) const;

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

  transaction(const connection& conn, kind k);
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction();

  void commit();

 private:
  const connection* conn_;
  bool open_ = true;
};

}  // namespace detail

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/db/sqlite-inl.hpp>
#endif

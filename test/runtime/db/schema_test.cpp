// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/schema.hpp: the one text of the tables becomes each
// backend's SQL by its types alone, the SQLite form creates the tables it names (run here in an
// in-memory database), and the migration from version 1 adds exactly what versions 2 and 3 added.
#include <rocmtpl/runtime/db/schema.hpp>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace rt = rocmtpl::runtime;
using rt::detail::postgresql_dialect;
using rt::detail::sqlite_dialect;
using rt::detail::with_dialect;

TEST(TuningDbSchema, DialectsDifferOnlyInTheirTypes) {
  EXPECT_EQ(with_dialect("a {id}, b {integer}, c {real}, d {boolean}", sqlite_dialect),
            "a INTEGER PRIMARY KEY, b INTEGER, c REAL, d INTEGER");
  EXPECT_EQ(with_dialect("a {id}, b {integer}, c {real}, d {boolean}", postgresql_dialect),
            "a BIGSERIAL PRIMARY KEY, b BIGINT, c DOUBLE PRECISION, d BOOLEAN");
  // Other braces are left alone; nothing else changes.
  EXPECT_EQ(with_dialect("{x} {id", sqlite_dialect), "{x} {id");
  EXPECT_EQ(with_dialect("}{{id}}", sqlite_dialect), "}{INTEGER PRIMARY KEY}");
  for (const auto text : {rt::detail::tuning_tables, rt::detail::batch_tables}) {
    const auto lite = with_dialect(text, sqlite_dialect);
    const auto pg = with_dialect(text, postgresql_dialect);
    EXPECT_EQ(lite.find('{'), std::string::npos) << lite;  // every placeholder is a known type
    EXPECT_EQ(pg.find('{'), std::string::npos) << pg;
    EXPECT_NE(lite, pg);
  }
}

// Runs SQL in an in-memory SQLite database.
struct memory_db {
  memory_db() {
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) throw std::runtime_error("open");
  }
  memory_db(const memory_db&) = delete;
  memory_db& operator=(const memory_db&) = delete;
  ~memory_db() { sqlite3_close(db); }
  void exec(const std::string& sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err != nullptr ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(msg + " in: " + sql);
    }
  }
  // The column names of `table`, in order.
  std::vector<std::string> columns(const char* table) const {
    sqlite3_stmt* st = nullptr;
    const std::string sql = std::string("SELECT name FROM pragma_table_info('") + table + "')";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) throw std::runtime_error("prepare");
    std::vector<std::string> out;
    while (sqlite3_step(st) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    return out;
  }
  sqlite3* db = nullptr;
};

TEST(TuningDbSchema, SqliteFormCreatesEveryTableTwiceOver) {
  memory_db m;
  m.exec(with_dialect(rt::detail::tuning_tables, sqlite_dialect));
  m.exec(with_dialect(rt::detail::batch_tables, sqlite_dialect));
  m.exec(with_dialect(rt::detail::tuning_tables, sqlite_dialect));  // IF NOT EXISTS: opening again is harmless
  for (const char* table : {"schema_version", "tuning_keys", "measurements", "batch_items", "batch_events"}) {
    EXPECT_FALSE(m.columns(table).empty()) << table;
  }
  const auto cols = m.columns("measurements");
  ASSERT_GE(cols.size(), 2U);
  EXPECT_EQ(cols[cols.size() - 2], "device");
  EXPECT_EQ(cols.back(), "device_id");
  // A measurement stored without a device (as a version-1 writer would) reads back as ''.
  m.exec(
      "INSERT INTO tuning_keys(digest, template_name, problem, runtime_args, arch, device, compiler_version, "
      "library_version, created_at, updated_at) VALUES ('d', 't', 'p', '', 'a', 'x', 'c', 'l', 'n', 'n')");
  m.exec(
      "INSERT INTO measurements(key_id, candidate, config, source_hash, status, reason, repetitions, verified, "
      "measured_at) VALUES (1, 'c', '', '', 'ok', '', 0, 0, 'n')");
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(m.db, "SELECT device || '|' || device_id FROM measurements", -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))), "|");
  sqlite3_finalize(st);
}

TEST(TuningDbSchema, MigrationFromVersion1AddsTheDeviceColumnsAndTheDescriptor) {
  EXPECT_EQ(rt::tuning_schema_version, 3);
  EXPECT_TRUE(rt::detail::schema_migration(rt::tuning_schema_version).empty());
  EXPECT_EQ(rt::detail::schema_migration(2).size(), 1U);
  const auto steps = rt::detail::schema_migration(1);
  ASSERT_EQ(steps.size(), 3U);
  // Applied to version 1's tables, the steps give the current ones.
  memory_db old_db;
  old_db.exec(
      "CREATE TABLE tuning_keys(id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, template_name TEXT NOT NULL, "
      "problem TEXT NOT NULL, runtime_args TEXT NOT NULL, arch TEXT NOT NULL, device TEXT NOT NULL, "
      "compiler_version TEXT NOT NULL, library_version TEXT NOT NULL, winner TEXT, created_at TEXT NOT NULL, "
      "updated_at TEXT NOT NULL)");
  old_db.exec(
      "CREATE TABLE measurements(id INTEGER PRIMARY KEY, key_id INTEGER NOT NULL, candidate TEXT NOT NULL, "
      "config TEXT NOT NULL, source_hash TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL, min_ms REAL, "
      "median_ms REAL, spread REAL, repetitions INTEGER NOT NULL, verified INTEGER NOT NULL, max_error REAL, "
      "measured_at TEXT NOT NULL, UNIQUE(key_id, candidate))");
  for (const auto& step : steps) old_db.exec(step);
  memory_db new_db;
  new_db.exec(with_dialect(rt::detail::tuning_tables, sqlite_dialect));
  EXPECT_EQ(old_db.columns("measurements"), new_db.columns("measurements"));
  EXPECT_EQ(old_db.columns("tuning_keys"), new_db.columns("tuning_keys"));
  EXPECT_EQ(new_db.columns("tuning_keys").back(), "descriptor");
}

}  // namespace

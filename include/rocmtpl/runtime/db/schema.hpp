// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The tuning database's tables, written once for both backends: the SQL text is generated
/// for a dialect (SQLite or PostgreSQL), which differ only in their id, integer, real and boolean
/// types; and the steps that bring an older database up to the current schema version.

#include <rocmtpl/core/config.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtpl::runtime {

/// @brief The schema version this build writes and reads (both backends). Databases with a newer
/// version are refused; older ones are migrated when opened (`detail::schema_migration`).
///
/// Version 1: tuning_keys, measurements. Version 2: measurements gain `device` (the model of the
/// GPU that timed the candidate) and `device_id` (which GPU of its host).
inline constexpr std::int64_t tuning_schema_version = 3;

namespace detail {

// The column types in which the two backends' schemas differ.
struct sql_dialect {
  std::string_view id;       // an auto-numbered primary key
  std::string_view integer;  // a 64-bit integer
  std::string_view real;     // a double, NaN and infinities included
  std::string_view boolean;
};

// SQLite: `INTEGER PRIMARY KEY` is the rowid (auto-numbered); INTEGER holds 64 bits; REAL columns
// are nullable because SQLite stores NaN as NULL.
inline constexpr sql_dialect sqlite_dialect{"INTEGER PRIMARY KEY", "INTEGER", "REAL", "INTEGER"};
inline constexpr sql_dialect postgresql_dialect{"BIGSERIAL PRIMARY KEY", "BIGINT", "DOUBLE PRECISION", "BOOLEAN"};

std::string with_dialect(std::string_view text, const sql_dialect& d);

// The current tables. Each tuning_key field has its own column (so tools can show and filter
// them); `digest` is tuning_key::digest(). One measurements row per (key, candidate); `device` is
// the model of the GPU that timed it ('' when none did: a compile failure, or a row older than
// version 2) and `device_id` which GPU of its host (an index, or a visibility value). A key's
// `descriptor` is its typed problem descriptor ('' when it has none, and in rows older than version 3).
inline constexpr std::string_view tuning_tables = R"sql(
CREATE TABLE IF NOT EXISTS schema_version(id INTEGER PRIMARY KEY CHECK (id = 1), version {integer} NOT NULL);
CREATE TABLE IF NOT EXISTS tuning_keys(
  id               {id},
  digest           TEXT NOT NULL UNIQUE,
  template_name    TEXT NOT NULL,
  problem          TEXT NOT NULL,
  runtime_args     TEXT NOT NULL,
  arch             TEXT NOT NULL,
  device           TEXT NOT NULL,
  compiler_version TEXT NOT NULL,
  library_version  TEXT NOT NULL,
  winner           TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  descriptor       TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS tuning_keys_by_template ON tuning_keys(template_name);
CREATE TABLE IF NOT EXISTS measurements(
  id          {id},
  key_id      {integer} NOT NULL REFERENCES tuning_keys(id) ON DELETE CASCADE,
  candidate   TEXT NOT NULL,
  config      TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  status      TEXT NOT NULL,
  reason      TEXT NOT NULL,
  min_ms      {real},
  median_ms   {real},
  spread      {real},
  repetitions INTEGER NOT NULL,
  verified    {boolean} NOT NULL,
  max_error   {real},
  measured_at TEXT NOT NULL,
  device      TEXT NOT NULL DEFAULT '',
  device_id   TEXT NOT NULL DEFAULT '',
  UNIQUE(key_id, candidate));
)sql";

// The tables of the batch claim protocol (db/claims.hpp).
inline constexpr std::string_view batch_tables = R"sql(
CREATE TABLE IF NOT EXISTS batch_items(
  batch       TEXT NOT NULL,
  target      TEXT NOT NULL,
  item        TEXT NOT NULL,
  position    {integer} NOT NULL,
  spec        TEXT NOT NULL,
  state       TEXT NOT NULL,
  claimed_by  TEXT,
  lease_until {integer},
  attempts    {integer} NOT NULL DEFAULT 0,
  result      TEXT,
  finished_by TEXT,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY(batch, target, item));
CREATE TABLE IF NOT EXISTS batch_events(
  id     {id},
  batch  TEXT NOT NULL,
  target TEXT NOT NULL,
  item   TEXT NOT NULL,
  tuner  TEXT NOT NULL,
  event  TEXT NOT NULL,
  at     TEXT NOT NULL);
)sql";

// One step of a migration: the version that introduced it, and its SQL (the same in both dialects).
struct schema_step {
  std::int64_t version;
  const char* sql;
};

// Every step since version 1, in order.
inline constexpr std::array schema_steps{
    schema_step{2, "ALTER TABLE measurements ADD COLUMN device TEXT NOT NULL DEFAULT ''"},
    schema_step{2, "ALTER TABLE measurements ADD COLUMN device_id TEXT NOT NULL DEFAULT ''"},
    schema_step{3, "ALTER TABLE tuning_keys ADD COLUMN descriptor TEXT NOT NULL DEFAULT ''"},
};
static_assert(schema_steps.back().version == tuning_schema_version,
              "rocmtpl: tuning_db: the last migration step must reach tuning_schema_version; add its steps");

std::vector<const char*> schema_migration(std::int64_t from);

}  // namespace detail

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/db/schema-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The tuning database, gathered: a SQLite file that remembers every autotuning measurement
/// and the winner.
///
/// The parts, one concern per header:
/// - `db/key.hpp`: `tuning_key` (with its digest), `candidate_status`, `measurement` (with
///   the device it ran on), `tuning_record`, `device_mismatch_error`;
/// - `db/schema.hpp`: the tables, written once for both backends, and the migrations;
/// - `db/sqlite.hpp`: `tuning_db_error` and the SQLite RAII wrappers;
/// - `db/json.hpp`: the JSON forms of the key, measurement and record;
/// - `db/database.hpp`: the `tuning_db` class;
/// - `db/claims.hpp`: batches shared by several tuners (claims under a lease);
/// - `db/postgres.hpp`: the PostgreSQL backend (`postgresql://` URLs; optional, libpq).

#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/database.hpp>
#include <rocmtpl/runtime/db/json.hpp>
#include <rocmtpl/runtime/db/key.hpp>
#include <rocmtpl/runtime/db/postgres.hpp>
#include <rocmtpl/runtime/db/schema.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>

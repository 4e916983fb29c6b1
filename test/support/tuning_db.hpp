// SPDX-License-Identifier: MIT
#pragma once

// Shared helpers of the tuning database tests (test/runtime/db/*_test.cpp,
// test/runtime/db/tuning_db_test.cpp): sample keys and measurements, a field-by-field comparison,
// raw SQLite access to inspect a file the way another tool would.

#include <rocmtpl/runtime/db/key.hpp>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>

namespace rocmtpl::test {

using runtime::candidate_status;
using runtime::measurement;
using runtime::tuning_key;

tuning_key make_key(std::string problem = "f16[4096,4096] x f16[4096,4096] -> f16", std::string tmpl = "gemm",
                    std::string runtime_args = "split_k=1");

// Measured on make_key()'s device (GPU 1), unless it failed to compile (then on no device).
measurement make_measurement(std::string candidate, double ms, candidate_status status = candidate_status::ok);

// Compares measurements field by field so that a failure names the field; NaN equals NaN here.
void expect_same(const measurement& a, const measurement& b);

// Raw SQLite access, to inspect or tamper with the file the way another tool would.
struct raw_db {
  explicit raw_db(const std::filesystem::path& p) {
    if (sqlite3_open(p.c_str(), &db) != SQLITE_OK) throw std::runtime_error("open");
  }
  raw_db(const raw_db&) = delete;
  raw_db& operator=(const raw_db&) = delete;
  ~raw_db() { sqlite3_close(db); }
  void exec(const char* sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err != nullptr ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(msg);
    }
  }
  std::int64_t scalar(const char* sql) const {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) throw std::runtime_error(sqlite3_errmsg(db));
    std::int64_t v = -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
  }
  sqlite3* db = nullptr;
};

}  // namespace rocmtpl::test

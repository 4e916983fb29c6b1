// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/sqlite.hpp: the SQLite RAII wrappers bind values
// without splicing them into SQL, read them back exactly, roll back uncommitted transactions, and
// report errors as tuning_db_error naming the file, the SQL and SQLite's message.
#include <rocmtpl/runtime/db/sqlite.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>

namespace {

namespace fs = std::filesystem;
using rocmtpl::runtime::tuning_db_error;
using rocmtpl::runtime::detail::connection;
using rocmtpl::runtime::detail::statement;
using rocmtpl::runtime::detail::transaction;

constexpr std::chrono::milliseconds busy{1000};

class SqliteWrappers : public ::testing::Test {
 protected:
  void SetUp() override {
    conn_ = connection(dir_ / "t.sqlite3", busy);
    conn_.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT, r REAL, i INTEGER NOT NULL, o TEXT)");
  }
  [[nodiscard]] std::int64_t count() const {
    statement st(conn_, "SELECT count(*) FROM t");
    EXPECT_TRUE(st.step());
    return st.integer(0);
  }

  rocmtpl::test::temp_dir dir_;
  connection conn_;
};

// Expects `f` to throw tuning_db_error whose message contains every one of `parts`.
template <class F>
tuning_db_error expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const tuning_db_error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with("rocmtpl: tuning database '")) << what;
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "missing '" << p << "' in: " << what;
    return e;
  }
  ADD_FAILURE() << "expected tuning_db_error";
  return tuning_db_error({}, {}, {}, 0);
}

TEST_F(SqliteWrappers, BoundValuesRoundTripExactly) {
  using namespace std::string_literals;
  const std::string tricky = "it's \"quoted\"\0 with a NUL; DROP TABLE t; --"s;
  statement ins(conn_, "INSERT INTO t(s, r, i, o) VALUES (?1, ?2, ?3, ?4)");
  EXPECT_EQ(ins.bind_text(1, tricky).bind_real(2, 0.1).bind_int(3, INT64_MIN).bind_optional_text(4, std::nullopt).run(),
            1);
  statement ins2(conn_, "INSERT INTO t(s, r, i, o) VALUES (?1, ?2, ?3, ?4)");
  ins2.bind_null(1).bind_real(2, std::nan("")).bind_int(3, 7).bind_optional_text(4, std::string("x")).run();

  statement sel(conn_, "SELECT s, r, i, o FROM t ORDER BY id");
  ASSERT_TRUE(sel.step());
  EXPECT_EQ(sel.text(0), tricky);  // every byte, the NUL and what follows it included
  EXPECT_EQ(sel.real(1), 0.1);
  EXPECT_EQ(sel.integer(2), INT64_MIN);
  EXPECT_TRUE(sel.is_null(3));
  EXPECT_EQ(sel.optional_text(3), std::nullopt);
  ASSERT_TRUE(sel.step());
  EXPECT_TRUE(sel.is_null(0));
  EXPECT_EQ(sel.text(0), "");  // NULL text reads as empty
  EXPECT_TRUE(std::isnan(sel.real(1))) << "SQLite stores NaN as NULL; it reads back as NaN";
  EXPECT_EQ(sel.optional_text(3), std::optional<std::string>("x"));
  EXPECT_FALSE(sel.step());
  EXPECT_EQ(count(), 2);  // the injected DROP TABLE was data, not SQL
}

TEST_F(SqliteWrappers, BadSqlNamesTheStatementAndTheFile) {
  const auto e = expect_error([&] { (void)statement(conn_, "SELEC nonsense FROM t"); },
                              {"preparing `SELEC nonsense FROM t`", (dir_ / "t.sqlite3").string(), "syntax error"});
  EXPECT_EQ(e.path(), dir_ / "t.sqlite3");
  EXPECT_EQ(e.operation(), "preparing `SELEC nonsense FROM t`");
  EXPECT_EQ(e.sqlite_code() & 0xff, SQLITE_ERROR);
  EXPECT_FALSE(e.sqlite_message().empty());
  expect_error([&] { conn_.exec("CREATE TABLE"); }, {"executing `CREATE TABLE`"});
}

TEST_F(SqliteWrappers, FailedStepAndBindNameTheStatement) {
  const std::string sql = "INSERT INTO t(s, r, i) VALUES (?1, ?2, ?3)";
  statement st(conn_, sql);
  st.bind_text(1, "a").bind_real(2, 1.0).bind_null(3);  // i is NOT NULL
  const auto e = expect_error([&] { st.run(); }, {"running `" + sql + "`", "NOT NULL"});
  EXPECT_EQ(e.sqlite_code(), SQLITE_CONSTRAINT_NOTNULL);  // extended result codes are on
  statement bad_index(conn_, sql);
  expect_error([&] { bad_index.bind_int(9, 1); }, {"binding a value of `" + sql + "`"});
}

TEST_F(SqliteWrappers, TransactionRollsBackUnlessCommitted) {
  {
    transaction tx(conn_, transaction::kind::immediate);
    statement(conn_, "INSERT INTO t(i) VALUES (1)").run();
  }
  EXPECT_EQ(count(), 0);
  {
    transaction tx(conn_, transaction::kind::deferred);
    statement(conn_, "INSERT INTO t(i) VALUES (2)").run();
    tx.commit();
  }
  EXPECT_EQ(count(), 1);
}

TEST(SqliteConnection, FileThatIsNotADatabaseGetsTheDeleteHint) {
  rocmtpl::test::temp_dir dir;
  const auto file = dir / "junk.sqlite3";
  std::ofstream(file) << std::string(4096, 'x');
  // SQLite opens lazily: the error shows at the first statement.
  const connection conn(file, busy);
  const auto e = expect_error([&] { conn.exec("SELECT * FROM sqlite_master"); }, {file.string(), "delete it"});
  EXPECT_EQ(e.sqlite_code(), SQLITE_NOTADB);
}

TEST(SqliteConnection, MissingDirectoryIsACantOpenError) {
  rocmtpl::test::temp_dir dir;
  const auto file = dir / "absent" / "t.sqlite3";
  const auto e = expect_error([&] { (void)connection(file, busy); }, {"open failed", "ROCMTPL_CACHE_DIR"});
  EXPECT_EQ(e.sqlite_code() & 0xff, SQLITE_CANTOPEN);
}

TEST(TuningDbError, MessageCarriesEveryPart) {
  const tuning_db_error with_sqlite("/x/db", "running `SELECT 1`", "disk I/O error", SQLITE_IOERR, "try again");
  EXPECT_STREQ(
      with_sqlite.what(),
      "rocmtpl: tuning database '/x/db': running `SELECT 1` failed: disk I/O error (sqlite code 10); try again");
  const tuning_db_error plain("/x/db", "opening", "", 0);
  EXPECT_STREQ(plain.what(), "rocmtpl: tuning database '/x/db': opening failed");
  EXPECT_TRUE((std::is_base_of_v<rocmtpl::error, tuning_db_error>));
}

}  // namespace

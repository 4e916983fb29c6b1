// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/database.hpp.
#include <rocmtpl/runtime/db/database.hpp>

#include "support/runtime.hpp"
#include "support/tuning_db.hpp"

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rocmtpl::invalid_argument_error;
using rocmtpl::runtime::all_candidate_statuses;
using rocmtpl::runtime::candidate_status;
using rocmtpl::runtime::measurement;
using rocmtpl::runtime::tuning_db;
using rocmtpl::runtime::tuning_db_error;
using rocmtpl::runtime::tuning_key;
using rocmtpl::runtime::tuning_record;
using rocmtpl::test::expect_same;
using rocmtpl::test::make_key;
using rocmtpl::test::make_measurement;
using rocmtpl::test::raw_db;
using rocmtpl::test::scoped_env;

class TuningDb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    file_ = dir_ / "sub dir" / "tuning.sqlite3";  // a missing directory with a space in its name
  }

  rocmtpl::test::temp_dir tmp_{"rocmtpl-tuning-db-test"};
  fs::path dir_;
  fs::path file_;
};

// ---- round trips --------------------------------------------------------------------------------

TEST_F(TuningDb, RoundTripsEveryField) {
  using namespace std::string_literals;
  tuning_key key{"gemm's \"template\"",        "f16[M=s0 (hint 4096), K=4096]\n; DROP TABLE tuning_keys; --",
                 "split_k=2, α=1.5, name='x'", "gfx90a:sramecc+:xnack-",
                 "AMD Instinct™ MI210 (設備)", "clang \"15.0.7\"",
                 "0.1.0-dev+embedded\0nul"s};
  measurement ok = make_measurement("rocm_gemm_0", 0.125);
  ok.config = ".block_m = 128, .name = \"it's\", .emoji = \"🚀\"";
  ok.spread = 0.0625;
  ok.repetitions = 100;
  ok.max_error = 3.0517578125e-05;
  measurement failed = make_measurement("rocm_gemm_1", 0, candidate_status::compile_failed);
  failed.reason = "error: 'foo' was not declared\nin this scope \"ü\"";
  failed.min_ms = std::numeric_limits<double>::infinity();
  failed.median_ms = std::numeric_limits<double>::quiet_NaN();
  failed.spread = 1e300;
  failed.repetitions = 0;
  failed.verified = false;
  failed.max_error = std::numeric_limits<double>::lowest();
  measurement timed_out = make_measurement("rocm_gemm_2", 7.5, candidate_status::timed_out);
  timed_out.min_ms = std::numeric_limits<double>::denorm_min();
  ok.device = timed_out.device = key.device;  // measured on the key's device (failed: on none)
  timed_out.device_id = "GPU-8f2a'c1 \"uuid\"";

  {
    tuning_db db(file_);
    EXPECT_EQ(db.path(), file_);
    db.record(key, {ok, failed, timed_out}, "rocm_gemm_0");
  }
  ASSERT_TRUE(fs::exists(file_));

  const tuning_db db(file_);  // reopen: nothing cached in memory
  const auto rec = db.find(key);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->key, key);
  EXPECT_EQ(rec->key.library_version.size(), 22U);
  ASSERT_EQ(rec->measurements.size(), 3U);
  expect_same(rec->measurements[0], ok);
  expect_same(rec->measurements[1], failed);
  expect_same(rec->measurements[2], timed_out);
  EXPECT_EQ(rec->winner, std::optional<std::string>("rocm_gemm_0"));
  const std::regex iso(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
  EXPECT_TRUE(std::regex_match(rec->created_at, iso)) << rec->created_at;
  EXPECT_TRUE(std::regex_match(rec->updated_at, iso)) << rec->updated_at;

  for (auto status : all_candidate_statuses) {  // every status survives the database
    tuning_db w(file_);
    auto m = make_measurement("status_" + std::string(to_string(status)), 1.0, status);
    if (!m.device.empty()) m.device = key.device;
    w.add_measurement(key, m);
    const auto back = w.find_measurement(key, m.candidate);
    ASSERT_TRUE(back.has_value());
    expect_same(*back, m);
  }
}

TEST_F(TuningDb, StoresEachKeyFieldInItsOwnColumn) {
  const auto key = make_key();
  tuning_db(file_).record(key, {make_measurement("a", 1.0)}, "a");
  raw_db raw(file_);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw.db,
                               "SELECT digest, template_name, problem, runtime_args, arch, device, compiler_version, "
                               "library_version, winner FROM tuning_keys",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  auto col = [st](int i) { return std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i))); };
  EXPECT_EQ(col(0), key.digest());
  EXPECT_EQ(col(1), key.template_name);
  EXPECT_EQ(col(2), key.problem);
  EXPECT_EQ(col(3), key.runtime_args);
  EXPECT_EQ(col(4), key.arch);
  EXPECT_EQ(col(5), key.device);
  EXPECT_EQ(col(6), key.compiler_version);
  EXPECT_EQ(col(7), key.library_version);
  EXPECT_EQ(col(8), "a");
  sqlite3_finalize(st);
  EXPECT_EQ(raw.scalar("SELECT typeof(min_ms) = 'real' FROM measurements"), 1);
  // The device of each measurement has its own columns too.
  EXPECT_EQ(raw.scalar("SELECT device = 'AMD Instinct MI210' AND device_id = '1' FROM measurements"), 1);
}

// Upstream keys choices without runtime args, so split-k variants shared a slot (last write wins).
TEST_F(TuningDb, RuntimeArgsSeparateProblems) {
  tuning_db db(file_);
  db.record(make_key("p", "gemm", "split_k=1"), {make_measurement("a", 1.0)}, "a");
  db.record(make_key("p", "gemm", "split_k=4"), {make_measurement("a", 2.0)}, "a");
  EXPECT_EQ(db.find(make_key("p", "gemm", "split_k=1"))->measurements.at(0).min_ms, 1.0);
  EXPECT_EQ(db.find(make_key("p", "gemm", "split_k=4"))->measurements.at(0).min_ms, 2.0);
  EXPECT_EQ(db.list().size(), 2U);
  EXPECT_FALSE(db.find(make_key("p", "gemm", "split_k=2")).has_value());
}

// ---- upsert and incremental ---------------------------------------------------------------------

TEST_F(TuningDb, RecordUpsertsPerCandidateAndKeepsOldOnes) {
  tuning_db db(file_);
  const auto key = make_key();
  db.record(key, {make_measurement("a", 2.0), make_measurement("b", 3.0)}, "a");
  const auto first = db.find(key);
  ASSERT_TRUE(first);

  // A re-tune: b is re-measured (faster now), c is new, a is not mentioned and must survive.
  db.record(key, {make_measurement("b", 1.5), make_measurement("c", 4.0, candidate_status::crashed)}, "b");
  const auto rec = db.find(key);
  ASSERT_TRUE(rec);
  ASSERT_EQ(rec->measurements.size(), 3U);
  EXPECT_EQ(rec->measurements[0].candidate, "a");  // first-stored order is kept
  EXPECT_EQ(rec->measurements[0].min_ms, 2.0);
  EXPECT_EQ(rec->measurements[1].candidate, "b");
  EXPECT_EQ(rec->measurements[1].min_ms, 1.5);
  EXPECT_EQ(rec->measurements[2].candidate, "c");
  EXPECT_EQ(rec->measurements[2].status, candidate_status::crashed);
  EXPECT_EQ(rec->winner, std::optional<std::string>("b"));
  EXPECT_EQ(rec->created_at, first->created_at);
  EXPECT_GE(rec->updated_at, first->updated_at);
  EXPECT_EQ(db.list().size(), 1U);

  // Duplicates within one call: the last one wins.
  db.record(key, {make_measurement("d", 9.0), make_measurement("d", 8.0)}, "b");
  EXPECT_EQ(db.find_measurement(key, "d")->min_ms, 8.0);
}

TEST_F(TuningDb, AddMeasurementIsIncremental) {
  const auto key = make_key();
  {
    tuning_db db(file_);
    EXPECT_FALSE(db.find(key));
    EXPECT_FALSE(db.find_measurement(key, "a"));
    db.add_measurement(key, make_measurement("a", 1.0));
    // Stored at once: another connection sees it without any flush or close.
    const tuning_db other(file_);
    ASSERT_TRUE(other.find_measurement(key, "a"));
    EXPECT_EQ(other.find_measurement(key, "a")->min_ms, 1.0);
    EXPECT_FALSE(other.find_measurement(key, "b"));  // only b would need measuring
    db.add_measurement(key, make_measurement("b", 0.5, candidate_status::verify_failed));
    db.add_measurement(key, make_measurement("a", 0.75));  // re-measure replaces
  }
  const tuning_db db(file_);
  const auto rec = db.find(key);
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->winner);
  ASSERT_EQ(rec->measurements.size(), 2U);
  EXPECT_EQ(rec->measurements[0].candidate, "a");
  EXPECT_EQ(rec->measurements[0].min_ms, 0.75);
  EXPECT_EQ(rec->measurements[1].candidate, "b");
  EXPECT_EQ(rec->measurements[1].status, candidate_status::verify_failed);
  EXPECT_EQ(rec->measurements[1].reason, "failed: b");
  // Another key with the same candidate names sees none of it.
  EXPECT_FALSE(db.find_measurement(make_key("other problem"), "a"));
}

// Issue 22 item 10: a URL of a scheme no backend serves is refused, and nothing is created for it.
TEST_F(TuningDb, RefusesUnknownUrlSchemesWithoutCreatingAnything) {
  for (const std::string location : {"mysql://x/y", "sqlite://db.sqlite3", "file:///tmp/a.db"}) {
    try {
      tuning_db db(location);
      ADD_FAILURE() << location << " was opened";
    } catch (const rocmtpl::invalid_argument_error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + location + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("postgresql://"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(fs::exists("mysql:"));
  EXPECT_FALSE(fs::exists("sqlite:"));
  // A file name with a colon but no scheme is still a file.
  EXPECT_NO_THROW(tuning_db(dir_ / "a:b.sqlite3"));
}

// Issue 22 item 9: readers open a database that exists; a missing file is refused by name and
// neither it nor its folders are created (only tuning creates a database).
TEST_F(TuningDb, OpenExistingRefusesAMissingFileAndCreatesNothing) {
  ASSERT_FALSE(fs::exists(file_.parent_path()));
  try {
    (void)tuning_db::open_existing(file_);
    ADD_FAILURE() << "a missing database was opened";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_EQ(std::string(e.what()), "rocmtpl: tuning_db: '" + file_.string() +
                                         "' does not exist; a tuning database is created by tuning, not by reading it "
                                         "(nothing was created)");
  }
  EXPECT_FALSE(fs::exists(file_.parent_path()));
  EXPECT_THROW((void)tuning_db::open_existing("mysql://x/y"), rocmtpl::invalid_argument_error);  // as the constructor
  tuning_db(file_).record(make_key(), {make_measurement("a", 1.0)}, "a");
  EXPECT_EQ(tuning_db::open_existing(file_).list().size(), 1U);
  // The default location: ROCMTPL_TUNING_DB, else the cache folder's file, which is not created.
  {
    const rocmtpl::test::scoped_env db("ROCMTPL_TUNING_DB", std::nullopt);
    const rocmtpl::test::scoped_env cache("ROCMTPL_CACHE_DIR", (dir_ / "no-cache").string());
    EXPECT_EQ(tuning_db::default_location(), dir_ / "no-cache" / "tuning.sqlite3");
    EXPECT_THROW((void)tuning_db::open_existing(), rocmtpl::invalid_argument_error);
    EXPECT_FALSE(fs::exists(dir_ / "no-cache"));
  }
  const rocmtpl::test::scoped_env db("ROCMTPL_TUNING_DB", file_.string());
  EXPECT_EQ(tuning_db::open_existing().path(), file_);
}

TEST_F(TuningDb, RejectsEmptyNames) {
  tuning_db db(file_);
  EXPECT_THROW(db.add_measurement(make_key(), make_measurement("", 1.0)), invalid_argument_error);
  EXPECT_THROW(db.add_measurement(make_key("p", ""), make_measurement("a", 1.0)), invalid_argument_error);
  EXPECT_THROW(db.record(make_key(), {make_measurement("a", 1.0), make_measurement("", 1.0)}, "a"),
               invalid_argument_error);
  EXPECT_TRUE(db.list().empty());
  EXPECT_THROW((void)tuning_db{fs::path{}}, invalid_argument_error);
}

// ---- the device of each measurement (issue 11) ---------------------------------------------------

TEST_F(TuningDb, RefusesAMeasurementOfAnotherDeviceModel) {
  tuning_db db(file_);
  const auto key = make_key();  // an AMD Instinct MI210
  auto other = make_measurement("b", 0.5);
  other.device = "AMD Instinct MI300X";
  other.device_id = "3";
  try {
    db.add_measurement(key, other);
    FAIL() << "a measurement of another model must be refused";
  } catch (const rocmtpl::runtime::device_mismatch_error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("rocmtpl: tuning_db: ", 0), 0U) << msg;
    EXPECT_NE(msg.find("'b' was measured on a 'AMD Instinct MI300X' (GPU 3)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("key is for a 'AMD Instinct MI210'; "), std::string::npos) << msg;
    EXPECT_EQ(e.candidate(), "b");
    EXPECT_EQ(e.key_device(), key.device);
    EXPECT_EQ(e.measured_on(), other.device);
  }
  // record() refuses the whole call, and it is an invalid argument like the other refusals.
  EXPECT_THROW(db.record(key, {make_measurement("a", 1.0), other}, "a"), invalid_argument_error);
  EXPECT_TRUE(db.list().empty());
  // A candidate that ran on no GPU (a compile failure) fits any key; one of the key's model is stored.
  db.record(key, {make_measurement("a", 1.0), make_measurement("c", 0, candidate_status::compile_failed)}, "a");
  const auto rec = db.find(key);
  ASSERT_TRUE(rec);
  ASSERT_EQ(rec->measurements.size(), 2U);
  EXPECT_EQ(rec->measurements[0].device, key.device);
  EXPECT_EQ(rec->measurements[0].device_id, "1");
  EXPECT_EQ(rec->measurements[1].device, "");
  other.device = key.device;  // the same GPU model, another GPU of the host: comparable
  db.add_measurement(key, other);
  EXPECT_EQ(db.find_measurement(key, "b")->device_id, "3");
}

// A file written by schema version 1 (before measurements had a device), as that version created it.
constexpr const char* schema_v1_sql = R"sql(
CREATE TABLE schema_version(id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
CREATE TABLE tuning_keys(
  id               INTEGER PRIMARY KEY,
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
  updated_at       TEXT NOT NULL);
CREATE INDEX tuning_keys_by_template ON tuning_keys(template_name);
CREATE TABLE measurements(
  id          INTEGER PRIMARY KEY,
  key_id      INTEGER NOT NULL REFERENCES tuning_keys(id) ON DELETE CASCADE,
  candidate   TEXT NOT NULL,
  config      TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  status      TEXT NOT NULL,
  reason      TEXT NOT NULL,
  min_ms      REAL,
  median_ms   REAL,
  spread      REAL,
  repetitions INTEGER NOT NULL,
  verified    INTEGER NOT NULL,
  max_error   REAL,
  measured_at TEXT NOT NULL,
  UNIQUE(key_id, candidate));
INSERT INTO schema_version VALUES (1, 1);
)sql";

// The columns of a table as (name, type, not null, default), to compare two files' schemas.
std::vector<std::string> columns_of(const fs::path& file, const char* table) {
  raw_db raw(file);
  sqlite3_stmt* st = nullptr;
  const std::string sql =
      std::string("SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info('") + table + "') ORDER BY name";
  if (sqlite3_prepare_v2(raw.db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return {};
  std::vector<std::string> out;
  auto text = [st](int i) {
    const auto* p = sqlite3_column_text(st, i);
    return p == nullptr ? std::string("NULL") : std::string(reinterpret_cast<const char*>(p));
  };
  while (sqlite3_step(st) == SQLITE_ROW) out.push_back(text(0) + " " + text(1) + " " + text(2) + " " + text(3));
  sqlite3_finalize(st);
  return out;
}

TEST_F(TuningDb, MigratesASchemaVersion1File) {
  const auto key = make_key();
  fs::create_directories(file_.parent_path());
  {
    raw_db raw(file_);
    raw.exec(schema_v1_sql);
    const std::string row = "INSERT INTO tuning_keys VALUES (7, '" + key.digest() +
                            "', 'gemm', 'f16[4096,4096] x f16[4096,4096] -> f16', 'split_k=1', 'gfx90a', "
                            "'AMD Instinct MI210', 'clang version 15.0.7', '0.1.0', 'old', "
                            "'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')";
    raw.exec(row.c_str());
    raw.exec(
        "INSERT INTO measurements VALUES (1, 7, 'old', 'cfg', 'h', 'ok', '', 0.5, 0.6, 0.01, 10, 1, 0.0, "
        "'2026-01-01T00:00:00.000Z')");
  }
  tuning_db db(file_);
  EXPECT_EQ(raw_db(file_).scalar("SELECT version FROM schema_version"), tuning_db::schema_version);
  // What version 1 stored reads back, measured on an unknown device, and is still the winner.
  const auto rec = db.find(key);
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->winner, std::optional<std::string>("old"));
  ASSERT_EQ(rec->measurements.size(), 1U);
  EXPECT_EQ(rec->measurements[0].min_ms, 0.5);
  EXPECT_EQ(rec->measurements[0].device, "");
  EXPECT_EQ(rec->measurements[0].device_id, "");
  EXPECT_EQ(rec->key.descriptor, "");
  // New measurements keep their device; the migrated table is the one a new file gets.
  db.add_measurement(key, make_measurement("new", 0.25));
  EXPECT_EQ(tuning_db(file_).find_measurement(key, "new")->device, "AMD Instinct MI210");
  // The key stored with a descriptor fills in the row's; stored without, it keeps it.
  auto described = key;
  described.descriptor = R"({"kind":"gemm","m":4096})";
  db.add_measurement(described, make_measurement("newer", 0.3));
  EXPECT_EQ(db.find(key)->key.descriptor, described.descriptor);
  db.add_measurement(key, make_measurement("newest", 0.35));
  EXPECT_EQ(tuning_db(file_).find(described)->key.descriptor, described.descriptor);
  const auto fresh = dir_ / "fresh.sqlite3";
  (void)tuning_db(fresh);
  EXPECT_EQ(columns_of(file_, "measurements"), columns_of(fresh, "measurements"));
  EXPECT_EQ(columns_of(file_, "tuning_keys"), columns_of(fresh, "tuning_keys"));
  EXPECT_EQ(columns_of(fresh, "measurements").size(), 16U);
}

// ---- winner -------------------------------------------------------------------------------------

TEST_F(TuningDb, WinnerRules) {
  tuning_db db(file_);
  const auto key = make_key();
  EXPECT_THROW(db.set_winner(key, "a"), invalid_argument_error);  // unknown key
  db.add_measurement(key, make_measurement("a", 1.0));
  db.add_measurement(key, make_measurement("b", 0.5));
  db.add_measurement(key, make_measurement("bad", 0.1, candidate_status::launch_failed));
  EXPECT_FALSE(db.find(key)->winner);

  db.set_winner(key, "b");
  EXPECT_EQ(db.find(key)->winner, std::optional<std::string>("b"));
  EXPECT_THROW(db.set_winner(key, "missing"), invalid_argument_error);
  EXPECT_THROW(db.set_winner(key, "bad"), invalid_argument_error);
  EXPECT_EQ(db.find(key)->winner, std::optional<std::string>("b"));  // unchanged by the failed calls
  db.set_winner(key, "a");
  EXPECT_EQ(db.find(key)->winner, std::optional<std::string>("a"));

  // Re-measuring the winner as a failure clears it; re-measuring another candidate does not.
  db.add_measurement(key, make_measurement("b", 0.4, candidate_status::crashed));
  EXPECT_EQ(db.find(key)->winner, std::optional<std::string>("a"));
  db.add_measurement(key, make_measurement("a", 1.0, candidate_status::verify_failed));
  EXPECT_FALSE(db.find(key)->winner);

  // record: the winner must be ok once the batch is stored; a bad winner stores nothing.
  EXPECT_THROW(db.record(key, {make_measurement("c", 0.3)}, "bad"), invalid_argument_error);
  EXPECT_FALSE(db.find_measurement(key, "c"));
  db.record(key, {make_measurement("c", 0.3)}, "c");
  EXPECT_EQ(db.find(key)->winner, std::optional<std::string>("c"));
  db.record(key, {make_measurement("a", 0.2)}, std::nullopt);  // no winner this run: cleared
  EXPECT_FALSE(db.find(key)->winner);
  EXPECT_EQ(db.find(key)->measurements.size(), 4U);
}

// ---- list and erase -----------------------------------------------------------------------------

TEST_F(TuningDb, ListsNewestFirst) {
  tuning_db db(file_);
  db.record(make_key("first"), {make_measurement("a", 1.0)}, "a");
  db.record(make_key("second"), {make_measurement("a", 2.0), make_measurement("b", 3.0)}, std::nullopt);
  db.add_measurement(make_key("third"), make_measurement("z", 3.0));
  auto all = db.list();
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].key.problem, "third");
  EXPECT_EQ(all[1].key.problem, "second");
  EXPECT_EQ(all[2].key.problem, "first");
  EXPECT_EQ(all[1].measurements.size(), 2U);
  EXPECT_EQ(all[2].winner, std::optional<std::string>("a"));
  EXPECT_EQ(all[0], *db.find(make_key("third")));

  // Ordering follows created_at, not insertion order: make "first" the newest.
  raw_db(file_).exec("UPDATE tuning_keys SET created_at = '2999-01-01T00:00:00.000Z' WHERE problem = 'first'");
  all = db.list();
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].key.problem, "first");
  EXPECT_EQ(all[1].key.problem, "third");
  // Updating a key keeps its creation time, so it does not move.
  db.add_measurement(make_key("second"), make_measurement("c", 1.0));
  EXPECT_EQ(db.list()[2].key.problem, "second");
}

TEST_F(TuningDb, EraseByTemplateAndAll) {
  tuning_db db(file_);
  db.record(make_key("p1", "gemm"), {make_measurement("a", 1.0), make_measurement("b", 1.0)}, "a");
  db.record(make_key("p2", "gemm"), {make_measurement("a", 1.0)}, "a");
  db.record(make_key("p1", "conv"), {make_measurement("a", 1.0)}, "a");
  db.record(make_key("p1", "gemm_like"), {make_measurement("a", 1.0)}, "a");  // no prefix matching

  EXPECT_EQ(db.erase("attention"), 0U);
  EXPECT_EQ(db.erase("gemm"), 2U);
  EXPECT_FALSE(db.find(make_key("p1", "gemm")));
  EXPECT_FALSE(db.find_measurement(make_key("p1", "gemm"), "a"));
  ASSERT_TRUE(db.find(make_key("p1", "conv")));
  ASSERT_TRUE(db.find(make_key("p1", "gemm_like")));
  EXPECT_EQ(raw_db(file_).scalar("SELECT count(*) FROM measurements"), 2);  // measurements went too

  EXPECT_EQ(db.erase(), 2U);
  EXPECT_TRUE(db.list().empty());
  EXPECT_EQ(raw_db(file_).scalar("SELECT count(*) FROM measurements"), 0);
  EXPECT_EQ(db.erase(), 0U);
  db.add_measurement(make_key(), make_measurement("a", 1.0));  // still usable afterwards
  EXPECT_EQ(db.list().size(), 1U);
}

// ---- JSON ---------------------------------------------------------------------------------------

TEST_F(TuningDb, JsonExport) {
  tuning_db db(file_);
  const auto k1 = make_key("p1");
  const auto k2 = make_key("p2", "conv", "");
  auto nan_m = make_measurement("n", 1.0, candidate_status::timed_out);
  nan_m.median_ms = std::numeric_limits<double>::quiet_NaN();
  db.record(k1, {make_measurement("a", 1.0), make_measurement("b", 2.0)}, "a");
  db.record(k2, {nan_m}, std::nullopt);

  const auto j = db.to_json();
  EXPECT_EQ(j.at("format"), "rocmtpl.tuning_db");
  EXPECT_EQ(j.at("schema_version"), tuning_db::schema_version);
  EXPECT_EQ(j.at("path"), file_.string());
  const auto& records = j.at("records");
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].at("key").at("template_name"), "conv");  // newest first, like list()
  EXPECT_EQ(records[0].at("winner"), nullptr);
  const auto& r = records[1];
  EXPECT_EQ(r.at("digest"), k1.digest());
  EXPECT_EQ(r.at("key").at("problem"), "p1");
  EXPECT_EQ(r.at("key").at("runtime_args"), k1.runtime_args);
  EXPECT_EQ(r.at("key").at("arch"), k1.arch);
  EXPECT_EQ(r.at("key").at("device"), k1.device);
  EXPECT_EQ(r.at("key").at("compiler_version"), k1.compiler_version);
  EXPECT_EQ(r.at("key").at("library_version"), k1.library_version);
  EXPECT_EQ(r.at("winner"), "a");
  EXPECT_EQ(r.at("created_at"), db.find(k1)->created_at);
  ASSERT_EQ(r.at("measurements").size(), 2U);
  const auto& m = r.at("measurements")[1];
  EXPECT_EQ(m.at("candidate"), "b");
  EXPECT_EQ(m.at("status"), "ok");
  EXPECT_EQ(m.at("min_ms"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("median_ms").get<double>(), 2.2);
  EXPECT_EQ(m.at("repetitions"), 25);
  EXPECT_EQ(m.at("verified"), true);
  EXPECT_EQ(m.at("source_hash"), "hash-b");
  EXPECT_EQ(records[0].at("measurements")[0].at("status"), "timed_out");

  // The text form is valid JSON (NaN becomes null) and reads back into equal records.
  const auto parsed = nlohmann::json::parse(j.dump());
  EXPECT_TRUE(parsed["records"][0]["measurements"][0]["median_ms"].is_null());
  const auto back = parsed["records"][1].get<tuning_record>();
  EXPECT_EQ(back, *db.find(k1));
  const auto nan_back = parsed["records"][0]["measurements"][0].get<measurement>();
  expect_same(nan_back, nan_m);
}

// ---- several writers ----------------------------------------------------------------------------

constexpr int writes_per_writer = 60;

void write_many(const fs::path& file, const std::string& who) {
  tuning_db db(file);
  for (int i = 0; i < writes_per_writer; ++i) {
    // Half to a shared key (same rows contended), half to the writer's own key.
    // Names built by appending: "c" + to_string() trips g++ 12 -O3 (false -Wrestrict, GCC bug 105329).
    std::string shared_name = who;
    shared_name += '_';
    shared_name += std::to_string(i);
    std::string own_name = "c";
    own_name += std::to_string(i);
    db.add_measurement(make_key("shared"), make_measurement(shared_name, i));
    db.add_measurement(make_key(who), make_measurement(own_name, i));
    if (i % 10 == 0) (void)db.find(make_key("shared"));
  }
  db.record(make_key(who), {make_measurement("c0", 0.0)}, "c0");
}

TEST_F(TuningDb, TwoConnectionsWriteConcurrently) {
  std::atomic<int> failures{0};
  std::string first_error;
  std::mutex error_mutex;
  auto writer = [&](std::string who) {
    try {
      write_many(file_, who);
    } catch (const std::exception& e) {
      ++failures;
      std::lock_guard lock(error_mutex);
      first_error = e.what();
    }
  };
  std::thread t1(writer, "t1");
  std::thread t2(writer, "t2");
  t1.join();
  t2.join();
  ASSERT_EQ(failures.load(), 0) << first_error;
  const tuning_db db(file_);
  EXPECT_EQ(db.find(make_key("shared"))->measurements.size(), 2U * writes_per_writer);
  EXPECT_EQ(db.find(make_key("t1"))->measurements.size(), static_cast<std::size_t>(writes_per_writer));
  EXPECT_EQ(db.find(make_key("t2"))->winner, std::optional<std::string>("c0"));
}

TEST_F(TuningDb, OneObjectSharedByThreads) {
  tuning_db db(file_);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 25; ++i) {
          db.add_measurement(make_key(), make_measurement(std::to_string(t) + "_" + std::to_string(i), i));
          (void)db.list();
        }
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(db.find(make_key())->measurements.size(), 100U);
}

// A child process and the parent create and write the same new file at the same time.
TEST_F(TuningDb, ForkedProcessWritesConcurrently) {
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    ::close(pipefd[0]);
    int rc = 0;
    try {
      write_many(file_, "child");
    } catch (const std::exception& e) {
      const std::string msg = e.what();
      [[maybe_unused]] auto n = ::write(pipefd[1], msg.data(), msg.size());
      rc = 1;
    }
    ::close(pipefd[1]);
    ::_exit(rc);  // no gtest or static destructors in the child
  }
  ::close(pipefd[1]);
  std::string parent_error;
  try {
    write_many(file_, "parent");
  } catch (const std::exception& e) {
    parent_error = e.what();
  }
  std::string child_error;
  std::array<char, 512> buf{};
  for (ssize_t n; (n = ::read(pipefd[0], buf.data(), buf.size())) > 0;) child_error.append(buf.data(), n);
  ::close(pipefd[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(parent_error.empty()) << parent_error;
  ASSERT_TRUE(WIFEXITED(status)) << "child died";
  EXPECT_EQ(WEXITSTATUS(status), 0) << child_error;
  const tuning_db db(file_);
  EXPECT_EQ(db.find(make_key("shared"))->measurements.size(), 2U * writes_per_writer);
  EXPECT_EQ(db.find(make_key("child"))->measurements.size(), static_cast<std::size_t>(writes_per_writer));
  EXPECT_EQ(db.find(make_key("parent"))->measurements.size(), static_cast<std::size_t>(writes_per_writer));
  EXPECT_EQ(raw_db(file_).scalar("SELECT count(*) FROM tuning_keys"), 3);
}

// ---- bad files ----------------------------------------------------------------------------------

TEST_F(TuningDb, RefusesNewerSchema) {
  tuning_db(file_).record(make_key(), {make_measurement("a", 1.0)}, "a");
  const auto newer = tuning_db::schema_version + 1;
  raw_db(file_).exec(("UPDATE schema_version SET version = " + std::to_string(newer)).c_str());
  try {
    tuning_db db(file_);
    FAIL() << "a newer schema must be refused";
  } catch (const tuning_db_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file_.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("schema version " + std::to_string(newer)), std::string::npos) << msg;
    EXPECT_EQ(e.path(), file_);
  }
  EXPECT_EQ(raw_db(file_).scalar("SELECT version FROM schema_version"), newer);  // left untouched
  EXPECT_EQ(raw_db(file_).scalar("SELECT count(*) FROM measurements"), 1);
}

TEST_F(TuningDb, CorruptFileNamesThePath) {
  fs::create_directories(file_.parent_path());
  {
    std::ofstream out(file_, std::ios::binary);
    for (int i = 0; i < 1024; ++i) out << "garbage bytes, not a database " << i << '\n';
  }
  try {
    tuning_db db(file_);
    FAIL() << "garbage must not open as a database";
  } catch (const tuning_db_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file_.string()), std::string::npos) << msg;
    EXPECT_EQ(e.path(), file_);
    EXPECT_EQ(e.sqlite_code(), SQLITE_NOTADB) << msg;
    EXPECT_FALSE(e.sqlite_message().empty());
    EXPECT_FALSE(e.operation().empty());
  }
}

TEST_F(TuningDb, UnwritableLocationIsTuningDbError) {
  fs::create_directories(dir_);
  const auto blocker = dir_ / "a_file";
  std::ofstream(blocker) << "x";
  EXPECT_THROW((void)tuning_db{blocker / "tuning.sqlite3"}, tuning_db_error);  // parent is a regular file
}

// ---- default location ---------------------------------------------------------------------------

TEST_F(TuningDb, DefaultPathFollowsEnvironment) {
  {
    scoped_env cache("ROCMTPL_CACHE_DIR", dir_.c_str());
    EXPECT_EQ(tuning_db::default_path(), dir_ / "tuning.sqlite3");
    tuning_db db;  // default argument: creates the directory and the file there
    EXPECT_EQ(db.path(), dir_ / "tuning.sqlite3");
    db.add_measurement(make_key(), make_measurement("a", 1.0));
    EXPECT_TRUE(fs::exists(dir_ / "tuning.sqlite3"));
  }
  const auto xdg_dir = dir_ / "xdg";
  const auto home_dir = dir_ / "home";
  {
    scoped_env cache("ROCMTPL_CACHE_DIR", std::nullopt);
    scoped_env xdg("XDG_CACHE_HOME", xdg_dir.c_str());
    EXPECT_EQ(tuning_db::default_path(), xdg_dir / "rocmtpl" / "tuning.sqlite3");
  }
  {
    scoped_env cache("ROCMTPL_CACHE_DIR", "");  // empty counts as unset
    scoped_env xdg("XDG_CACHE_HOME", std::nullopt);
    scoped_env home("HOME", home_dir.c_str());
    EXPECT_EQ(tuning_db::default_path(), home_dir / ".cache" / "rocmtpl" / "tuning.sqlite3");
  }
}

}  // namespace

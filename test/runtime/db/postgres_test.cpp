// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/postgres.hpp against a real PostgreSQL server that the
// test starts itself (test/support/pg_server.hpp: initdb into a temporary folder, a Unix socket, no
// system service): records round-trip and match what the SQLite file stores, the claim protocol
// (support/claims.hpp) from threads and processes, lease expiry. Skips with a message only
// where the server binaries are missing (or the build has no libpq).
#include <rocmtpl/runtime/db/database.hpp>
#include <rocmtpl/runtime/db/postgres.hpp>

#include "support/claims.hpp"
#include "support/pg_server.hpp"
#include "support/runtime.hpp"
#include "support/tuning_db.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace rt = rocmtpl::runtime;
using rocmtpl::test::make_key;
using rocmtpl::test::make_measurement;

TEST(PostgresUrl, RecognisesBothSchemes) {
  EXPECT_TRUE(rt::is_postgresql_url("postgresql://host/db"));
  EXPECT_TRUE(rt::is_postgresql_url("postgres:///db?host=/tmp"));
  EXPECT_FALSE(rt::is_postgresql_url("/home/me/postgresql://x"));
  EXPECT_FALSE(rt::is_postgresql_url("tuning.sqlite3"));
}

TEST(PostgresUrl, RedactsThePassword) {
  EXPECT_EQ(rt::redact_postgresql_url("postgresql://me:secret@db.example:5432/tuning"),
            "postgresql://me:***@db.example:5432/tuning");
  EXPECT_EQ(rt::redact_postgresql_url("postgresql://me@host/db"), "postgresql://me@host/db");
  EXPECT_EQ(rt::redact_postgresql_url("postgresql:///db?host=/tmp/x"), "postgresql:///db?host=/tmp/x");
  EXPECT_EQ(rt::redact_postgresql_url("postgresql://host:5432/db"), "postgresql://host:5432/db");
}

// Issue 22 item 1: the library's defaults (connect timeout, keepalives, statement timeout) are added
// to a URL that lacks them, and what the URL (or the environment) sets is kept.
TEST(PostgresUrl, DefaultTimeoutsAreAddedWhereTheUrlSetsNone) {
  rocmtpl::test::scoped_env no_connect("PGCONNECT_TIMEOUT", std::nullopt);
  rocmtpl::test::scoped_env no_options("PGOPTIONS", std::nullopt);
  EXPECT_EQ(rt::postgresql_url_with_defaults("postgresql://me@db.example/tuning"),
            "postgresql://me@db.example/tuning?connect_timeout=10&keepalives=1&keepalives_idle=30&"
            "keepalives_interval=10&keepalives_count=3&options=-c%20statement_timeout%3D60000");
  EXPECT_EQ(rt::postgresql_url_with_defaults("postgresql:///db?host=/tmp/x"),
            "postgresql:///db?host=/tmp/x&connect_timeout=10&keepalives=1&keepalives_idle=30&"
            "keepalives_interval=10&keepalives_count=3&options=-c%20statement_timeout%3D60000");
  // What the URL sets stays; options without a statement timeout get one appended.
  EXPECT_EQ(rt::postgresql_url_with_defaults("postgresql://h/db?connect_timeout=3&keepalives=0&keepalives_idle=5&"
                                             "keepalives_interval=1&keepalives_count=9&options=-c%20work_mem%3D4MB"),
            "postgresql://h/db?connect_timeout=3&keepalives=0&keepalives_idle=5&keepalives_interval=1&"
            "keepalives_count=9&options=-c%20work_mem%3D4MB%20-c%20statement_timeout%3D60000");
  const std::string all =
      "postgresql://h/db?connect_timeout=3&keepalives=1&keepalives_idle=5&keepalives_interval=1&"
      "keepalives_count=9&options=-c%20statement_timeout%3D0";
  EXPECT_EQ(rt::postgresql_url_with_defaults(all), all);
  // What comes out reads back as meant, and libpq takes it.
  const auto rewritten = rt::postgresql_url_with_defaults("postgresql://h/db?options=-c%20a%3Db&sslmode=disable");
  const auto params = rt::detail::pg_url_parameters(rewritten);
  EXPECT_EQ(params.front(), (std::pair<std::string, std::string>{"options", "-c a=b -c statement_timeout=60000"}));
  EXPECT_EQ(params[1], (std::pair<std::string, std::string>{"sslmode", "disable"}));
#if defined(ROCMTPL_HAS_LIBPQ) && ROCMTPL_HAS_LIBPQ
  for (const auto& url : {rewritten, rt::postgresql_url_with_defaults("postgresql://me@h:5433/db")}) {
    char* error = nullptr;
    PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &error);
    EXPECT_NE(parsed, nullptr) << url << ": " << (error != nullptr ? error : "");
    std::map<std::string, std::string> values;
    for (auto* o = parsed; o != nullptr && o->keyword != nullptr; ++o) {
      if (o->val != nullptr) values[o->keyword] = o->val;
    }
    EXPECT_EQ(values["keepalives_count"], "3") << url;
    EXPECT_EQ(values["connect_timeout"], "10") << url;
    EXPECT_NE(values["options"].find("-c statement_timeout=60000"), std::string::npos) << url;
    PQconninfoFree(parsed);
    PQfreemem(error);
  }
#endif
  // The environment's settings count as the user's: PGCONNECT_TIMEOUT is left to libpq, PGOPTIONS
  // kept in front of the added statement timeout (the URL's options would replace it).
  rocmtpl::test::scoped_env connect("PGCONNECT_TIMEOUT", "4");
  rocmtpl::test::scoped_env options("PGOPTIONS", "-c search_path=tuning");
  EXPECT_EQ(rt::postgresql_url_with_defaults("postgresql://h/db"),
            "postgresql://h/db?keepalives=1&keepalives_idle=30&keepalives_interval=10&keepalives_count=3&"
            "options=-c%20search_path%3Dtuning%20-c%20statement_timeout%3D60000");
  rocmtpl::test::scoped_env options_with("PGOPTIONS", "-c statement_timeout=5s");
  EXPECT_EQ(rt::postgresql_url_with_defaults("postgresql://h/db"),
            "postgresql://h/db?keepalives=1&keepalives_idle=30&keepalives_interval=10&keepalives_count=3");
#if defined(ROCMTPL_HAS_LIBPQ) && ROCMTPL_HAS_LIBPQ  // the connection's helpers exist with libpq only
  EXPECT_EQ(rt::detail::pg_parse_duration("1min"), std::chrono::milliseconds(60000));
  EXPECT_EQ(rt::detail::pg_parse_duration("0"), std::chrono::milliseconds(0));
  EXPECT_EQ(rt::detail::pg_parse_duration("250ms"), std::chrono::milliseconds(250));
  EXPECT_EQ(rt::detail::pg_parse_duration("1week"), std::nullopt);
#endif
}

// A TCP listener on a free port of 127.0.0.1 that never accepts or answers: the kernel completes
// the connection (the backlog), the "server" never says a word.
class silent_listener {
 public:
  silent_listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(a.sin_port);
  }
  silent_listener(const silent_listener&) = delete;
  silent_listener& operator=(const silent_listener&) = delete;
  ~silent_listener() { ::close(fd_); }
  [[nodiscard]] int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(PostgresBackend, AServerThatNeverAnswersTimesOutNamingTheServerAndTheTimeout) {
  if (!rt::postgresql_enabled) GTEST_SKIP() << "built without libpq (apt-get install libpq-dev, then configure)";
  silent_listener silent;
  const auto url = fmt::format("postgresql://me:pw@127.0.0.1:{}/db?connect_timeout=2", silent.port());
  const auto t0 = std::chrono::steady_clock::now();
  try {
    rt::tuning_db db(url);
    FAIL() << "connected to a server that never answers";
  } catch (const rt::tuning_db_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(fmt::format("127.0.0.1:{}", silent.port())), std::string::npos) << what;
    EXPECT_NE(what.find("timed out: no answer from the server within 2 s (the URL's connect_timeout=2)"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find(":pw@"), std::string::npos) << "password in message: " << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(4));
}

TEST(PostgresBackend, UnreachableServerIsTuningDbError) {
  if (!rt::postgresql_enabled) {
    // Built without libpq: any URL is refused with a message that says how to enable the backend.
    try {
      rt::tuning_db db("postgresql://me:pw@nowhere/db");
      FAIL() << "opened a PostgreSQL database without the backend";
    } catch (const rt::tuning_db_error& e) {
      EXPECT_NE(std::string(e.what()).find("libpq-dev"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("pw"), std::string::npos) << "password in message: " << e.what();
    }
    return;
  }
  rocmtpl::test::temp_dir dir;  // an empty folder: no server socket there
  try {
    rt::tuning_db db(fmt::format("postgresql://me:pw@/db?host={}&connect_timeout=2", dir.path().string()));
    FAIL() << "connected to nothing";
  } catch (const rt::tuning_db_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("connect failed"), std::string::npos) << what;
    EXPECT_NE(what.find("me:***@"), std::string::npos) << what;
    EXPECT_EQ(what.find(":pw@"), std::string::npos) << "password in message: " << what;
  }
}

// One server per test process (ctest runs each test in its own process).
class Postgres : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!rt::postgresql_enabled || !rocmtpl::test::pg_server::unavailable_reason().empty()) return;
    server_ = std::make_unique<rocmtpl::test::pg_server>();
  }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    if (!rt::postgresql_enabled) GTEST_SKIP() << "built without libpq (apt-get install libpq-dev, then configure)";
    if (auto why = rocmtpl::test::pg_server::unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
    static int counter = 0;
    url_ = server_->create_database(fmt::format("t{}_{}", ::getpid(), ++counter));
  }

  rocmtpl::test::db_opener opener() const {
    return [url = url_] { return rt::tuning_db(url); };
  }

  static inline std::unique_ptr<rocmtpl::test::pg_server> server_;
  std::string url_;
};

// What both backends must agree on: the records without their timestamps.
std::vector<rt::tuning_record> without_times(std::vector<rt::tuning_record> records) {
  for (auto& r : records) r.created_at = r.updated_at = "";
  return records;
}

void write_sample(rt::tuning_db& db) {
  auto special = make_measurement("nan", 2.0);
  special.min_ms = std::numeric_limits<double>::quiet_NaN();
  special.median_ms = std::numeric_limits<double>::infinity();
  special.max_error = 0.1 + 0.2;  // not short in decimal: must round-trip bit for bit
  special.reason = "quote ' and \"dq\" and unicode \xc3\xa9";
  db.record(make_key("p1"),
            {make_measurement("a", 0.5), make_measurement("b", 0.25), special,
             make_measurement("c", 1.0, rt::candidate_status::compile_failed)},
            "b");
  db.add_measurement(make_key("p2", "softmax"), make_measurement("x", 3.0));
  db.set_winner(make_key("p2", "softmax"), "x");
  db.add_measurement(make_key("p2", "softmax"), make_measurement("x", 3.0, rt::candidate_status::launch_failed));
}

TEST_F(Postgres, RecordsRoundTripAndMatchSqlite) {
  rt::tuning_db pg(url_);
  EXPECT_TRUE(pg.is_postgresql());
  EXPECT_EQ(pg.path().string(), url_);
  write_sample(pg);
  rocmtpl::test::temp_dir dir;
  rt::tuning_db lite(dir / "tuning.sqlite3");
  write_sample(lite);
  const auto from_pg = without_times(pg.list());
  ASSERT_EQ(from_pg.size(), 2U);
  const auto from_lite = without_times(lite.list());
  ASSERT_EQ(from_lite.size(), 2U);
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(from_pg[r].key, from_lite[r].key);
    EXPECT_EQ(from_pg[r].winner, from_lite[r].winner);
    ASSERT_EQ(from_pg[r].measurements.size(), from_lite[r].measurements.size());
    for (std::size_t i = 0; i < from_pg[r].measurements.size(); ++i) {
      rocmtpl::test::expect_same(from_pg[r].measurements[i], from_lite[r].measurements[i]);
    }
  }
  // The winner rules are the backend's too: p2's winner was cleared by the failed re-measurement.
  const auto p2 = pg.find(make_key("p2", "softmax"));
  ASSERT_TRUE(p2);
  EXPECT_FALSE(p2->winner);
  EXPECT_EQ(pg.find(make_key("p1"))->winner.value_or(""), "b");
  EXPECT_THROW(pg.set_winner(make_key("p1"), "c"), rocmtpl::invalid_argument_error);  // compile_failed
  EXPECT_THROW(pg.set_winner(make_key("p1"), "zz"), rocmtpl::invalid_argument_error);
  EXPECT_THROW(pg.set_winner(make_key("nope"), "a"), rocmtpl::invalid_argument_error);
  EXPECT_THROW(pg.record(make_key("p3"), {make_measurement("a", 1.0)}, "zz"), rocmtpl::invalid_argument_error);
  EXPECT_FALSE(pg.find(make_key("p3"))) << "a refused record stores nothing";
  const auto m = pg.find_measurement(make_key("p1"), "nan");
  ASSERT_TRUE(m);
  EXPECT_TRUE(std::isnan(m->min_ms));
  EXPECT_TRUE(std::isinf(m->median_ms));
  EXPECT_EQ(m->max_error, 0.1 + 0.2);
  EXPECT_FALSE(pg.find_measurement(make_key("p1"), "missing"));
  EXPECT_FALSE(pg.find_measurement(make_key("p1", "gemm", "split_k=2"), "a")) << "runtime args are part of the key";
  // A second connection sees the same; the JSON export names the URL.
  rt::tuning_db again(url_);
  EXPECT_EQ(again.list().size(), 2U);
  EXPECT_EQ(again.to_json()["path"], url_);
  EXPECT_EQ(again.erase(std::string("softmax")), 1U);
  EXPECT_EQ(pg.erase(std::string("conv")), 0U);
  EXPECT_EQ(pg.list().size(), 1U);
  EXPECT_EQ(pg.erase(), 1U);
  EXPECT_TRUE(pg.list().empty());
}

// The device of each measurement (issue 11): stored, and refused under a key of another model.
TEST_F(Postgres, MeasurementsKeepTheirDeviceAndOtherModelsAreRefused) {
  rt::tuning_db pg(url_);
  const auto key = make_key();
  auto m = make_measurement("a", 1.0);
  m.device_id = "GPU-5e1c";
  pg.add_measurement(key, m);
  const auto back = pg.find_measurement(key, "a");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->device, key.device);
  EXPECT_EQ(back->device_id, "GPU-5e1c");
  EXPECT_EQ(pg.list().at(0).measurements.at(0).device_id, "GPU-5e1c");
  auto other = make_measurement("b", 0.5);
  other.device = "NVIDIA H100 80GB HBM3";
  EXPECT_THROW(pg.add_measurement(key, other), rt::device_mismatch_error);
  EXPECT_THROW(pg.record(key, {make_measurement("c", 2.0), other}, "c"), rt::device_mismatch_error);
  EXPECT_FALSE(pg.find_measurement(key, "b"));
  EXPECT_FALSE(pg.find_measurement(key, "c")) << "a refused record stores nothing";
}

#if defined(ROCMTPL_HAS_LIBPQ) && ROCMTPL_HAS_LIBPQ
// A database written by schema version 1 (measurements without a device), as that version created it.
constexpr const char* pg_schema_v1_sql = R"sql(
CREATE TABLE schema_version(id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL);
CREATE TABLE tuning_keys(
  id               BIGSERIAL PRIMARY KEY,
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
  id          BIGSERIAL PRIMARY KEY,
  key_id      BIGINT NOT NULL REFERENCES tuning_keys(id) ON DELETE CASCADE,
  candidate   TEXT NOT NULL,
  config      TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  status      TEXT NOT NULL,
  reason      TEXT NOT NULL,
  min_ms      DOUBLE PRECISION,
  median_ms   DOUBLE PRECISION,
  spread      DOUBLE PRECISION,
  repetitions INTEGER NOT NULL,
  verified    BOOLEAN NOT NULL,
  max_error   DOUBLE PRECISION,
  measured_at TEXT NOT NULL,
  UNIQUE(key_id, candidate));
INSERT INTO schema_version VALUES (1, 1);
)sql";

// The columns of measurements as "name type not-null default", in name order.
std::vector<std::string> measurement_columns(const rt::detail::pg_connection& conn) {
  auto r = conn.exec(
      "SELECT column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, 'NULL') "
      "FROM information_schema.columns WHERE table_name = 'measurements' AND column_name <> 'id' "
      "ORDER BY column_name",
      {});
  std::vector<std::string> out;
  for (int row = 0; row < PQntuples(r.get()); ++row) out.emplace_back(PQgetvalue(r.get(), row, 0));
  return out;
}

TEST_F(Postgres, MigratesASchemaVersion1Database) {
  const auto key = make_key();
  {
    const rt::detail::pg_connection raw(url_);
    raw.exec(pg_schema_v1_sql);
    raw.exec(
        "INSERT INTO tuning_keys(digest, template_name, problem, runtime_args, arch, device, compiler_version, "
        "library_version, winner, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'old', 'then', "
        "'then')",
        {key.digest(), key.template_name, key.problem, key.runtime_args, key.arch, key.device, key.compiler_version,
         key.library_version});
    raw.exec(
        "INSERT INTO measurements(key_id, candidate, config, source_hash, status, reason, min_ms, median_ms, spread, "
        "repetitions, verified, max_error, measured_at) SELECT id, 'old', 'cfg', 'h', 'ok', '', 0.5, 0.6, 0.01, 10, "
        "true, 0, 'then' FROM tuning_keys",
        {});
  }
  rt::tuning_db db(url_);
  const rt::detail::pg_connection raw(url_);
  auto version = raw.exec("SELECT version FROM schema_version", {});
  EXPECT_EQ(std::string(PQgetvalue(version.get(), 0, 0)), std::to_string(rt::tuning_db::schema_version));
  const auto rec = db.find(key);
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->winner.value_or(""), "old");
  ASSERT_EQ(rec->measurements.size(), 1U);
  EXPECT_EQ(rec->measurements[0].min_ms, 0.5);
  EXPECT_EQ(rec->measurements[0].device, "");
  EXPECT_EQ(rec->key.descriptor, "");
  db.add_measurement(key, make_measurement("new", 0.25));
  EXPECT_EQ(rt::tuning_db(url_).find_measurement(key, "new")->device, key.device);
  // The key stored with a descriptor fills in the row's; stored without, it keeps it.
  auto described = key;
  described.descriptor = R"({"kind":"gemm","m":4096})";
  db.add_measurement(described, make_measurement("newer", 0.3));
  EXPECT_EQ(db.find(key)->key.descriptor, described.descriptor);
  db.add_measurement(key, make_measurement("newest", 0.35));
  EXPECT_EQ(rt::tuning_db(url_).find(described)->key.descriptor, described.descriptor);
  // The migrated table is the one a new database gets.
  const auto migrated = measurement_columns(raw);
  const auto fresh_url = server_->create_database(fmt::format("fresh{}", ::getpid()));
  (void)rt::tuning_db(fresh_url);
  EXPECT_EQ(migrated, measurement_columns(rt::detail::pg_connection(fresh_url)));
  EXPECT_EQ(migrated.size(), 15U);
}
#endif

#if defined(ROCMTPL_HAS_LIBPQ) && ROCMTPL_HAS_LIBPQ
// Issue 22 item 1: the defaults reach the server (it reports the statement timeout the URL did not
// set), the server enforces the statement timeout, and a server that stops answering after the
// connection was made fails the call after the statement timeout and 5 s, instead of hanging it.
TEST_F(Postgres, StatementsAreLimitedAndAServerThatStopsAnsweringFailsTheCall) {
  {
    const rt::detail::pg_connection plain(url_);
    EXPECT_EQ(plain.answer_timeout(), rt::postgresql_statement_timeout + std::chrono::seconds(5));
  }
  const rt::detail::pg_connection conn(url_ + "&options=-c%20statement_timeout%3D1000");
  EXPECT_EQ(conn.answer_timeout(), std::chrono::milliseconds(6000));
  try {
    (void)conn.exec("SELECT pg_sleep(5)", {});
    FAIL() << "a statement ran past statement_timeout";
  } catch (const rt::tuning_db_error& e) {
    EXPECT_NE(std::string(e.what()).find("statement timeout"), std::string::npos) << e.what();
  }
  const auto r = conn.exec("SELECT pg_backend_pid()", {});
  const pid_t backend = std::stoi(PQgetvalue(r.get(), 0, 0));
  ASSERT_EQ(::kill(backend, SIGSTOP), 0);  // the server process of this connection stops answering
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)conn.exec("SELECT 1", {});
    ADD_FAILURE() << "a stopped server answered";
  } catch (const rt::tuning_db_error& e) {
    EXPECT_NE(std::string(e.what()).find("no answer from the server within 6000 ms"), std::string::npos) << e.what();
  }
  const auto waited = std::chrono::steady_clock::now() - t0;
  ::kill(backend, SIGCONT);
  EXPECT_GE(waited, std::chrono::milliseconds(5500));
  EXPECT_LT(waited, std::chrono::seconds(9));
  // Given up for good: the next call says so at once.
  try {
    conn.exec("SELECT 1");
    FAIL() << "used a connection that was given up";
  } catch (const rt::tuning_db_error& e) {
    EXPECT_NE(std::string(e.what()).find("given up"), std::string::npos) << e.what();
  }
}
#endif

TEST_F(Postgres, EnvironmentSelectsTheServer) {
  rocmtpl::test::scoped_env env("ROCMTPL_TUNING_DB", url_);
  EXPECT_EQ(rt::tuning_db::default_path().string(), url_);
  rt::tuning_db db;  // the default argument follows the environment
  EXPECT_TRUE(db.is_postgresql());
}

TEST_F(Postgres, ClaimBasics) { rocmtpl::test::check_claim_basics(opener()); }
TEST_F(Postgres, LeaseExpiryHandsTheProblemToAnotherTuner) { rocmtpl::test::check_lease_expiry(opener()); }
TEST_F(Postgres, ThreadsNeverOverlap) { rocmtpl::test::check_threads_never_overlap(opener(), 8, 60); }
TEST_F(Postgres, ProcessesNeverOverlap) { rocmtpl::test::check_processes_never_overlap(opener(), 4, 60); }

}  // namespace

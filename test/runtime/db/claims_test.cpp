// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/claims.hpp on the SQLite backend: batch states, and the
// claim protocol (add, claim, renew, finish, release, lease expiry) from threads and processes.
// postgres_test.cpp runs the same checks against a real PostgreSQL server.
#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/database.hpp>

#include "support/claims.hpp"
#include "support/runtime.hpp"
#include "support/tuning_db.hpp"

#include <gtest/gtest.h>

namespace {

namespace rt = rocmtpl::runtime;

TEST(BatchState, NamesRoundTrip) {
  for (auto s : {rt::batch_state::pending, rt::batch_state::claimed, rt::batch_state::done, rt::batch_state::failed}) {
    EXPECT_EQ(rt::parse_batch_state(rt::to_string(s)), s);
  }
  EXPECT_EQ(rt::to_string(rt::batch_state::done), "done");
  EXPECT_THROW((void)rt::parse_batch_state("finished"), rocmtpl::invalid_argument_error);
}

class SqliteClaims : public ::testing::Test {
 protected:
  rocmtpl::test::db_opener opener() {
    return [file = dir_ / "tuning.sqlite3"] { return rt::tuning_db(file); };
  }
  rocmtpl::test::temp_dir dir_;
};

TEST_F(SqliteClaims, Basics) { rocmtpl::test::check_claim_basics(opener()); }
TEST_F(SqliteClaims, LeaseExpiryHandsTheProblemToAnotherTuner) { rocmtpl::test::check_lease_expiry(opener()); }
TEST_F(SqliteClaims, ThreadsNeverOverlap) { rocmtpl::test::check_threads_never_overlap(opener(), 4, 40); }
TEST_F(SqliteClaims, ProcessesNeverOverlap) { rocmtpl::test::check_processes_never_overlap(opener(), 4, 40); }

TEST_F(SqliteClaims, BatchTablesLiveBesideTheRecords) {
  // A file written before batches existed gains the batch tables on first use; records stay.
  {
    rt::tuning_db db(dir_ / "tuning.sqlite3");
    db.add_measurement(rocmtpl::test::make_key(), rocmtpl::test::make_measurement("a", 1.0));
  }
  rt::tuning_db db(dir_ / "tuning.sqlite3");
  EXPECT_TRUE(db.batch_items("b", "t").empty());
  EXPECT_EQ(db.add_batch_items("b", "t", rocmtpl::test::sample_items(2)), 2U);
  EXPECT_EQ(db.list().size(), 1U);
  EXPECT_FALSE(db.is_postgresql());
}

}  // namespace

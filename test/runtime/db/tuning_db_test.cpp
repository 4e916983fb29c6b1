// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/tuning_db.hpp, the header that gathers the tuning database: one
// include gives the key types, the database and the JSON forms, and they work together as the
// header's documented workflow does. The parts have their own tests in test/runtime/db/.
#include <rocmtpl/runtime/db/tuning_db.hpp>

#include "support/runtime.hpp"
#include "support/tuning_db.hpp"

#include <string>
#include <vector>

namespace {

using rocmtpl::runtime::candidate_status;
using rocmtpl::runtime::tuning_db;
using rocmtpl::runtime::tuning_record;
using rocmtpl::test::make_key;
using rocmtpl::test::make_measurement;

TEST(TuningDbHeader, DocumentedWorkflowMeasuresOnlyWhatIsMissing) {
  rocmtpl::test::temp_dir dir;
  const auto key = make_key();
  const std::vector<std::string> candidates{"a", "b", "c"};
  int measured = 0;
  auto tune = [&](tuning_db& db) {
    for (const auto& name : candidates) {
      if (db.find_measurement(key, name)) continue;  // measured before: reuse
      ++measured;
      db.add_measurement(key, make_measurement(name, name == "b" ? 0.5 : 1.0,
                                               name == "c" ? candidate_status::compile_failed : candidate_status::ok));
    }
    db.set_winner(key, "b");
  };
  {
    tuning_db db(dir / "tuning.sqlite3");
    tune(db);
  }
  EXPECT_EQ(measured, 3);
  tuning_db again(dir / "tuning.sqlite3");
  tune(again);
  EXPECT_EQ(measured, 3) << "a second run measures nothing";

  // The export reads back, through the JSON forms, into what the database holds.
  const auto exported = nlohmann::json::parse(again.to_json().dump());
  ASSERT_EQ(exported.at("records").size(), 1U);
  const auto rec = exported.at("records")[0].get<tuning_record>();
  EXPECT_EQ(rec, *again.find(key));
  EXPECT_EQ(rec.winner, std::optional<std::string>("b"));
  EXPECT_EQ(rec.measurements.size(), 3U);
}

}  // namespace

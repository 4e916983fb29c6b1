// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/json.hpp: the JSON forms of the key, measurement and
// record round-trip, non-finite numbers survive as null, and bad input is refused.
#include <rocmtpl/runtime/db/json.hpp>

// The JSON forms need no database.
#ifdef SQLITE_VERSION
#error "rocmtpl/runtime/db/json.hpp must not pull in SQLite"
#endif

#include "support/tuning_db.hpp"

#include <limits>
#include <optional>
#include <string>

namespace {

using rocmtpl::invalid_argument_error;
using rocmtpl::runtime::all_candidate_statuses;
using rocmtpl::runtime::candidate_status;
using rocmtpl::runtime::measurement;
using rocmtpl::runtime::tuning_key;
using rocmtpl::runtime::tuning_record;
using rocmtpl::test::expect_same;
using rocmtpl::test::make_key;
using rocmtpl::test::make_measurement;

TEST(TuningDbJson, KeyRoundTripsByFieldName) {
  using namespace std::string_literals;
  tuning_key key = make_key("f16[M=s0]\n\"quoted\"\0nul"s, "gemm", "split_k=2, α=1.5");
  key.descriptor = R"({"kind":"gemm","m":4})";
  const nlohmann::json j = key;
  EXPECT_EQ(j.size(), 8U);
  EXPECT_EQ(j.at("descriptor"), key.descriptor);
  EXPECT_EQ(j.at("template_name"), "gemm");
  EXPECT_EQ(j.at("runtime_args"), "split_k=2, α=1.5");
  EXPECT_EQ(j.at("library_version"), key.library_version);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<tuning_key>(), key);  // through text, NUL included
}

TEST(TuningDbJson, KeyWrittenBeforeDescriptorsReadsBackWithoutOne) {
  tuning_key key = make_key();
  key.descriptor = "{}";
  nlohmann::json j = key;
  j.erase("descriptor");
  const auto back = j.get<tuning_key>();
  EXPECT_EQ(back.descriptor, "");
  EXPECT_EQ(back.digest(), key.digest());  // not part of the identity
}

TEST(TuningDbJson, KeyWithAMissingFieldIsRefused) {
  nlohmann::json j = make_key();
  j.erase("arch");
  EXPECT_THROW((void)j.get<tuning_key>(), nlohmann::json::exception);
  j = make_key();
  j["device"] = 3;
  EXPECT_THROW((void)j.get<tuning_key>(), nlohmann::json::exception);
}

TEST(TuningDbJson, MeasurementRoundTripsEveryStatusAndField) {
  for (auto status : all_candidate_statuses) {
    const auto m = make_measurement(std::string("c_") + std::string(rocmtpl::runtime::to_string(status)), 0.25, status);
    const nlohmann::json j = m;
    EXPECT_EQ(j.at("status"), std::string(rocmtpl::runtime::to_string(status)));  // by name, not number
    expect_same(nlohmann::json::parse(j.dump()).get<measurement>(), m);
  }
}

TEST(TuningDbJson, MeasurementCarriesItsDeviceAndReadsOneWithoutIt) {
  const auto m = make_measurement("a", 1.0);
  nlohmann::json j = m;
  EXPECT_EQ(j.at("device"), "AMD Instinct MI210");
  EXPECT_EQ(j.at("device_id"), "1");
  // JSON written before measurements had a device (an old export, an old worker) reads back empty.
  j.erase("device");
  j.erase("device_id");
  const auto back = j.get<measurement>();
  EXPECT_EQ(back.device, "");
  EXPECT_EQ(back.device_id, "");
  EXPECT_EQ(back.min_ms, m.min_ms);
  j["device"] = 7;
  EXPECT_THROW((void)j.get<measurement>(), nlohmann::json::exception);
}

TEST(TuningDbJson, NonFiniteTimesBecomeNullAndReadBackAsNan) {
  auto m = make_measurement("slow", 1.0, candidate_status::timed_out);
  m.min_ms = std::numeric_limits<double>::infinity();
  m.median_ms = std::numeric_limits<double>::quiet_NaN();
  const auto text = nlohmann::json(m).dump();
  const auto parsed = nlohmann::json::parse(text);
  EXPECT_TRUE(parsed.at("min_ms").is_null()) << text;
  EXPECT_TRUE(parsed.at("median_ms").is_null()) << text;
  const auto back = parsed.get<measurement>();
  EXPECT_TRUE(std::isnan(back.min_ms));
  EXPECT_TRUE(std::isnan(back.median_ms));
  EXPECT_EQ(back.spread, m.spread);
}

TEST(TuningDbJson, MeasurementWithAnUnknownStatusIsRefused) {
  nlohmann::json j = make_measurement("a", 1.0);
  j["status"] = "exploded";
  try {
    (void)j.get<measurement>();
    FAIL() << "expected invalid_argument_error";
  } catch (const invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("exploded"), std::string::npos) << e.what();
  }
}

TEST(TuningDbJson, RecordRoundTripsWithAndWithoutWinner) {
  tuning_record rec;
  rec.key = make_key("p");
  rec.measurements = {make_measurement("a", 1.0), make_measurement("b", 2.0, candidate_status::compile_failed)};
  rec.winner = "a";
  rec.created_at = "2025-01-31T12:00:00.123Z";
  rec.updated_at = "2025-01-31T12:00:01.000Z";
  nlohmann::json j = rec;
  EXPECT_EQ(j.at("digest"), rec.key.digest());
  EXPECT_EQ(j.at("winner"), "a");
  EXPECT_EQ(j.at("measurements").size(), 2U);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<tuning_record>(), rec);

  rec.winner = std::nullopt;
  j = rec;
  EXPECT_TRUE(j.at("winner").is_null());
  EXPECT_EQ(j.get<tuning_record>(), rec);
}

TEST(TuningDbJson, RecordDigestIsRecomputedNotTrusted) {
  tuning_record rec;
  rec.key = make_key("p");
  nlohmann::json j = rec;
  j["digest"] = "not the digest";
  const auto back = j.get<tuning_record>();
  EXPECT_EQ(back.key, rec.key);
  EXPECT_EQ(nlohmann::json(back).at("digest"), rec.key.digest());
}

}  // namespace

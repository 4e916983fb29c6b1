// SPDX-License-Identifier: MIT
#include "support/tuning_db.hpp"

namespace rocmtpl::test {

tuning_key make_key(std::string problem, std::string tmpl, std::string runtime_args) {
  return tuning_key{std::move(tmpl), std::move(problem),   std::move(runtime_args),
                    "gfx90a",        "AMD Instinct MI210", "clang version 15.0.7",
                    "0.1.0"};
}

measurement make_measurement(std::string candidate, double ms, candidate_status status) {
  measurement m;
  m.candidate = std::move(candidate);
  m.config = ".block_m = 128, .block_n = 128";
  m.source_hash = "hash-" + m.candidate;
  m.status = status;
  m.reason = status == candidate_status::ok ? "" : "failed: " + m.candidate;
  m.min_ms = ms;
  m.median_ms = ms * 1.1;
  m.spread = 0.05;
  m.repetitions = 25;
  m.verified = status == candidate_status::ok;
  m.max_error = 1e-3;
  if (status != candidate_status::compile_failed) {
    m.device = "AMD Instinct MI210";
    m.device_id = "1";
  }
  return m;
}

void expect_same(const measurement& a, const measurement& b) {
  auto same_real = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  EXPECT_EQ(a.candidate, b.candidate);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.source_hash, b.source_hash);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_TRUE(same_real(a.min_ms, b.min_ms)) << a.min_ms << " vs " << b.min_ms;
  EXPECT_TRUE(same_real(a.median_ms, b.median_ms)) << a.median_ms << " vs " << b.median_ms;
  EXPECT_TRUE(same_real(a.spread, b.spread)) << a.spread << " vs " << b.spread;
  EXPECT_EQ(a.repetitions, b.repetitions);
  EXPECT_EQ(a.verified, b.verified);
  EXPECT_TRUE(same_real(a.max_error, b.max_error)) << a.max_error << " vs " << b.max_error;
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.device_id, b.device_id);
}

}  // namespace rocmtpl::test

// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/db/key.hpp.
#include <rocmtpl/runtime/db/key.hpp>

#include "support/tuning_db.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace {

using rocmtpl::invalid_argument_error;
using rocmtpl::runtime::all_candidate_statuses;
using rocmtpl::runtime::candidate_status;
using rocmtpl::runtime::tuning_key;
using rocmtpl::test::make_key;

TEST(CandidateStatus, NamesRoundTrip) {
  std::vector<std::string_view> names;
  for (auto s : all_candidate_statuses) {
    EXPECT_EQ(rocmtpl::runtime::parse_candidate_status(rocmtpl::runtime::to_string(s)), s);
    names.push_back(rocmtpl::runtime::to_string(s));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end()) << "status names must be distinct";
  EXPECT_EQ(rocmtpl::runtime::to_string(candidate_status::compile_failed), "compile_failed");
}

TEST(CandidateStatus, ParseRejectsUnknownName) {
  EXPECT_THROW((void)rocmtpl::runtime::parse_candidate_status("OK"), invalid_argument_error);
  EXPECT_THROW((void)rocmtpl::runtime::parse_candidate_status(""), invalid_argument_error);
  try {
    (void)rocmtpl::runtime::parse_candidate_status("exploded");
    FAIL() << "expected invalid_argument_error";
  } catch (const invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("exploded"), std::string::npos) << e.what();
  }
}

TEST(TuningKey, DigestIsHexAndDependsOnEveryField) {
  const auto key = make_key();
  const auto d = key.digest();
  EXPECT_TRUE(std::regex_match(d, std::regex("[0-9a-f]{32}"))) << d;
  EXPECT_EQ(d, make_key().digest());

  std::vector<std::string tuning_key::*> fields{
      &tuning_key::template_name, &tuning_key::problem,          &tuning_key::runtime_args,   &tuning_key::arch,
      &tuning_key::device,        &tuning_key::compiler_version, &tuning_key::library_version};
  std::vector<std::string> digests{d};
  for (auto field : fields) {
    auto changed = key;
    changed.*field += "x";
    EXPECT_NE(changed.digest(), d);
    digests.push_back(changed.digest());
  }
  std::sort(digests.begin(), digests.end());
  EXPECT_EQ(std::unique(digests.begin(), digests.end()), digests.end());
}

TEST(TuningKey, DigestFramesFields) {
  auto a = make_key();
  auto b = make_key();
  a.arch = "gfx90";
  a.device = "aMI210";
  b.arch = "gfx90a";
  b.device = "MI210";
  EXPECT_NE(a.digest(), b.digest());  // same concatenation, different fields
}

// The digest is part of the on-disk format: recompute it independently from its definition
// (XXH3-128 over length-framed fields after a domain tag, big-endian hex).
TEST(TuningKey, DigestMatchesDocumentedFormat) {
  using namespace std::string_literals;
  const auto key = make_key("p\0q"s, "gemm", "");  // an embedded NUL and an empty field
  std::string bytes;
  auto frame = [&bytes](std::string_view s) {
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((s.size() >> (8 * i)) & 0xff));
    bytes.append(s);
  };
  frame("rocmtpl.tuning_key.v1");
  for (const auto* f : {&key.template_name, &key.problem, &key.runtime_args, &key.arch, &key.device,
                        &key.compiler_version, &key.library_version}) {
    frame(*f);
  }
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  char expected[33];
  std::snprintf(expected, sizeof expected, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  EXPECT_EQ(key.digest(), expected);
}

}  // namespace

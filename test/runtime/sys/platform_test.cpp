// SPDX-License-Identifier: MIT
// Tests runtime/sys/platform.hpp: the names of the platforms and the parser of ROCMTPL_PLATFORM, which
// accepts exactly "amd", "nvidia", "auto" and the empty string and names anything else.
#include <rocmtpl/runtime/sys/platform.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

namespace {
using rocmtpl::invalid_argument_error;
using rocmtpl::runtime::parse_platform_choice;
using rocmtpl::runtime::platform;
using rocmtpl::runtime::to_string;

TEST(Platform, ToStringNamesEachPlatform) {
  EXPECT_EQ(to_string(platform::amd), "amd");
  EXPECT_EQ(to_string(platform::nvidia), "nvidia");
  static_assert(to_string(platform::amd) == "amd");  // usable at compile time
}

TEST(Platform, ParsesTheAcceptedChoices) {
  EXPECT_EQ(parse_platform_choice("amd"), std::optional<platform>(platform::amd));
  EXPECT_EQ(parse_platform_choice("nvidia"), std::optional<platform>(platform::nvidia));
  EXPECT_EQ(parse_platform_choice("auto"), std::nullopt);
  EXPECT_EQ(parse_platform_choice(""), std::nullopt);
}

TEST(Platform, ToStringRoundTripsThroughTheParser) {
  for (const auto p : {platform::amd, platform::nvidia}) EXPECT_EQ(parse_platform_choice(to_string(p)), p);
}

TEST(Platform, AnythingElseIsRefusedWithTheTextAndTheAcceptedValues) {
  for (const std::string_view text : {"cuda", "AMD", "nvidia ", " amd", "rocm", "Auto"}) {
    try {
      (void)parse_platform_choice(text);
      ADD_FAILURE() << "'" << text << "' was accepted";
    } catch (const invalid_argument_error& e) {
      const std::string what = e.what();
      std::string quoted = "'";
      quoted += text;
      quoted += "'";
      EXPECT_NE(what.find(quoted), std::string::npos) << what;
      EXPECT_NE(what.find("ROCMTPL_PLATFORM"), std::string::npos) << what;
      for (const char* accepted : {"amd", "nvidia", "auto"}) {
        EXPECT_NE(what.find(accepted), std::string::npos) << what << " does not name " << accepted;
      }
    }
  }
}

}  // namespace

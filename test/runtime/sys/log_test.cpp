// SPDX-License-Identifier: MIT
// Tests runtime/sys/log.hpp: the level names, ROCMTPL_LOG (a bad value is named, and met inside
// the library falls back to warn with one line), set_log_level() over the environment, lines on
// standard error at or above the level only, and messages below it never formatted.
#include <rocmtpl/runtime/sys/log.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <rocmtpl/core/error.hpp>

namespace {
using rocmtpl::invalid_argument_error;
using namespace rocmtpl::runtime;

// Restores ROCMTPL_LOG and the level state (unset: read the environment again) after a test.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("ROCMTPL_LOG")) saved_ = v;
    reset();
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("ROCMTPL_LOG", saved_->c_str(), 1);
    } else {
      ::unsetenv("ROCMTPL_LOG");
    }
    reset();
  }
  static void reset() { detail::log_level_state().store(detail::log_level_unset); }

 private:
  std::optional<std::string> saved_;
};

TEST_F(LogTest, ParsesEveryLevelByItsName) {
  for (const auto l : {log_level::debug, log_level::info, log_level::warn, log_level::error, log_level::off}) {
    EXPECT_EQ(parse_log_level(to_string(l)), l);
  }
  EXPECT_EQ(parse_log_level("warning"), log_level::warn);
  EXPECT_EQ(parse_log_level("DEBUG"), std::nullopt);
  EXPECT_EQ(parse_log_level("verbose"), std::nullopt);
  EXPECT_EQ(parse_log_level(""), std::nullopt);
}

TEST_F(LogTest, TheEnvironmentSetsTheLevelAndABadValueIsNamed) {
  ::unsetenv("ROCMTPL_LOG");
  EXPECT_EQ(log_level_from_environment(), std::nullopt);
  EXPECT_EQ(current_log_level(), log_level::warn);  // the default

  ::setenv("ROCMTPL_LOG", "debug", 1);
  reset();
  EXPECT_EQ(log_level_from_environment(), log_level::debug);
  EXPECT_EQ(current_log_level(), log_level::debug);
  EXPECT_TRUE(log_enabled(log_level::debug));

  ::setenv("ROCMTPL_LOG", "loud", 1);
  try {
    (void)log_level_from_environment();
    ADD_FAILURE() << "ROCMTPL_LOG=loud was accepted";
  } catch (const invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("ROCMTPL_LOG=loud is not a log level (debug, info, warn, error or off)"),
              std::string::npos)
        << e.what();
  }
  // Met inside the library (no tool refused it first): one line, then warn.
  reset();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(current_log_level(), log_level::warn);
  reset();
  EXPECT_EQ(current_log_level(), log_level::warn);
  const auto err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("ROCMTPL_LOG=loud is not a log level"), std::string::npos) << err;
  EXPECT_NE(err.find("using warn"), std::string::npos) << err;
  EXPECT_EQ(err.find("ROCMTPL_LOG", err.find("using warn")), std::string::npos) << "reported twice: " << err;
}

TEST_F(LogTest, SetLogLevelOverridesTheEnvironment) {
  ::setenv("ROCMTPL_LOG", "debug", 1);
  set_log_level(log_level::error);
  EXPECT_EQ(current_log_level(), log_level::error);
  EXPECT_FALSE(log_enabled(log_level::warn));
  EXPECT_TRUE(log_enabled(log_level::error));
  set_log_level(log_level::off);
  EXPECT_FALSE(log_enabled(log_level::error));
  EXPECT_FALSE(log_enabled(log_level::off));  // "off" is never a message's level
}

TEST_F(LogTest, WritesLinesAtOrAboveTheLevelToStandardError) {
  set_log_level(log_level::info);
  ::testing::internal::CaptureStderr();
  log_debug("hidden {}", 1);
  log_info("compile {}: {:.2f} s", "rocm_gemm_1", 1.25);
  log_warn("odd {}", "thing");
  const auto err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("hidden"), std::string::npos) << err;
  EXPECT_NE(err.find("[rocmtpl] [info] compile rocm_gemm_1: 1.25 s\n"), std::string::npos) << err;
  EXPECT_NE(err.find("[rocmtpl] [warning] odd thing\n"), std::string::npos) << err;
}

// Counts how often it is formatted.
struct counted {
  int* count;
};

}  // namespace

template <>
struct fmt::formatter<counted> : fmt::formatter<int> {
  auto format(const counted& c, format_context& ctx) const {
    ++*c.count;
    return fmt::formatter<int>::format(*c.count, ctx);
  }
};

namespace {

TEST_F(LogTest, AMessageBelowTheLevelIsNeverFormatted) {
  int formatted = 0;
  set_log_level(log_level::warn);
  ::testing::internal::CaptureStderr();
  log_info("{}", counted{&formatted});
  log_debug("{}", counted{&formatted});
  EXPECT_EQ(formatted, 0);
  log_warn("{}", counted{&formatted});
  (void)::testing::internal::GetCapturedStderr();
  EXPECT_EQ(formatted, 1);
}

}  // namespace

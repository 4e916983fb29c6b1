// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/sys/log.hpp: included at its end (header-only) or compiled once by
// src/runtime/sys.cpp, after it (so it does not include it back).

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

namespace detail {

ROCMTPL_INLINE std::atomic<int>& log_level_state() noexcept {
  static std::atomic<int> level{log_level_unset};
  return level;
}

// rocmtpl's own logger (not spdlog's registry: a program's loggers and ours do not meet), writing
// to standard error; spdlog's level filter is left open, log_enabled() decides.
ROCMTPL_INLINE spdlog::logger& rocmtpl_logger() {
  static const auto logger = [] {
    auto l = std::make_shared<spdlog::logger>("rocmtpl", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_level(spdlog::level::trace);
    l->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v");
    return l;
  }();
  return *logger;
}

ROCMTPL_INLINE spdlog::level::level_enum to_spdlog(log_level level) noexcept {
  switch (level) {
    case log_level::debug: return spdlog::level::debug;
    case log_level::info: return spdlog::level::info;
    case log_level::warn: return spdlog::level::warn;
    case log_level::error: return spdlog::level::err;
    case log_level::off: break;
  }
  return spdlog::level::off;
}

}  // namespace detail

ROCMTPL_INLINE std::optional<log_level> parse_log_level(std::string_view text) noexcept {
  for (const auto level : {log_level::debug, log_level::info, log_level::warn, log_level::error, log_level::off}) {
    if (text == to_string(level)) return level;
  }
  if (text == "warning") return log_level::warn;
  return std::nullopt;
}

ROCMTPL_INLINE std::optional<log_level> log_level_from_environment() {
  const char* value = std::getenv("ROCMTPL_LOG");
  if (value == nullptr || *value == '\0') return std::nullopt;
  if (const auto level = parse_log_level(value)) return level;
  throw invalid_argument_error(std::string("rocmtpl: ROCMTPL_LOG=") + value +
                               " is not a log level (debug, info, warn, error or off)");
}

ROCMTPL_INLINE log_level current_log_level() noexcept {
  auto& state = detail::log_level_state();
  int level = state.load(std::memory_order_relaxed);
  if (level != detail::log_level_unset) return static_cast<log_level>(level);
  log_level from_environment = log_level::warn;
  try {
    from_environment = log_level_from_environment().value_or(log_level::warn);
  } catch (const invalid_argument_error& e) {
    static std::once_flag reported;
    std::call_once(reported, [&] { std::fprintf(stderr, "%s; using warn\n", e.what()); });
  }
  // A level set meanwhile by another thread wins.
  state.compare_exchange_strong(level, static_cast<int>(from_environment));
  return static_cast<log_level>(state.load(std::memory_order_relaxed));
}

ROCMTPL_INLINE void set_log_level(log_level level) noexcept {
  detail::log_level_state().store(static_cast<int>(level), std::memory_order_relaxed);
}

ROCMTPL_INLINE void write_log(log_level level, std::string_view message) noexcept {
  try {
    detail::rocmtpl_logger().log(detail::to_spdlog(level), "{}", message);
  } catch (...) {  // a log line is never worth an exception in the work it describes
  }
}

}  // namespace rocmtpl::runtime

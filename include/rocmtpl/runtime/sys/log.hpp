// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The runtime layer's levelled log: what each phase of a tune does (render, compile, load,
/// benchmark, verify, database), on standard error through spdlog.
///
/// The level comes from `ROCMTPL_LOG` (debug, info, warn, error or off; warn when unset) until
/// set_log_level() sets it; the tools' `-v` / `-q` set it. Lines look like
/// `[2026-11-28 10:00:00.123] [rocmtpl] [info] compile gemm_...: cache miss, 1.8 s` and go to
/// standard error only, never to a report a tool writes (`--json`, `--csv`). At debug the log also
/// carries the generated source and the compiler's command lines, as the reference's debug log does.
///
/// The message is formatted only when its level is enabled: a disabled log_debug() costs a load
/// and a compare.

#include <atomic>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::runtime {

/// @brief A log level, least severe first.
enum class log_level { debug, info, warn, error, off };

/// @brief "debug", "info", "warn", "error" or "off".
[[nodiscard]] constexpr std::string_view to_string(log_level l) noexcept {
  constexpr std::string_view names[] = {"debug", "info", "warn", "error", "off"};
  return names[static_cast<int>(l)];
}

/// @brief The level @p text names (also "warning"), or std::nullopt.
[[nodiscard]] std::optional<log_level> parse_log_level(std::string_view text) noexcept;

/// @brief The level `ROCMTPL_LOG` asks for: std::nullopt when it is unset or empty.
/// @throws invalid_argument_error naming the variable, its value and the levels when it names none
/// (tools call this first, so that a bad value is refused up front).
[[nodiscard]] std::optional<log_level> log_level_from_environment();

namespace detail {
/// The level in force as an int, or log_level_unset before ROCMTPL_LOG was read (tests reset it).
inline constexpr int log_level_unset = -1;
[[nodiscard]] std::atomic<int>& log_level_state() noexcept;
}  // namespace detail

/// @brief The level in force: set_log_level()'s, else ROCMTPL_LOG's, else warn. A bad ROCMTPL_LOG
/// met here (not refused by a tool first) is reported once on standard error and warn is used.
[[nodiscard]] log_level current_log_level() noexcept;

/// @brief Sets the level for the whole process (every thread), overriding ROCMTPL_LOG.
void set_log_level(log_level level) noexcept;

/// @brief Whether a message of @p level is written.
[[nodiscard]] inline bool log_enabled(log_level level) noexcept {
  return level != log_level::off && level >= current_log_level();
}

/// @brief Writes one message (it may span lines) at @p level: the formatted helpers below call it.
void write_log(log_level level, std::string_view message) noexcept;

/// @brief Formats and writes a message when @p level is enabled.
template <class... Args>
void log(log_level level, fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(level)) write_log(level, fmt::format(format, std::forward<Args>(args)...));
}

/// @brief log(log_level::debug, ...): generated sources, command lines, argument definitions.
template <class... Args>
void log_debug(fmt::format_string<Args...> format, Args&&... args) {
  log(log_level::debug, format, std::forward<Args>(args)...);
}

/// @brief log(log_level::info, ...): one line per phase of each candidate.
template <class... Args>
void log_info(fmt::format_string<Args...> format, Args&&... args) {
  log(log_level::info, format, std::forward<Args>(args)...);
}

/// @brief log(log_level::warn, ...): something went wrong and the work goes on.
template <class... Args>
void log_warn(fmt::format_string<Args...> format, Args&&... args) {
  log(log_level::warn, format, std::forward<Args>(args)...);
}

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/sys/log-inl.hpp>
#endif

// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Batches of tuning problems shared by several tuners: what the database stores per problem
/// of a batch (`batch_item`), a claim under a lease (`batch_claim`), the log of what each tuner did
/// (`batch_event`), and the SQLite implementation of the claim protocol.
///
/// The protocol (the same on SQLite and PostgreSQL):
/// - `add`: every tuner inserts the batch's problems; rows that exist are left alone, so loading a
///   batch twice, or from several hosts, is harmless and a resumed batch keeps what was done;
/// - `claim`: a tuner takes the first problem that is pending, or claimed under a lease that has
///   expired (its tuner died), and holds it until `lease_until` (PostgreSQL: `SELECT ... FOR UPDATE
///   SKIP LOCKED`, so concurrent claims never wait for each other nor take the same row);
/// - `renew`: while tuning, the tuner pushes its lease forward; false means another tuner took the
///   problem over (the lease had expired);
/// - `finish`: done or failed, with a JSON result; refused (false) when the claim was lost, so a
///   problem is finished exactly once;
/// - `release`: give a claim back (an interrupted tuner), so the problem is pending again at once.
/// Rows are keyed by (batch, target, item): the target names what the problems are tuned for (a
/// device, or the archs of a compile-only run), so that tuners of different devices never take each
/// other's work.

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rocmtpl::runtime {

/// @brief Where one problem of a batch stands.
enum class batch_state {
  pending,  ///< nobody works on it
  claimed,  ///< a tuner holds it until its lease runs out
  done,     ///< tuned (or compiled, without a GPU)
  failed,   ///< the tune failed; its result says why
};

/// @brief The stable name of a batch state ("pending", "claimed", "done", "failed").
[[nodiscard]] constexpr std::string_view to_string(batch_state s) noexcept {
  switch (s) {
    case batch_state::pending: return "pending";
    case batch_state::claimed: return "claimed";
    case batch_state::done: return "done";
    case batch_state::failed: return "failed";
  }
  return "unknown";
}

/// @brief Parse a batch state name.
/// @throws invalid_argument_error if @p name is not a state name.
[[nodiscard]] batch_state parse_batch_state(std::string_view name);

/// @brief One problem of a batch, as the database stores it.
struct batch_item {
  std::string item;                          ///< The problem's stable id within the batch.
  std::int64_t position = 0;                 ///< Its place in the batch file (claims go in this order).
  std::string spec;                          ///< The problem, as JSON text.
  batch_state state = batch_state::pending;  ///< Where it stands.
  std::optional<std::string> claimed_by;     ///< The tuner holding it (state claimed).
  std::int64_t attempts = 0;                 ///< How many times it was claimed.
  std::optional<std::string> result;         ///< JSON text given to finish().
  std::optional<std::string> finished_by;    ///< The tuner that finished it.
};

/// @brief A problem claimed by one tuner.
struct batch_claim {
  std::string item;                     ///< The problem's id.
  std::int64_t position = 0;            ///< Its place in the batch.
  std::string spec;                     ///< The problem, as JSON text.
  std::int64_t attempts = 0;            ///< Claims so far, this one included (2+: it was taken over).
  std::optional<std::string> previous;  ///< The tuner whose lease expired, when this claim took it over.
};

/// @brief One line of a batch's log: who claimed, took over, finished, lost or released a problem.
struct batch_event {
  std::string item;   ///< The problem's id.
  std::string tuner;  ///< Who.
  std::string event;  ///< "claimed", "reclaimed", "done", "failed", "lost", "released".
  std::string at;     ///< When, ISO-8601 UTC.
};

namespace detail {

std::int64_t unix_ms_now();

/// The claim protocol on one SQLite connection. Every write runs in `BEGIN IMMEDIATE`, which
/// serialises claims (SQLite has one writer at a time: it needs no SKIP LOCKED).
class sqlite_claims {
 public:
  explicit sqlite_claims(const connection& conn) : conn_(&conn) {}

  void ensure_schema() const;

  std::size_t add(std::string_view batch, std::string_view target,
                  const std::vector<std::pair<std::string, std::string>>& items, const std::string& now) const;

  std::optional<batch_claim> claim(std::string_view batch, std::string_view target, std::string_view tuner,
                                   std::chrono::milliseconds lease, const std::string& now) const;

  bool renew(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
             std::chrono::milliseconds lease) const;

  bool finish(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
              batch_state state, std::string_view result, const std::string& now) const;

  bool release(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
               const std::string& now) const;

  std::vector<batch_item> items(std::string_view batch, std::string_view target) const;

  std::vector<batch_event> events(std::string_view batch, std::string_view target) const;

  std::vector<std::string> targets(std::string_view batch) const;

 private:
  void log(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
           std::string_view event, const std::string& now) const;

  const connection* conn_;
};

}  // namespace detail

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/db/claims-inl.hpp>
#endif

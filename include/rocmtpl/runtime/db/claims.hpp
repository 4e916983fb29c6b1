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

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/db/schema.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>

#include <fmt/format.h>

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
[[nodiscard]] inline batch_state parse_batch_state(std::string_view name) {
  for (auto s : {batch_state::pending, batch_state::claimed, batch_state::done, batch_state::failed}) {
    if (to_string(s) == name) return s;
  }
  throw invalid_argument_error(
      fmt::format("rocmtpl: parse_batch_state: unknown state '{}'; expected pending, claimed, done or failed", name));
}

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

inline std::int64_t unix_ms_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

/// The claim protocol on one SQLite connection. Every write runs in `BEGIN IMMEDIATE`, which
/// serialises claims (SQLite has one writer at a time: it needs no SKIP LOCKED).
class sqlite_claims {
 public:
  explicit sqlite_claims(const connection& conn) : conn_(&conn) {}

  void ensure_schema() const {
    transaction tx(*conn_, transaction::kind::immediate);
    // The claim protocol's tables (db/schema.hpp), created on first use: older files gain them then.
    conn_->exec(with_dialect(batch_tables, sqlite_dialect).c_str());
    tx.commit();
  }

  std::size_t add(std::string_view batch, std::string_view target,
                  const std::vector<std::pair<std::string, std::string>>& items, const std::string& now) const {
    transaction tx(*conn_, transaction::kind::immediate);
    std::size_t added = 0;
    std::int64_t position = 0;
    for (const auto& [item, spec] : items) {
      statement st(*conn_,
                   "INSERT INTO batch_items(batch, target, item, position, spec, state, updated_at) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6) ON CONFLICT DO NOTHING");
      added += static_cast<std::size_t>(st.bind_text(1, batch)
                                            .bind_text(2, target)
                                            .bind_text(3, item)
                                            .bind_int(4, position++)
                                            .bind_text(5, spec)
                                            .bind_text(6, now)
                                            .run());
    }
    tx.commit();
    return added;
  }

  std::optional<batch_claim> claim(std::string_view batch, std::string_view target, std::string_view tuner,
                                   std::chrono::milliseconds lease, const std::string& now) const {
    transaction tx(*conn_, transaction::kind::immediate);
    const auto now_ms = unix_ms_now();
    statement pick(*conn_,
                   "SELECT item, position, spec, attempts, claimed_by, state FROM batch_items "
                   "WHERE batch = ?1 AND target = ?2 AND (state = 'pending' OR (state = 'claimed' AND "
                   "lease_until < ?3)) ORDER BY position LIMIT 1");
    pick.bind_text(1, batch).bind_text(2, target).bind_int(3, now_ms);
    if (!pick.step()) return std::nullopt;
    batch_claim c;
    c.item = pick.text(0);
    c.position = pick.integer(1);
    c.spec = pick.text(2);
    c.attempts = pick.integer(3) + 1;
    if (pick.text(5) == "claimed") c.previous = pick.optional_text(4);
    statement(*conn_,
              "UPDATE batch_items SET state = 'claimed', claimed_by = ?4, lease_until = ?5, attempts = attempts + 1, "
              "updated_at = ?6 WHERE batch = ?1 AND target = ?2 AND item = ?3")
        .bind_text(1, batch)
        .bind_text(2, target)
        .bind_text(3, c.item)
        .bind_text(4, tuner)
        .bind_int(5, now_ms + lease.count())
        .bind_text(6, now)
        .run();
    log(batch, target, c.item, tuner, c.previous ? "reclaimed" : "claimed", now);
    tx.commit();
    return c;
  }

  bool renew(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
             std::chrono::milliseconds lease) const {
    transaction tx(*conn_, transaction::kind::immediate);
    const auto n = statement(*conn_,
                             "UPDATE batch_items SET lease_until = ?5 WHERE batch = ?1 AND target = ?2 AND item = ?3 "
                             "AND state = 'claimed' AND claimed_by = ?4")
                       .bind_text(1, batch)
                       .bind_text(2, target)
                       .bind_text(3, item)
                       .bind_text(4, tuner)
                       .bind_int(5, unix_ms_now() + lease.count())
                       .run();
    tx.commit();
    return n == 1;
  }

  bool finish(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
              batch_state state, std::string_view result, const std::string& now) const {
    transaction tx(*conn_, transaction::kind::immediate);
    const auto n = statement(*conn_,
                             "UPDATE batch_items SET state = ?5, result = ?6, finished_by = ?4, claimed_by = NULL, "
                             "lease_until = NULL, updated_at = ?7 WHERE batch = ?1 AND target = ?2 AND item = ?3 "
                             "AND state = 'claimed' AND claimed_by = ?4")
                       .bind_text(1, batch)
                       .bind_text(2, target)
                       .bind_text(3, item)
                       .bind_text(4, tuner)
                       .bind_text(5, to_string(state))
                       .bind_text(6, result)
                       .bind_text(7, now)
                       .run();
    log(batch, target, item, tuner, n == 1 ? to_string(state) : std::string_view("lost"), now);
    tx.commit();
    return n == 1;
  }

  bool release(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
               const std::string& now) const {
    transaction tx(*conn_, transaction::kind::immediate);
    const auto n = statement(*conn_,
                             "UPDATE batch_items SET state = 'pending', claimed_by = NULL, lease_until = NULL, "
                             "updated_at = ?5 WHERE batch = ?1 AND target = ?2 AND item = ?3 AND state = 'claimed' "
                             "AND claimed_by = ?4")
                       .bind_text(1, batch)
                       .bind_text(2, target)
                       .bind_text(3, item)
                       .bind_text(4, tuner)
                       .bind_text(5, now)
                       .run();
    if (n == 1) log(batch, target, item, tuner, "released", now);
    tx.commit();
    return n == 1;
  }

  std::vector<batch_item> items(std::string_view batch, std::string_view target) const {
    statement st(*conn_,
                 "SELECT item, position, spec, state, claimed_by, attempts, result, finished_by FROM batch_items "
                 "WHERE batch = ?1 AND target = ?2 ORDER BY position");
    st.bind_text(1, batch).bind_text(2, target);
    std::vector<batch_item> out;
    while (st.step()) {
      batch_item it;
      it.item = st.text(0);
      it.position = st.integer(1);
      it.spec = st.text(2);
      it.state = parse_batch_state(st.text(3));
      it.claimed_by = st.optional_text(4);
      it.attempts = st.integer(5);
      it.result = st.optional_text(6);
      it.finished_by = st.optional_text(7);
      out.push_back(std::move(it));
    }
    return out;
  }

  std::vector<batch_event> events(std::string_view batch, std::string_view target) const {
    statement st(*conn_,
                 "SELECT item, tuner, event, at FROM batch_events WHERE batch = ?1 AND target = ?2 ORDER BY id");
    st.bind_text(1, batch).bind_text(2, target);
    std::vector<batch_event> out;
    while (st.step()) out.push_back(batch_event{st.text(0), st.text(1), st.text(2), st.text(3)});
    return out;
  }

 private:
  void log(std::string_view batch, std::string_view target, std::string_view item, std::string_view tuner,
           std::string_view event, const std::string& now) const {
    statement(*conn_, "INSERT INTO batch_events(batch, target, item, tuner, event, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .bind_text(1, batch)
        .bind_text(2, target)
        .bind_text(3, item)
        .bind_text(4, tuner)
        .bind_text(5, event)
        .bind_text(6, now)
        .run();
  }

  const connection* conn_;
};

}  // namespace detail

}  // namespace rocmtpl::runtime

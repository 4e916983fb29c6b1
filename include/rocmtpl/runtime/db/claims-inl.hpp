// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/db/claims.hpp: included at its end (header-only) or compiled once by
// src/runtime/db.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
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

ROCMTPL_INLINE batch_state parse_batch_state(std::string_view name) {
  for (auto s : {batch_state::pending, batch_state::claimed, batch_state::done, batch_state::failed}) {
    if (to_string(s) == name) return s;
  }
  throw invalid_argument_error(
      fmt::format("rocmtpl: parse_batch_state: unknown state '{}'; expected pending, claimed, done or failed", name));
}

namespace detail {

ROCMTPL_INLINE std::int64_t unix_ms_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

ROCMTPL_INLINE void sqlite_claims::ensure_schema() const {
  transaction tx(*conn_, transaction::kind::immediate);
  // The claim protocol's tables (db/schema.hpp), created on first use: older files gain them then.
  conn_->exec(with_dialect(batch_tables, sqlite_dialect).c_str());
  tx.commit();
}

ROCMTPL_INLINE std::size_t sqlite_claims::add(std::string_view batch, std::string_view target,
                                              const std::vector<std::pair<std::string, std::string>>& items,
                                              const std::string& now) const {
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

ROCMTPL_INLINE std::optional<batch_claim> sqlite_claims::claim(std::string_view batch, std::string_view target,
                                                               std::string_view tuner, std::chrono::milliseconds lease,
                                                               const std::string& now) const {
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

ROCMTPL_INLINE bool sqlite_claims::renew(std::string_view batch, std::string_view target, std::string_view item,
                                         std::string_view tuner, std::chrono::milliseconds lease) const {
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

ROCMTPL_INLINE bool sqlite_claims::finish(std::string_view batch, std::string_view target, std::string_view item,
                                          std::string_view tuner, batch_state state, std::string_view result,
                                          const std::string& now) const {
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

ROCMTPL_INLINE bool sqlite_claims::release(std::string_view batch, std::string_view target, std::string_view item,
                                           std::string_view tuner, const std::string& now) const {
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

ROCMTPL_INLINE std::vector<std::string> sqlite_claims::targets(std::string_view batch) const {
  statement st(*conn_, "SELECT DISTINCT target FROM batch_items WHERE batch = ?1 ORDER BY target");
  st.bind_text(1, batch);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

ROCMTPL_INLINE std::vector<batch_item> sqlite_claims::items(std::string_view batch, std::string_view target) const {
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

ROCMTPL_INLINE std::vector<batch_event> sqlite_claims::events(std::string_view batch, std::string_view target) const {
  statement st(*conn_, "SELECT item, tuner, event, at FROM batch_events WHERE batch = ?1 AND target = ?2 ORDER BY id");
  st.bind_text(1, batch).bind_text(2, target);
  std::vector<batch_event> out;
  while (st.step()) out.push_back(batch_event{st.text(0), st.text(1), st.text(2), st.text(3)});
  return out;
}

ROCMTPL_INLINE void sqlite_claims::log(std::string_view batch, std::string_view target, std::string_view item,
                                       std::string_view tuner, std::string_view event, const std::string& now) const {
  statement(*conn_, "INSERT INTO batch_events(batch, target, item, tuner, event, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
      .bind_text(1, batch)
      .bind_text(2, target)
      .bind_text(3, item)
      .bind_text(4, tuner)
      .bind_text(5, event)
      .bind_text(6, now)
      .run();
}

}  // namespace detail

}  // namespace rocmtpl::runtime

// SPDX-License-Identifier: MIT
#pragma once

// The batch claim protocol's tests, written once and run against both backends
// (claims_test.cpp: SQLite; postgres_test.cpp: a real PostgreSQL server). `open` returns a new
// tuning_db (its own connection) on the same database each time it is called.

#include <rocmtpl/runtime/db/tuning_db.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace rocmtpl::test {

using db_opener = std::function<runtime::tuning_db()>;

std::vector<std::pair<std::string, std::string>> sample_items(int n);

std::map<std::string, int> count_events(const std::vector<runtime::batch_event>& events, const std::string& kind);

// add is idempotent, claims go in batch order, finish stores the result, items and events show it.
void check_claim_basics(const db_opener& open);

// A tuner that stops renewing loses its problem once the lease expires; the next claim takes it
// over, the dead tuner can neither renew nor finish it, and it is finished exactly once.
void check_lease_expiry(const db_opener& open);

// Several tuners (threads, each with its own connection) claim from one batch at once: every
// problem is claimed once and finished once, and no two tuners ever hold the same problem.
void check_threads_never_overlap(const db_opener& open, int tuners, int problems);

// The same across processes: forked children, each opening its own connection.
void check_processes_never_overlap(const db_opener& open, int tuners, int problems);

}  // namespace rocmtpl::test

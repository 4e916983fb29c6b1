// SPDX-License-Identifier: MIT
#include "support/claims.hpp"

namespace rocmtpl::test {

std::vector<std::pair<std::string, std::string>> sample_items(int n) {
  std::vector<std::pair<std::string, std::string>> items;
  for (int i = 0; i < n; ++i) items.emplace_back(fmt::format("p{}", i), fmt::format("{{\"m\":{}}}", 64 * (i + 1)));
  return items;
}

std::map<std::string, int> count_events(const std::vector<runtime::batch_event>& events, const std::string& kind) {
  std::map<std::string, int> n;
  for (const auto& e : events) n[e.item] += e.event == kind ? 1 : 0;
  return n;
}

void check_claim_basics(const db_opener& open) {
  using namespace std::chrono_literals;
  auto db = open();
  EXPECT_EQ(db.add_batch_items("b", "t", sample_items(3)), 3U);
  EXPECT_EQ(db.add_batch_items("b", "t", sample_items(4)), 1U);  // p0..p2 known, p3 new
  EXPECT_EQ(db.add_batch_items("b", "other-target", sample_items(2)), 2U);

  auto c0 = db.claim_batch_item("b", "t", "A", 60s);
  ASSERT_TRUE(c0);
  EXPECT_EQ(c0->item, "p0");
  EXPECT_EQ(c0->position, 0);
  EXPECT_EQ(c0->spec, "{\"m\":64}");
  EXPECT_EQ(c0->attempts, 1);
  EXPECT_FALSE(c0->previous);
  auto c1 = db.claim_batch_item("b", "t", "B", 60s);
  ASSERT_TRUE(c1);
  EXPECT_EQ(c1->item, "p1");
  EXPECT_TRUE(db.finish_batch_item("b", "t", "p0", "A", runtime::batch_state::done, "{\"winner\":\"x\"}"));
  EXPECT_FALSE(db.finish_batch_item("b", "t", "p1", "A", runtime::batch_state::done, "{}")) << "A does not hold p1";
  EXPECT_TRUE(db.finish_batch_item("b", "t", "p1", "B", runtime::batch_state::failed, "{\"error\":\"e\"}"));
  EXPECT_THROW(db.finish_batch_item("b", "t", "p1", "B", runtime::batch_state::pending, "{}"), invalid_argument_error);

  const auto items = db.batch_items("b", "t");
  ASSERT_EQ(items.size(), 4U);
  EXPECT_EQ(items[0].state, runtime::batch_state::done);
  EXPECT_EQ(items[0].result.value_or(""), "{\"winner\":\"x\"}");
  EXPECT_EQ(items[0].finished_by.value_or(""), "A");
  EXPECT_FALSE(items[0].claimed_by);
  EXPECT_EQ(items[1].state, runtime::batch_state::failed);
  EXPECT_EQ(items[2].state, runtime::batch_state::pending);
  EXPECT_EQ(items[3].item, "p3");
  EXPECT_EQ(db.batch_items("b", "other-target").size(), 2U);
  EXPECT_TRUE(db.batch_items("nope", "t").empty());
  // The targets a batch was run for, as `batch --status` lists them (issue 22 item 8).
  EXPECT_EQ(db.batch_targets("b"), (std::vector<std::string>{"other-target", "t"}));
  EXPECT_TRUE(db.batch_targets("nope").empty());

  // Release: pending again at once, for anyone.
  auto c2 = db.claim_batch_item("b", "t", "A", 60s);
  ASSERT_TRUE(c2);
  EXPECT_EQ(c2->item, "p2");
  EXPECT_FALSE(db.release_batch_claim("b", "t", "p2", "B"));
  EXPECT_TRUE(db.release_batch_claim("b", "t", "p2", "A"));
  auto c3 = db.claim_batch_item("b", "t", "B", 60s);
  ASSERT_TRUE(c3);
  EXPECT_EQ(c3->item, "p2");
  EXPECT_EQ(c3->attempts, 2);
  EXPECT_FALSE(c3->previous) << "a released problem is not a take-over";

  std::vector<std::string> log;
  for (const auto& e : db.batch_events("b", "t")) log.push_back(e.tuner + ":" + e.event + ":" + e.item);
  EXPECT_EQ(log, (std::vector<std::string>{"A:claimed:p0", "B:claimed:p1", "A:done:p0", "A:lost:p1", "B:failed:p1",
                                           "A:claimed:p2", "A:released:p2", "B:claimed:p2"}));
}

void check_lease_expiry(const db_opener& open) {
  using namespace std::chrono_literals;
  auto a = open();
  auto b = open();
  a.add_batch_items("b", "t", sample_items(1));
  auto ca = a.claim_batch_item("b", "t", "A", 400ms);
  ASSERT_TRUE(ca);
  EXPECT_FALSE(b.claim_batch_item("b", "t", "B", 60s)) << "the lease still holds";
  // Renewing keeps it: B still cannot take it after the first lease would have ended.
  std::this_thread::sleep_for(250ms);
  EXPECT_TRUE(a.renew_batch_claim("b", "t", "p0", "A", 400ms));
  std::this_thread::sleep_for(250ms);
  EXPECT_FALSE(b.claim_batch_item("b", "t", "B", 60s)) << "renewed 250 ms ago for 400 ms";
  std::this_thread::sleep_for(300ms);  // A "died": no renewal for 550 ms
  auto cb = b.claim_batch_item("b", "t", "B", 60s);
  ASSERT_TRUE(cb);
  EXPECT_EQ(cb->item, "p0");
  EXPECT_EQ(cb->attempts, 2);
  EXPECT_EQ(cb->previous.value_or(""), "A");
  EXPECT_FALSE(a.renew_batch_claim("b", "t", "p0", "A", 400ms));
  EXPECT_FALSE(a.finish_batch_item("b", "t", "p0", "A", runtime::batch_state::done, "{}"));
  EXPECT_TRUE(b.finish_batch_item("b", "t", "p0", "B", runtime::batch_state::done, "{}"));
  const auto items = b.batch_items("b", "t");
  ASSERT_EQ(items.size(), 1U);
  EXPECT_EQ(items[0].finished_by.value_or(""), "B");
  std::vector<std::string> log;
  for (const auto& e : b.batch_events("b", "t")) log.push_back(e.tuner + ":" + e.event);
  EXPECT_EQ(log, (std::vector<std::string>{"A:claimed", "B:reclaimed", "A:lost", "B:done"}));
}

void check_threads_never_overlap(const db_opener& open, int tuners, int problems) {
  using namespace std::chrono_literals;
  open().add_batch_items("b", "t", sample_items(problems));
  std::mutex m;
  std::map<std::string, std::string> finished_by;
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  for (int t = 0; t < tuners; ++t) {
    threads.emplace_back([&, t] {
      try {
        auto db = open();
        const std::string me = fmt::format("T{}", t);
        while (auto c = db.claim_batch_item("b", "t", me, 60s)) {
          std::this_thread::sleep_for(2ms);  // "tuning"
          if (!db.finish_batch_item("b", "t", c->item, me, runtime::batch_state::done, "{}")) {
            std::lock_guard lock(m);
            errors.push_back(me + " lost " + c->item);
          }
          std::lock_guard lock(m);
          if (!finished_by.emplace(c->item, me).second) errors.push_back(c->item + " finished twice");
        }
      } catch (const std::exception& e) {
        std::lock_guard lock(m);
        errors.emplace_back(e.what());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(finished_by.size(), static_cast<std::size_t>(problems));
  auto db = open();
  for (const auto& it : db.batch_items("b", "t")) {
    EXPECT_EQ(it.state, runtime::batch_state::done) << it.item;
    EXPECT_EQ(it.attempts, 1) << it.item << " was claimed more than once";
  }
  const auto events = db.batch_events("b", "t");
  for (const auto& [item, n] : count_events(events, "claimed")) EXPECT_EQ(n, 1) << item;
  for (const auto& [item, n] : count_events(events, "done")) EXPECT_EQ(n, 1) << item;
}

void check_processes_never_overlap(const db_opener& open, int tuners, int problems) {
  using namespace std::chrono_literals;
  open().add_batch_items("b", "t", sample_items(problems));
  std::vector<pid_t> children;
  for (int t = 0; t < tuners; ++t) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        auto db = open();
        const std::string me = fmt::format("P{}", t);
        while (auto c = db.claim_batch_item("b", "t", me, 60s)) {
          std::this_thread::sleep_for(2ms);
          if (!db.finish_batch_item("b", "t", c->item, me, runtime::batch_state::done, "{}")) rc = 3;
        }
      } catch (...) {
        rc = 4;
      }
      ::_exit(rc);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  auto db = open();
  std::set<std::string> tuners_seen;
  for (const auto& it : db.batch_items("b", "t")) {
    EXPECT_EQ(it.state, runtime::batch_state::done) << it.item;
    EXPECT_EQ(it.attempts, 1) << it.item;
    tuners_seen.insert(it.finished_by.value_or(""));
  }
  EXPECT_EQ(db.batch_items("b", "t").size(), static_cast<std::size_t>(problems));
  for (const auto& [item, n] : count_events(db.batch_events("b", "t"), "done")) EXPECT_EQ(n, 1) << item;
}

}  // namespace rocmtpl::test

// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/tune/tune_batch.hpp: batch files, run_batch with a fake tune function on
// a SQLite database (every problem once, resume after an interruption, failures, two tuners at
// once, take-over of a dead tuner's problem), and the progress display.
#include <rocmtpl/runtime/tune/tune_batch.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace rt = rocmtpl::runtime;
using nlohmann::json;
using namespace std::chrono_literals;

json three_problems() {
  return json::parse(R"([{"m": 64, "n": 64, "k": 32}, {"m": 128, "n": 64, "k": 32, "dtype": "f16"},
                         {"k": 16, "n": 8, "m": 8}])");
}

TEST(ParseBatch, ArrayOrObjectAndStableIds) {
  const auto a = rt::parse_batch(three_problems());
  ASSERT_EQ(a.size(), 3U);
  EXPECT_EQ(a[1].spec.at("dtype"), "f16");
  EXPECT_EQ(a[0].id.size(), 16U);
  EXPECT_NE(a[0].id, a[1].id);
  // The id depends on the problem, not on key order or on the file's shape.
  const auto b = rt::parse_batch(json{{"problems", json::parse(R"([{"n": 8, "k": 16, "m": 8}])")}});
  ASSERT_EQ(b.size(), 1U);
  EXPECT_EQ(b[0].id, a[2].id);
}

TEST(ParseBatch, RejectsWrongShapes) {
  auto message = [](const json& doc) {
    try {
      (void)rt::parse_batch(doc, "f.json");
    } catch (const rocmtpl::invalid_argument_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(json::object()).find("a JSON array of problems"), std::string::npos);
  EXPECT_NE(message(json::array()).find("no problems"), std::string::npos);
  EXPECT_NE(message(json::parse(R"([{"m": 1}, 5])")).find("problem 1 is not a JSON object"), std::string::npos);
  EXPECT_NE(message(json::parse(R"([{"m": 1}, {"m": 2}, {"m": 1}])")).find("problems 0 and 2 are the same"),
            std::string::npos);
}

TEST(ParseBatch, LoadsAFileAndNamesItInErrors) {
  rocmtpl::test::temp_dir dir;
  std::ofstream(dir / "ok.json") << three_problems().dump();
  EXPECT_EQ(rt::load_batch_file(dir / "ok.json").size(), 3U);
  std::ofstream(dir / "bad.json") << "[{\"m\": ";
  try {
    (void)rt::load_batch_file(dir / "bad.json");
    FAIL() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json' is not JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)rt::load_batch_file(dir / "missing.json"), rocmtpl::invalid_argument_error);
}

// A fake tune: counts calls per problem, "compiles" 2 candidates; problems with "fail" fail.
struct fake_tuner {
  std::mutex mutex;
  std::map<std::string, int> calls;
  std::chrono::milliseconds delay{0};
  rt::batch_outcome operator()(const rt::batch_claim& claim, const json& spec) {
    {
      std::lock_guard lock(mutex);
      ++calls[claim.item];
    }
    std::this_thread::sleep_for(delay);
    if (spec.contains("fail")) throw std::runtime_error("planted failure");
    rt::batch_outcome out;
    out.ok = true;
    out.summary = fmt::format("m={}", spec.at("m").dump());
    out.compiled = 2;
    out.result = {{"winner", fmt::format("c{}", spec.at("m").dump())}};
    return out;
  }
};

class TuneBatch : public ::testing::Test {
 protected:
  rt::batch_options options(const std::string& tuner) {
    rt::batch_options o;
    o.name = "b";
    o.target = "compile-only:gfx90a";
    o.tuner = tuner;
    o.lease = 2s;
    o.poll = 20ms;
    o.out = &out_;
    return o;
  }
  rocmtpl::test::temp_dir dir_;
  std::ostringstream out_;
};

TEST_F(TuneBatch, TunesEveryProblemOnceAndResumesWithoutRetuning) {
  const auto problems = rt::parse_batch(three_problems());
  fake_tuner tune;
  {
    rt::tuning_db db(dir_ / "tuning.sqlite3");
    const auto s = rt::run_batch(db, problems, options("A"), std::ref(tune));
    EXPECT_EQ(s.total, 3U);
    EXPECT_EQ(s.done_before, 0U);
    EXPECT_EQ(s.done, 3U);
    EXPECT_EQ(s.tuned_here, 3U);
    EXPECT_EQ(s.compiled, 6U);
    for (const auto& p : problems) EXPECT_EQ(tune.calls[p.id], 1) << p.id;
    const auto items = db.batch_items("b", "compile-only:gfx90a");
    ASSERT_EQ(items.size(), 3U);
    const auto result = json::parse(items[0].result.value_or("{}"));
    EXPECT_EQ(result.at("winner"), "c64");
    EXPECT_EQ(result.at("tuner"), "A");
  }
  // Plain lines (not a terminal): one per problem, with counts and an ETA.
  const std::string text = out_.str();
  EXPECT_NE(text.find("[1/3] done "), std::string::npos) << text;
  EXPECT_NE(text.find("[3/3] done "), std::string::npos) << text;
  EXPECT_NE(text.find("compiled 6, benchmarked 0"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA 0:00"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << "no terminal control in a log";

  // Again (a new process would do the same): nothing is tuned twice.
  rt::tuning_db db(dir_ / "tuning.sqlite3");
  const auto again = rt::run_batch(db, problems, options("B"), std::ref(tune));
  EXPECT_EQ(again.done_before, 3U);
  EXPECT_EQ(again.tuned_here, 0U);
  for (const auto& p : problems) EXPECT_EQ(tune.calls[p.id], 1) << p.id;
  // A different target is a different batch of work.
  auto other = options("C");
  other.target = "AMD Instinct MI210/gfx90a";
  EXPECT_EQ(rt::run_batch(db, problems, other, std::ref(tune)).tuned_here, 3U);
}

TEST_F(TuneBatch, InterruptReleasesTheClaimAndAResumeFinishes) {
  const auto problems = rt::parse_batch(three_problems());
  fake_tuner tune;
  tune.delay = 300ms;
  std::atomic<bool> stop{false};
  std::atomic<int> interrupted{0};
  auto o = options("A");
  o.interrupt = &stop;
  o.on_interrupt = [&] { ++interrupted; };
  std::thread stopper([&] {
    std::this_thread::sleep_for(450ms);  // during the second problem
    stop = true;
  });
  rt::tuning_db db(dir_ / "tuning.sqlite3");
  const auto first = rt::run_batch(db, problems, o, std::ref(tune));
  stopper.join();
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.tuned_here, 1U);
  EXPECT_EQ(interrupted.load(), 1);
  const auto items = db.batch_items("b", "compile-only:gfx90a");
  EXPECT_EQ(items[1].state, rt::batch_state::pending) << "the interrupted problem was released";
  // The resumed run does the rest and not the first problem again.
  tune.delay = 0ms;
  const auto second = rt::run_batch(db, problems, options("A2"), std::ref(tune));
  EXPECT_EQ(second.done_before, 1U);
  EXPECT_EQ(second.tuned_here, 2U);
  EXPECT_EQ(tune.calls[problems[0].id], 1);
  EXPECT_EQ(second.done, 3U);
}

TEST_F(TuneBatch, AnInterruptDuringATuneNeverFinishesTheProblem) {
  // The signal arrives as the tune returns (a Ctrl-C makes the compilers fail): the outcome is not
  // trusted, the problem is released even if the lease keeper did not see the signal yet.
  const auto problems = rt::parse_batch(three_problems());
  std::atomic<bool> stop{false};
  auto o = options("A");
  o.interrupt = &stop;
  int calls = 0;
  rt::tuning_db db(dir_ / "tuning.sqlite3");
  const auto s = rt::run_batch(db, problems, o, [&](const rt::batch_claim&, const json&) {
    ++calls;
    stop = true;
    return rt::batch_outcome{};  // "failed"
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(s.interrupted);
  EXPECT_EQ(s.failed_here, 0U);
  for (const auto& it : db.batch_items("b", "compile-only:gfx90a")) {
    EXPECT_EQ(it.state, rt::batch_state::pending) << it.item;
  }
}

TEST_F(TuneBatch, AFailureIsStoredAndNotRetried) {
  auto doc = three_problems();
  doc[1]["fail"] = true;
  const auto problems = rt::parse_batch(doc);
  fake_tuner tune;
  rt::tuning_db db(dir_ / "tuning.sqlite3");
  const auto s = rt::run_batch(db, problems, options("A"), std::ref(tune));
  EXPECT_EQ(s.done, 2U);
  EXPECT_EQ(s.failed, 1U);
  EXPECT_EQ(s.failed_here, 1U);
  const auto items = db.batch_items("b", "compile-only:gfx90a");
  EXPECT_EQ(items[1].state, rt::batch_state::failed);
  EXPECT_NE(items[1].result.value_or("").find("planted failure"), std::string::npos);
  EXPECT_NE(out_.str().find("FAILED"), std::string::npos);
  (void)rt::run_batch(db, problems, options("A"), std::ref(tune));
  EXPECT_EQ(tune.calls[problems[1].id], 1);
}

TEST_F(TuneBatch, TwoTunersShareABatchAndTakeOverADeadTunersProblem) {
  json doc = json::array();
  for (int i = 1; i <= 12; ++i) doc.push_back({{"m", 8 * i}});
  const auto problems = rt::parse_batch(doc);
  {
    // A tuner that died holding the first problem under a short lease.
    rt::tuning_db db(dir_ / "tuning.sqlite3");
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& p : problems) rows.emplace_back(p.id, p.spec.dump());
    db.add_batch_items("b", "compile-only:gfx90a", rows);
    ASSERT_TRUE(db.claim_batch_item("b", "compile-only:gfx90a", "dead", 300ms));
  }
  fake_tuner tune;
  tune.delay = 20ms;
  rt::batch_summary s1;
  rt::batch_summary s2;
  std::thread t1([&] {
    rt::tuning_db db(dir_ / "tuning.sqlite3");
    s1 = rt::run_batch(db, problems, options("T1"), std::ref(tune));
  });
  std::thread t2([&] {
    rt::tuning_db db(dir_ / "tuning.sqlite3");
    std::ostringstream quiet;
    auto o = options("T2");
    o.out = &quiet;
    s2 = rt::run_batch(db, problems, o, std::ref(tune));
  });
  t1.join();
  t2.join();
  EXPECT_EQ(s1.tuned_here + s2.tuned_here, 12U);
  EXPECT_EQ(s1.reclaimed + s2.reclaimed, 1U);
  EXPECT_EQ(s1.done, 12U);
  for (const auto& p : problems) EXPECT_EQ(tune.calls[p.id], 1) << p.id;
  rt::tuning_db db(dir_ / "tuning.sqlite3");
  const auto items = db.batch_items("b", "compile-only:gfx90a");
  EXPECT_EQ(items[0].attempts, 2);
  EXPECT_NE(items[0].finished_by.value_or("dead"), "dead");
}

TEST(BatchProgress, TerminalLineHasBarCountsAndEta) {
  std::ostringstream out;
  rt::batch_progress p(&out, true, "model");
  std::vector<rt::batch_item> items(4);
  items[0].state = rt::batch_state::done;  // done before this run: not counted in the rate
  p.update_states(items);
  EXPECT_NE(p.status().find("ETA --"), std::string::npos) << "no rate yet: " << p.status();
  items[1].state = rt::batch_state::done;
  items[2].state = rt::batch_state::claimed;
  p.update_states(items);
  p.finished("done x", 5, 3);
  const std::string s = p.status();
  EXPECT_NE(s.find("2 done, 1 in progress"), std::string::npos) << s;
  EXPECT_NE(s.find("compiled 5, benchmarked 3"), std::string::npos) << s;
  EXPECT_EQ(s.find("ETA --"), std::string::npos) << "one problem per elapsed time gives a rate: " << s;
  p.working_on("tuning y");
  const std::string text = out.str();
  EXPECT_NE(text.find("\r\033[Kmodel [############------------] 2/4 | "), std::string::npos) << text;
  EXPECT_NE(text.find("| tuning y"), std::string::npos) << text;
}

}  // namespace

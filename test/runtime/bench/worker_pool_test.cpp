// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/bench/worker_pool.hpp with fake workers (no GPU): jobs spread over the
// workers, a crashed or hung worker restarted on its device without losing the other jobs, device
// models never mixed; and with real child processes, that each worker sees only its device.
#include <rocmtpl/runtime/bench/worker_pool.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace rt = rocmtpl::runtime;
using failure = rt::worker_process::failure;
using json = nlohmann::json;

// What the fakes did, shared by all of them.
struct fake_log {
  std::mutex mutex;
  std::vector<std::string> started;           // device of each started worker, in order
  std::vector<std::vector<std::string>> ops;  // per started worker: the ops it was sent ("measure 3" for job 3)
  std::atomic<int> busy{0};
  std::atomic<int> most_busy{0};
};

// A worker that sleeps `ms` per job and answers {"ok": true, "job": N}; a job with "crash" dies,
// "hang" times out, "poison" answers ok false; setup reports `model`; `reference` answers ok
// (false with "fail"). Every command's op goes to its entry of log.ops.
class fake_worker : public rt::pool_worker {
 public:
  fake_worker(fake_log& log, std::size_t id, std::string model, bool setup_fails)
      : log_(log), id_(id), model_(std::move(model)), setup_fails_(setup_fails) {}
  std::optional<json> request(const json& cmd, std::chrono::milliseconds, failure& why, std::string& detail) override {
    {
      std::lock_guard lock(log_.mutex);
      std::string op = cmd.at("op").get<std::string>();
      if (cmd.contains("job")) {
        op += " ";
        op += std::to_string(cmd.at("job").get<int>());
      }
      log_.ops[id_].push_back(op);
    }
    if (cmd.at("op") == "reference") {
      if (cmd.value("fail", false)) return json{{"ok", false}, {"error", "reference crashed"}};
      return json{{"ok", true}};
    }
    if (cmd.at("op") == "setup") {
      if (setup_fails_) return json{{"ok", false}, {"error", "no GPU"}};
      return json{{"ok", true}, {"device", model_}};
    }
    const int now = ++log_.busy;
    for (int seen = log_.most_busy.load(); now > seen && !log_.most_busy.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(cmd.value("ms", 0)));
    --log_.busy;
    if (cmd.value("crash", false)) {
      why = failure::crashed;
      detail = "worker killed by signal 11";
      return std::nullopt;
    }
    if (cmd.value("hang", false)) {
      why = failure::timed_out;
      detail = "no reply within 10 ms";
      return std::nullopt;
    }
    if (cmd.value("poison", false)) return json{{"ok", false}, {"error", "illegal address"}};
    return json{{"ok", true}, {"job", cmd.at("job")}};
  }

 private:
  fake_log& log_;
  std::size_t id_;
  std::string model_;
  bool setup_fails_;
};

rt::worker_factory fakes(fake_log& log, std::map<std::string, std::string> models = {}, bool setup_fails = false) {
  return [&log, models, setup_fails](const std::string& device) -> std::unique_ptr<rt::pool_worker> {
    std::size_t id = 0;
    {
      std::lock_guard lock(log.mutex);
      id = log.started.size();
      log.started.push_back(device);
      log.ops.emplace_back();
    }
    const auto it = models.find(device);
    return std::make_unique<fake_worker>(log, id, it == models.end() ? "Fake GPU" : it->second, setup_fails);
  };
}

std::vector<json> jobs(int n, int ms) {
  std::vector<json> out;
  for (int i = 0; i < n; ++i) out.push_back({{"op", "measure"}, {"job", i}, {"ms", ms}});
  return out;
}

const json setup{{"op", "setup"}};

TEST(WorkerPool, SpreadsJobsOverTheDevices) {
  fake_log log;
  rt::worker_pool pool({"0", "1"}, fakes(log), setup);
  const auto results = pool.run(jobs(8, 40));
  ASSERT_EQ(results.size(), 8U);
  std::set<std::string> devices;
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].reply.has_value()) << results[i].detail;
    EXPECT_EQ(results[i].reply->at("job"), static_cast<int>(i));  // in the jobs' order
    EXPECT_EQ(results[i].device_name, "Fake GPU");
    devices.insert(results[i].device);
  }
  EXPECT_EQ(devices, (std::set<std::string>{"0", "1"}));
  EXPECT_EQ(log.most_busy.load(), 2);  // both worked at once
  EXPECT_EQ(pool.restarts(), 0U);
  EXPECT_EQ(pool.device_name(), "Fake GPU");
}

TEST(WorkerPool, ACrashedOrHungWorkerIsRestartedOnItsDeviceAndTheOthersGoOn) {
  fake_log log;
  rt::worker_pool pool({"0", "1"}, fakes(log), setup);
  auto work = jobs(10, 5);
  work[3]["crash"] = true;
  work[6]["hang"] = true;
  work[8]["poison"] = true;
  const auto results = pool.run(work);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i == 3 || i == 6) {
      EXPECT_FALSE(results[i].reply.has_value());
      EXPECT_EQ(results[i].failure, i == 3 ? failure::crashed : failure::timed_out);
    } else if (i == 8) {
      ASSERT_TRUE(results[i].reply.has_value());
      EXPECT_FALSE(results[i].reply->at("ok").get<bool>());
    } else {
      ASSERT_TRUE(results[i].reply.has_value()) << i << ": " << results[i].detail;
      EXPECT_EQ(results[i].reply->at("job"), static_cast<int>(i));
    }
  }
  // Two workers at first; the crash, the hang and the poisoning job each cost a restart on the
  // same device (the last one only if another job came after it on that device).
  std::map<std::string, int> per_device;
  for (const auto& d : log.started) ++per_device[d];
  EXPECT_EQ(per_device.size(), 2U);
  EXPECT_GE(pool.restarts(), 2U);
  EXPECT_EQ(log.started.size(), 2U + pool.restarts());
}

TEST(WorkerPool, StartNowStartsTheWorkersBeforeTheSetupIsKnown) {
  fake_log log;
  rt::worker_pool_options o;
  o.start_now = true;
  rt::worker_pool pool({"0", "1"}, fakes(log), nullptr, o);
  for (int i = 0; i < 200 &&
                  [&] {
                    std::lock_guard lock(log.mutex);
                    return log.started.size() < 2;
                  }();
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  {
    std::lock_guard lock(log.mutex);
    EXPECT_EQ(log.started.size(), 2U);  // both started, no job yet
  }
  pool.set_setup(setup);
  const auto results = pool.run(jobs(4, 20));
  for (const auto& r : results) EXPECT_TRUE(r.reply.has_value()) << r.detail;
  std::lock_guard lock(log.mutex);
  EXPECT_EQ(log.started.size(), 2U);  // the early workers were the ones set up
  EXPECT_EQ(pool.restarts(), 0U);
}

TEST(WorkerPool, RefusesToMixDeviceModels) {
  fake_log log;
  rt::worker_pool pool({"0", "1"}, fakes(log, {{"0", "NVIDIA H200"}, {"1", "NVIDIA H100"}}), setup);
  const auto results = pool.run(jobs(6, 30));  // long enough that both workers take a job
  std::set<std::string> models;
  for (const auto& r : results) {
    ASSERT_TRUE(r.reply.has_value()) << r.detail;  // every job ran, on one model only
    models.insert(r.device_name);
  }
  EXPECT_EQ(models.size(), 1U);
  EXPECT_NE(pool.mixed_devices().find("not comparable"), std::string::npos) << pool.mixed_devices();
}

// Issue 11: with the tuning key's model given, a worker of another model takes no job even when it
// is the first one set up (device 0 here), so every measurement can be stored under that key.
TEST(WorkerPool, GivenModelRefusesEveryOtherModel) {
  fake_log log;
  rt::worker_pool_options o;
  o.model = "NVIDIA H100";
  rt::worker_pool pool({"0", "1"}, fakes(log, {{"0", "NVIDIA H200"}, {"1", "NVIDIA H100"}}), setup, o);
  EXPECT_EQ(pool.device_name(), "NVIDIA H100");
  const auto results = pool.run(jobs(6, 10));
  for (const auto& r : results) {
    ASSERT_TRUE(r.reply.has_value()) << r.detail;
    EXPECT_EQ(r.device, "1");
    EXPECT_EQ(r.device_name, "NVIDIA H100");
  }
  const auto why = pool.mixed_devices();
  // The reason names the refused device and the model it lacks (against the given model, or
  // against device 1 when that one was set up first).
  EXPECT_NE(why.find("device 0 is a NVIDIA H200, "), std::string::npos) << why;
  EXPECT_TRUE(why.find("the pool's model is a NVIDIA H100") != std::string::npos ||
              why.find("device 1 is a NVIDIA H100") != std::string::npos)
      << why;
  // No worker of the given model: every job fails with the reason.
  fake_log none_log;
  rt::worker_pool none({"0"}, fakes(none_log, {{"0", "NVIDIA H200"}}), setup, o);
  const auto r = none.submit({{"op", "measure"}, {"job", 0}}).get();
  EXPECT_FALSE(r.reply.has_value());
  EXPECT_NE(r.detail.find("not comparable"), std::string::npos) << r.detail;
}

TEST(WorkerPool, ASetupFailureFailsTheJobWithTheReason) {
  fake_log log;
  rt::worker_pool pool({"0"}, fakes(log, {}, true), setup);
  const auto r = pool.submit({{"op", "measure"}, {"job", 0}}).get();
  EXPECT_FALSE(r.reply.has_value());
  EXPECT_EQ(r.failure, failure::crashed);
  EXPECT_NE(r.detail.find("worker setup failed: no GPU"), std::string::npos) << r.detail;
}

// The reference is a setup command: it runs ahead of the queued jobs, every worker runs it (after
// `setup`) before its next job, and a worker restarted after a crash runs setup and reference again.
TEST(WorkerPool, SetupCommandsReachEveryWorkerAndARestartedOneAgain) {
  fake_log log;
  rt::worker_pool pool({"0", "1"}, fakes(log), setup);
  std::vector<std::future<rt::pool_job_result>> before;
  for (auto& j : jobs(8, 20)) before.push_back(pool.submit(j));
  const auto first = pool.add_setup({{"op", "reference"}}).get();
  ASSERT_TRUE(first.reply.has_value()) << first.detail;
  for (auto& f : before) EXPECT_TRUE(f.get().reply.has_value());
  auto after = jobs(6, 20);
  after[1]["crash"] = true;
  for (auto& j : after) j["job"] = j["job"].get<int>() + 100;
  const auto results = pool.run(after);
  for (std::size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i].reply.has_value(), i != 1) << i;
  EXPECT_EQ(pool.restarts(), 1U);
  std::lock_guard lock(log.mutex);
  ASSERT_EQ(log.ops.size(), 3U);  // two workers, one restarted
  std::size_t references = 0;
  for (const auto& ops : log.ops) {
    ASSERT_FALSE(ops.empty());
    EXPECT_EQ(ops.front(), "setup");
    const auto ref = std::find(ops.begin(), ops.end(), "reference");
    references += ref != ops.end() ? 1 : 0;
    // A job submitted after the reference ran only after it on this worker, and the reference once.
    for (auto op = ops.begin(); op != ops.end(); ++op) {
      if (op->rfind("measure 1", 0) == 0 && op->size() == 11) {
        EXPECT_LT(ref, op) << *op;
      }
    }
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "reference"), ref != ops.end() ? 1 : 0);
  }
  EXPECT_EQ(references, 3U);  // both workers and the restarted one (each took a later job)
  // Queued ahead of the earlier jobs: with two workers busy, at most two of them ran before it.
  std::size_t ran_before = 0;
  for (const auto& ops : log.ops) {
    const auto ref = std::find(ops.begin(), ops.end(), "reference");
    for (auto op = ops.begin(); op != ref; ++op) ran_before += op->rfind("measure ", 0) == 0 ? 1 : 0;
  }
  EXPECT_LE(ran_before, 4U);
}

// A batch's next problem: the same workers (no new process, no restart) run the new round's setup,
// then its reference, before its jobs; the earlier round's setup commands are not run again.
TEST(WorkerPool, BeginStartsTheNextRoundOnTheWorkersAlreadyUp) {
  fake_log log;
  rt::worker_pool pool({"0", "1"}, fakes(log), {{"op", "setup"}, {"job", 1}});
  ASSERT_TRUE(pool.add_setup({{"op", "reference"}, {"job", 1}}).get().reply.has_value());
  for (const auto& r : pool.run(jobs(4, 30))) EXPECT_TRUE(r.reply.has_value()) << r.detail;
  pool.begin({{"op", "setup"}, {"job", 2}});
  ASSERT_TRUE(pool.add_setup({{"op", "reference"}, {"job", 2}}).get().reply.has_value());
  auto second = jobs(4, 30);
  for (auto& j : second) j["job"] = j["job"].get<int>() + 10;
  for (const auto& r : pool.run(second)) EXPECT_TRUE(r.reply.has_value()) << r.detail;
  EXPECT_EQ(pool.restarts(), 0U);
  std::lock_guard lock(log.mutex);
  ASSERT_EQ(log.started.size(), 2U);  // no new worker process
  for (const auto& ops : log.ops) {
    const auto at = [&](const std::string& op) { return std::find(ops.begin(), ops.end(), op) - ops.begin(); };
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "setup 2"), 1) << ::testing::PrintToString(ops);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "setup 1"), 1) << ::testing::PrintToString(ops);
    EXPECT_LT(at("setup 2"), at("reference 2"));
    for (std::size_t i = 0; i < ops.size(); ++i) {  // second-round jobs only after its setup and reference
      if (ops[i].rfind("measure 1", 0) == 0 && ops[i].size() == 10) {
        EXPECT_GT(static_cast<std::ptrdiff_t>(i), at("reference 2")) << ops[i];
      }
    }
  }
}

// Jobs of the earlier round still queued when the next begins fail as cancelled; none runs with the
// new round's setup.
TEST(WorkerPool, BeginCancelsTheEarlierRoundsQueuedJobs) {
  fake_log log;
  rt::worker_pool pool({"0"}, fakes(log), setup);
  std::vector<std::future<rt::pool_job_result>> old;
  for (auto& j : jobs(6, 40)) old.push_back(pool.submit(j));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the first is running
  pool.begin({{"op", "setup"}, {"job", 2}});
  std::size_t cancelled = 0;
  for (auto& f : old) {
    const auto r = f.get();
    if (!r.reply) {
      EXPECT_NE(r.detail.find("cancelled"), std::string::npos) << r.detail;
      ++cancelled;
    }
  }
  EXPECT_GE(cancelled, 4U);
  const auto r = pool.submit({{"op", "measure"}, {"job", 20}}).get();
  EXPECT_TRUE(r.reply.has_value()) << r.detail;
  std::lock_guard lock(log.mutex);
  ASSERT_EQ(log.ops.size(), 1U);
  const auto& ops = log.ops[0];
  const auto new_setup = std::find(ops.begin(), ops.end(), "setup 2");
  ASSERT_NE(new_setup, ops.end());
  EXPECT_EQ(std::find(new_setup, ops.end(), "measure 20"), ops.end() - 1);
  for (auto op = new_setup; op != ops.end(); ++op) EXPECT_TRUE(*op == "setup 2" || *op == "measure 20") << *op;
}

TEST(WorkerPool, AFailingSetupCommandFailsWithItsOpAndTheNextJobGetsAFreshWorker) {
  fake_log log;
  rt::worker_pool pool({"0"}, fakes(log), setup);
  const auto r = pool.add_setup({{"op", "reference"}, {"fail", true}}).get();
  EXPECT_FALSE(r.reply.has_value());
  EXPECT_EQ(r.failure, failure::crashed);
  EXPECT_EQ(r.detail, "worker reference failed: reference crashed");
  const auto job = pool.submit({{"op", "measure"}, {"job", 0}}).get();  // a new worker: setup, reference again
  EXPECT_FALSE(job.reply.has_value());
  EXPECT_EQ(job.detail, "worker reference failed: reference crashed");
  std::lock_guard lock(log.mutex);
  ASSERT_EQ(log.ops.size(), 2U);
  EXPECT_EQ(log.ops[1], (std::vector<std::string>{"setup", "reference"}));
}

TEST(WorkerPool, VisibleDevicesFollowTheEnvironment) {
  const char* cuda = std::getenv("CUDA_VISIBLE_DEVICES");
  const char* hip = std::getenv("HIP_VISIBLE_DEVICES");
  const std::string saved_cuda = cuda ? cuda : "";
  const std::string saved_hip = hip ? hip : "";
  ::unsetenv("HIP_VISIBLE_DEVICES");
  ::setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
  EXPECT_EQ(rt::visible_devices(8), (std::vector<std::string>{"2", "3"}));
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(rt::visible_devices(2), (std::vector<std::string>{"0", "1"}));
  if (cuda) ::setenv("CUDA_VISIBLE_DEVICES", saved_cuda.c_str(), 1);
  if (hip) ::setenv("HIP_VISIBLE_DEVICES", saved_hip.c_str(), 1);
  EXPECT_THROW(rt::worker_pool({}, rt::worker_factory(), setup), rocmtpl::invalid_argument_error);
}

TEST(WorkerPool, TheRealWorkersSetupFailureIsTheJobsReason) {
  const auto exe = rt::find_worker();
  if (!exe) GTEST_SKIP() << "rocmtpl-bench-worker not built (build tools/ or set ROCMTPL_BENCH_WORKER)";
  rt::worker_pool pool({"0"}, rt::process_worker_factory(*exe),
                       {{"op", "setup"}, {"utility_library", "/nonexistent/libutility.so"}});
  const auto r = pool.submit({{"op", "measure"}, {"extra_args", {1}}, {"library", "x"}, {"tolerance", 0.1}}).get();
  EXPECT_FALSE(r.reply.has_value());
  EXPECT_EQ(r.device, "0");
  EXPECT_NE(r.detail.find("worker setup failed: "), std::string::npos) << r.detail;
}

TEST(WorkerPool, EachWorkerProcessSeesOnlyItsDevice) {
  const auto sh = rt::find_executable("sh");
  if (!sh) GTEST_SKIP() << "no sh";
  std::string pattern = (fs::temp_directory_path() / "rocmtpl-pool-test-XXXXXX").string();
  const fs::path dir = ::mkdtemp(pattern.data());
  const auto script = dir / "worker.sh";
  {
    std::ofstream out(script);
    out << "#!" << sh->string() << "\n"
        << "while IFS= read -r line; do\n"
        << "  case \"$line\" in\n"
        << "    *setup*) echo '{\"ok\": true, \"device\": \"fake\"}' ;;\n"
        << "    *) echo \"{\\\"ok\\\": true, \\\"cuda\\\": \\\"$CUDA_VISIBLE_DEVICES\\\", \\\"hip\\\": "
           "\\\"$HIP_VISIBLE_DEVICES\\\"}\" ;;\n"
        << "  esac\n"
        << "done\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  {
    rt::worker_pool pool({"0", "1"}, rt::process_worker_factory(script), setup);
    const auto results = pool.run(jobs(6, 0));
    for (const auto& r : results) {
      ASSERT_TRUE(r.reply.has_value()) << r.detail;
      EXPECT_EQ(r.reply->at("cuda"), r.device);
      EXPECT_EQ(r.reply->at("hip"), r.device);
    }
  }
  fs::remove_all(dir);
}

}  // namespace

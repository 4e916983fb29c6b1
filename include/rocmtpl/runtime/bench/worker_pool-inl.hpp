// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/bench/worker_pool.hpp: included at its end (header-only) or compiled once by
// src/runtime/bench.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace rocmtpl::runtime {

namespace detail::worker_pool_impl {
ROCMTPL_INLINE std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    if (comma != 0) out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}
}  // namespace detail::worker_pool_impl

ROCMTPL_INLINE worker_factory process_worker_factory(std::filesystem::path executable) {
  return [exe = std::move(executable)](const std::string& device) -> std::unique_ptr<pool_worker> {
    return std::make_unique<detail::worker_pool_impl::process_worker>(exe, device);
  };
}

ROCMTPL_INLINE std::vector<std::string> visible_devices(int count) {
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) {
    if (const char* v = std::getenv(name); v != nullptr) return detail::worker_pool_impl::split_list(v);
  }
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(std::to_string(i));
  return out;
}

ROCMTPL_INLINE worker_pool::worker_pool(std::vector<std::string> devices, worker_factory factory, nlohmann::json setup,
                                        worker_pool_options options)
    : devices_(std::move(devices)), factory_(std::move(factory)), options_(options), model_(options_.model) {
  setup_.push_back(std::move(setup));
  if (devices_.empty()) throw invalid_argument_error("rocmtpl: worker_pool: no device; give at least one");
  live_ = devices_.size();
  for (std::size_t i = 0; i < devices_.size(); ++i) threads_.emplace_back([this, i] { serve(i); });
}

ROCMTPL_INLINE worker_pool::~worker_pool() {
  std::deque<job> dropped;  // not started: their futures get broken_promise
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

ROCMTPL_INLINE void worker_pool::set_setup(nlohmann::json setup) {
  std::lock_guard lock(mutex_);
  setup_.front() = std::move(setup);
}

ROCMTPL_INLINE void worker_pool::begin(nlohmann::json setup) {
  std::deque<job> dropped;
  {
    std::unique_lock lock(mutex_);
    dropped.swap(queue_);
    idle_.wait(lock, [&] { return running_ == 0; });
    while (!queue_.empty()) {  // a retired worker's job, put back while we waited
      dropped.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    setup_.assign(1, std::move(setup));
    ++round_;
  }
  pool_job_result cancelled;
  cancelled.failure = worker_process::failure::crashed;
  cancelled.detail = "rocmtpl: worker_pool: cancelled: the pool began another round before this job ran";
  for (auto& d : dropped) d.promise.set_value(cancelled);
}

ROCMTPL_INLINE std::future<pool_job_result> worker_pool::add_setup(nlohmann::json command) {
  std::promise<pool_job_result> promise;
  auto future = promise.get_future();
  {
    std::lock_guard lock(mutex_);
    if (live_ == 0) {
      promise.set_value(refused_result());
      return future;
    }
    setup_.push_back(command);
    queue_.push_front({std::move(command), std::move(promise), setup_.size() - 1});
  }
  ready_.notify_one();
  return future;
}

ROCMTPL_INLINE std::future<pool_job_result> worker_pool::submit(nlohmann::json job) {
  std::promise<pool_job_result> promise;
  auto future = promise.get_future();
  {
    std::lock_guard lock(mutex_);
    if (live_ == 0) {
      promise.set_value(refused_result());
      return future;
    }
    queue_.push_back({std::move(job), std::move(promise), std::nullopt});
  }
  ready_.notify_one();
  return future;
}

ROCMTPL_INLINE std::vector<pool_job_result> worker_pool::run(const std::vector<nlohmann::json>& jobs) {
  std::vector<std::future<pool_job_result>> futures;
  for (const auto& j : jobs) futures.push_back(submit(j));
  std::vector<pool_job_result> out;
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

ROCMTPL_INLINE std::size_t worker_pool::restarts() const {
  std::lock_guard lock(mutex_);
  return restarts_;
}

ROCMTPL_INLINE std::string worker_pool::device_name() const {
  std::lock_guard lock(mutex_);
  return model_;
}

ROCMTPL_INLINE std::string worker_pool::mixed_devices() const {
  std::lock_guard lock(mutex_);
  return mixed_;
}

ROCMTPL_INLINE pool_job_result worker_pool::refused_result() const {
  pool_job_result r;
  r.failure = worker_process::failure::crashed;
  r.detail = mixed_.empty() ? std::string("rocmtpl: worker_pool: no worker could be set up") : mixed_;
  return r;
}

// The next job and the setup commands, or nullopt when stopping.
ROCMTPL_INLINE std::optional<worker_pool::taken> worker_pool::take() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  if (queue_.empty()) return std::nullopt;
  taken t{std::move(queue_.front()), setup_, round_};
  queue_.pop_front();
  ++running_;
  return t;
}

// A taken job's result is set: begin() may go on once none is running.
ROCMTPL_INLINE void worker_pool::finished(job& j, pool_job_result r) {
  j.promise.set_value(std::move(r));
  {
    std::lock_guard lock(mutex_);
    --running_;
  }
  idle_.notify_all();
}

// Runs one setup command; false (with `failed` saying `worker <op> failed: <why>`) when it fails.
ROCMTPL_INLINE bool worker_pool::run_setup(pool_worker& w, const nlohmann::json& command, pool_job_result& failed,
                                           std::optional<nlohmann::json>* reply_out) const {
  auto reply = w.request(command, options_.setup_timeout, failed.failure, failed.detail);
  if (reply && reply->value("ok", false)) {
    if (reply_out) *reply_out = std::move(reply);
    return true;
  }
  if (reply) failed.failure = worker_process::failure::crashed;
  std::string why = "worker ";  // appended in steps: g++ 12 -O3 reports a false -Wrestrict on "lit" + string
  why += command.is_object() ? command.value("op", std::string("setup")) : std::string("setup");
  why += " failed: ";
  why += reply ? reply->value("error", std::string()) : failed.detail;
  failed.detail = std::move(why);
  return false;
}

// A worker for device i that ran the first setup command; nullopt (with `failed` saying why)
// when that is impossible. Throws mixed_devices_error when it reports another model than the
// pool's. `w` is a worker started earlier (start_now), or null.
ROCMTPL_INLINE std::unique_ptr<pool_worker> worker_pool::start(std::size_t i, std::unique_ptr<pool_worker> w,
                                                               const nlohmann::json& setup, std::string& name,
                                                               pool_job_result& failed) {
  try {
    if (!w) w = factory_(devices_[i]);
  } catch (const std::exception& e) {
    failed.failure = worker_process::failure::crashed;
    failed.detail = std::string("worker could not start: ") + e.what();
    return nullptr;
  }
  std::optional<nlohmann::json> reply;
  if (!run_setup(*w, setup, failed, &reply)) return nullptr;
  name = reply->value("device", std::string());
  std::lock_guard lock(mutex_);
  if (model_.empty()) model_ = name;
  if (!name.empty() && name != model_) {
    std::string other = "the pool's model is";  // in steps: g++ 12 -O3 reports a false -Wrestrict on "lit" + string
    if (!first_device_.empty()) {
      other = "device ";
      other += first_device_;
      other += " is";
    }
    throw mixed_devices_error("rocmtpl: worker_pool: device " + devices_[i] + " is a " + name + ", " + other + " a " +
                              model_ +
                              "; their times are not comparable: make one model visible (CUDA_VISIBLE_DEVICES)");
  }
  if (first_device_.empty()) first_device_ = devices_[i];
  return w;
}

// A reply that may have left the worker's GPU context broken.
ROCMTPL_INLINE bool worker_pool::poisons(const nlohmann::json& reply) {
  if (!reply.value("ok", false)) return true;
  const auto m = reply.find("measurement");
  return m != reply.end() && m->value("status", std::string()) == "launch_failed";
}

ROCMTPL_INLINE void worker_pool::serve(std::size_t i) {
  std::unique_ptr<pool_worker> worker;  // set up
  std::unique_ptr<pool_worker> early;   // started (start_now), not yet set up
  if (options_.start_now) {
    try {
      early = factory_(devices_[i]);
    } catch (const std::exception&) {
      early.reset();  // started again, and the failure reported, with the first job
    }
  }
  std::string name;
  bool started_once = false;
  std::size_t ran = 0;             // setup commands the current worker ran in its round
  std::uint64_t worker_round = 0;  // the round of those commands
  while (auto t = take()) {
    auto& j = t->work;
    pool_job_result r;
    r.device = devices_[i];
    if (!worker) {
      try {
        worker = start(i, std::move(early), t->setup.front(), name, r);
      } catch (const mixed_devices_error& e) {
        retire(std::move(j), e.what());
        return;
      }
      if (worker && started_once) {
        std::lock_guard lock(mutex_);
        ++restarts_;
      }
      started_once = started_once || worker != nullptr;
      ran = worker ? 1 : 0;
      worker_round = t->round;
    }
    if (worker && worker_round != t->round) {  // begin(): the same worker, the new round's setup
      ran = 0;
      worker_round = t->round;
    }
    r.device_name = name;
    // The setup commands this worker has not run (for an add_setup() job: those before its own).
    const auto upto = j.setup_index.value_or(t->setup.size());
    while (worker && ran < upto) {
      if (run_setup(*worker, t->setup[ran], r)) {
        ++ran;
      } else {
        worker.reset();
      }
    }
    if (worker && j.setup_index) {
      if (run_setup(*worker, j.command, r, &r.reply)) {
        ran = std::max(ran, *j.setup_index + 1);
      } else {
        worker.reset();
      }
    } else if (worker) {
      r.reply = worker->request(j.command, options_.timeout, r.failure, r.detail);
      if (!r.reply || poisons(*r.reply)) worker.reset();  // the next job gets a fresh worker on this device
    }
    finished(j, std::move(r));
  }
}

// This worker takes no more jobs: its job goes back to the queue, or, when it was the last
// worker, every waiting job fails.
ROCMTPL_INLINE void worker_pool::retire(job j, const std::string& why) {
  std::deque<job> orphans;
  pool_job_result refused;
  {
    std::lock_guard lock(mutex_);
    mixed_ = why;
    --live_;
    --running_;  // taken, and back in the queue
    queue_.push_front(std::move(j));
    if (live_ == 0) orphans.swap(queue_);
    refused = refused_result();
  }
  for (auto& o : orphans) o.promise.set_value(refused);
  ready_.notify_all();
  idle_.notify_all();
}

}  // namespace rocmtpl::runtime

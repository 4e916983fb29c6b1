// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Benchmark workers on several GPUs of one host: one worker process per visible GPU (its
/// `CUDA_VISIBLE_DEVICES` / `HIP_VISIBLE_DEVICES` set to that GPU alone), jobs spread over them as
/// they come free, a worker that crashes or hangs restarted on its GPU while the others go on, and
/// the device model of every worker checked: measurements of different models are never mixed.
///
/// The pool speaks the worker protocol of measure.hpp (one JSON line per command: `setup`, then
/// the other setup commands such as `reference`, then jobs such as `measure` and `verify`); it does
/// not know what a job means. Every worker gets the setup commands before its next job, and a
/// restarted worker gets them all again. Workers are made by a worker_factory, so tests drive the
/// pool with fake workers.
///
/// @code{.cpp}
/// using namespace rocmtpl::runtime;
/// worker_pool pool(visible_devices(), process_worker_factory(*find_worker()), setup_command);
/// std::vector<std::future<pool_job_result>> done;
/// for (const auto& job : jobs) done.push_back(pool.submit(job));   // spread over the GPUs
/// for (auto& f : done) { auto r = f.get(); /* r.reply, or r.failure with r.detail; r.device */ }
/// @endcode

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace rocmtpl::runtime {

/// @brief The workers report different device models; their times are not comparable.
class mixed_devices_error : public error {
 public:
  using error::error;
};

/// @brief One benchmark worker as the pool drives it: one request at a time.
class pool_worker {
 public:
  pool_worker() = default;
  pool_worker(const pool_worker&) = delete;
  pool_worker& operator=(const pool_worker&) = delete;
  virtual ~pool_worker() = default;
  /// @brief Sends one command and waits up to @p timeout for the reply.
  /// @return the reply, or nullopt with @p why and @p detail set (the worker is then dead).
  virtual std::optional<nlohmann::json> request(const nlohmann::json& command, std::chrono::milliseconds timeout,
                                                worker_process::failure& why, std::string& detail) = 0;
};

/// @brief Starts a worker that sees only @p device (a GPU index or UUID as the visibility
/// variables take it). Throws when it cannot start.
using worker_factory = std::function<std::unique_ptr<pool_worker>(const std::string& device)>;

namespace detail::worker_pool_impl {
class process_worker : public pool_worker {
 public:
  process_worker(const std::filesystem::path& exe, const std::string& device)
      : process_(exe, process_options{.env = {{"CUDA_VISIBLE_DEVICES", device}, {"HIP_VISIBLE_DEVICES", device}}}) {}
  std::optional<nlohmann::json> request(const nlohmann::json& command, std::chrono::milliseconds timeout,
                                        worker_process::failure& why, std::string& detail) override {
    return process_.request(command, timeout, why, detail);
  }

 private:
  worker_process process_;
};

std::vector<std::string> split_list(std::string_view text);
}  // namespace detail::worker_pool_impl

/// @brief Workers that are `rocmtpl-bench-worker` processes (find_worker()), each started with
/// `CUDA_VISIBLE_DEVICES` and `HIP_VISIBLE_DEVICES` set to its one device.
[[nodiscard]] worker_factory process_worker_factory(std::filesystem::path executable);

/// @brief The GPUs this process may use, as values for the visibility variables: the list in
/// `CUDA_VISIBLE_DEVICES` or `HIP_VISIBLE_DEVICES` when set (first found), else `0` .. `count - 1`.
/// @param count the runtime's device count (used only when no variable is set)
[[nodiscard]] std::vector<std::string> visible_devices(int count);

/// @brief What became of one job.
struct pool_job_result {
  std::optional<nlohmann::json> reply;                              ///< the worker's reply, or nullopt
  worker_process::failure failure = worker_process::failure::none;  ///< why there is no reply
  std::string detail;                                               ///< the failure's description
  std::string device;       ///< the device (visibility value) of the worker that ran it
  std::string device_name;  ///< that device's model, as its worker's setup reported it
};

/// @brief How the pool runs.
struct worker_pool_options {
  std::chrono::milliseconds timeout{60'000};         ///< a job silent this long: its worker is killed
  std::chrono::milliseconds setup_timeout{240'000};  ///< the setup command's limit
  /// Start every worker process at once (its GPU context is created while the caller still
  /// prepares, e.g. compiles); the setup command still goes with the first job.
  bool start_now = false;
  /// The device model every worker must report (e.g. the tuning key's device, so that every
  /// measurement can be stored under that key); empty: the model of the first worker set up.
  std::string model{};
};

/// @brief One benchmark worker per device; jobs go to whichever worker is free.
///
/// Each worker is started (at once with worker_pool_options::start_now, else with its first job)
/// and set up: before its first job it gets the `setup` command (the reply's `device` names the
/// model), and before every job the setup commands added since (add_setup(): e.g. `reference`),
/// each once. A worker whose job gets no reply (crash, hang) or whose reply says the job broke it
/// (`ok` false, or a measurement with status launch_failed: the GPU context may be poisoned) is
/// replaced by a new one on the same device before its next job, and that one gets every setup
/// command again; the other workers' jobs are not touched. A setup command that fails fails the
/// job with `worker <op> failed: <why>`. A worker that reports another device model than
/// worker_pool_options::model (when empty: than the first one set up) takes no jobs (its job goes
/// back to the queue); when no worker is left, the waiting jobs fail with that reason
/// (mixed_devices() says so).
class worker_pool {
 public:
  /// @param devices one worker per entry (visible_devices())
  /// @param factory starts a worker for a device
  /// @param setup the `setup` command every worker gets first (or later through set_setup(), before
  ///        the first job)
  /// @throws invalid_argument_error when @p devices is empty
  worker_pool(std::vector<std::string> devices, worker_factory factory, nlohmann::json setup,
              worker_pool_options options = {});
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;
  ~worker_pool();

  /// @brief Replaces the setup command (for a pool started before it was known); call it before
  /// the first submit().
  void set_setup(nlohmann::json setup);

  /// @brief Starts the next round of work with another setup command (the next problem of a
  /// batch): the workers and their GPU contexts stay up, and each runs @p setup, then the setup
  /// commands added after it, before its next job. Jobs of the earlier round still queued are
  /// dropped (their futures fail with `cancelled`); running ones are waited for.
  void begin(nlohmann::json setup);

  /// @brief Adds a setup command (e.g. the `reference` run, once it is built): from now on every
  /// worker runs it, after the earlier ones, before its next job, and a restarted worker runs it
  /// again. It runs at once on the first free worker, ahead of the queued jobs.
  /// @return that first run's result: the reply when it succeeded, else no reply, with the failure
  ///         and `worker <op> failed: <why>` (or the earlier setup command's failure) as detail.
  [[nodiscard]] std::future<pool_job_result> add_setup(nlohmann::json command);

  /// @brief Queues one job; the future gets its result once a worker ran it.
  [[nodiscard]] std::future<pool_job_result> submit(nlohmann::json job);

  /// @brief Runs every job and returns the results in the jobs' order.
  [[nodiscard]] std::vector<pool_job_result> run(const std::vector<nlohmann::json>& jobs);

  /// @brief Workers (one per device).
  [[nodiscard]] std::size_t size() const noexcept { return devices_.size(); }
  /// @brief Workers started after the first on their device (after a crash, a hang or a poisoning job).
  [[nodiscard]] std::size_t restarts() const;
  /// @brief The device model of the workers (worker_pool_options::model, else empty until one is set up).
  [[nodiscard]] std::string device_name() const;
  /// @brief Why a worker was refused for another device model (empty when none was).
  [[nodiscard]] std::string mixed_devices() const;

 private:
  struct job {
    nlohmann::json command;
    std::promise<pool_job_result> promise;
    std::optional<std::size_t> setup_index{};  // add_setup(): the command's place in setup_
  };

  // A job, with the setup commands and the round as they were when it was taken.
  struct taken {
    job work;
    std::vector<nlohmann::json> setup;
    std::uint64_t round = 0;
  };

  pool_job_result refused_result() const;

  std::optional<taken> take();

  void finished(job& j, pool_job_result r);

  bool run_setup(pool_worker& w, const nlohmann::json& command, pool_job_result& failed,
                 std::optional<nlohmann::json>* reply_out = nullptr) const;

  std::unique_ptr<pool_worker> start(std::size_t i, std::unique_ptr<pool_worker> w, const nlohmann::json& setup,
                                     std::string& name, pool_job_result& failed);

  static bool poisons(const nlohmann::json& reply);

  void serve(std::size_t i);

  void retire(job j, const std::string& why);

  std::vector<std::string> devices_;
  worker_factory factory_;
  std::vector<nlohmann::json> setup_;  // the `setup` command, then those of add_setup()
  worker_pool_options options_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable idle_;  // running_ fell
  std::deque<job> queue_;
  std::size_t running_ = 0;  // jobs taken whose result is not set yet
  std::uint64_t round_ = 0;  // begin() calls
  bool stopping_ = false;
  std::size_t live_ = 0;
  std::size_t restarts_ = 0;
  std::string model_;
  std::string first_device_;
  std::string mixed_;
  std::vector<std::jthread> threads_;  // last: joined (in the destructor) before the members they use go away
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/bench/worker_pool-inl.hpp>
#endif

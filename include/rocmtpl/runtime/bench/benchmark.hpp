// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Running and timing one rendered choice on the GPU (the reference's
/// ROCmBenchmarkRequest.benchmark): seeded inputs, workspace query, warm-up, L2 flush, a
/// repetition count set from an estimate and a time budget, event timing, verification.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>

namespace rocmtpl::runtime {

/// @brief A bench was used out of order (verify() before run_reference()).
class bench_usage_error : public error {
 public:
  using error::error;
};

/// @brief How a benchmark measures.
struct benchmark_options {
  double budget_ms = 25.0;    ///< target GPU time of the timed repetitions (the reference's 25 ms)
  int estimate_runs = 5;      ///< runs that estimate one call's time
  int min_repetitions = 5;    ///< lower bound on timed repetitions
  int max_repetitions = 100;  ///< upper bound on timed repetitions
  bool flush_l2 = true;       ///< overwrite a buffer of twice the L2 size before each run
  /// time_settled(): GPU time of untimed runs of a call before its timed ones, so that the clocks
  /// settle as in sustained use (a GPU under load for a while runs slower than one just woken)
  double settle_ms = 100.0;
  std::uint64_t seed = 0x5eed;  ///< input data seed
};

/// @brief Statistics of the timed repetitions, in milliseconds.
struct timing {
  double min_ms = 0;               ///< fastest repetition
  double median_ms = 0;            ///< median repetition
  double spread = 0;               ///< (p90 - p10) / median; 0 with fewer than 2 samples
  int repetitions = 0;             ///< number of timed repetitions
  std::vector<double> samples_ms;  ///< every repetition's time, in order
};

/// @brief Summary statistics of samples (milliseconds).
[[nodiscard]] timing summarize(std::vector<double> samples);

/// @brief Relative L2 error allowed for an output dtype (fp32 accumulation against a double reference).
[[nodiscard]] double default_tolerance(dtype output);

/// @brief A benchmark allocation's byte count does not fit: the tensor's extent times its element
/// size overflows, or the extent is negative. Thrown before anything is allocated.
class allocation_size_error : public invalid_argument_error {
 public:
  /// @param tensor the tensor's name
  /// @param message the full message
  allocation_size_error(std::string tensor, const std::string& message)
      : invalid_argument_error(message), tensor_(std::move(tensor)) {}
  /// @brief The tensor whose allocation does not fit.
  [[nodiscard]] const std::string& tensor() const noexcept { return tensor_; }

 private:
  std::string tensor_;
};

/// @brief Bytes a benchmark allocates for each tensor of a request (at least 1 each).
struct allocation_sizes {
  std::vector<std::size_t> inputs{};  ///< in the request's input order
  std::size_t output = 0;             ///< the output (and the reference output)
};

namespace detail {
[[nodiscard]] std::size_t allocation_bytes(const tensor_meta& meta, std::string_view role);
}  // namespace detail

/// @brief The allocation sizes of a request, checked before anything is allocated.
/// @throws allocation_size_error naming the tensor whose byte count overflows
[[nodiscard]] allocation_sizes allocation_sizes_for(const rocm_benchmark_request& request);

/// @brief Times `launch` on `stream` with GPU events (the timing protocol of bench::time() and
/// rocm_template_caller::benchmark()): one warm-up, `estimate_runs` runs that estimate a call,
/// then as many timed repetitions as fit `budget_ms` (clamped to [min_repetitions,
/// max_repetitions]), each preceded by overwriting `flush` (the L2 flush; none when it is null)
/// and timed by its own event pair.
/// @param launch enqueues one call on the stream it is given
/// @param stream the stream everything runs on
/// @param flush device memory overwritten before each run (twice the L2 size), or nullptr
/// @param flush_bytes its size
/// @throws gpu_error (and whatever `launch` throws)
template <class Launch>
[[nodiscard]] timing time_launches(Launch&& launch, void* stream, void* flush, std::size_t flush_bytes,
                                   const benchmark_options& options) {
  const auto& rt = gpu_runtime::instance();
  auto one = [&](event& start, event& stop) {
    if (flush != nullptr) rt.memset(flush, 0, flush_bytes, stream);
    start.record(stream);
    launch(stream);
    stop.record(stream);
  };
  event start, stop;
  one(start, stop);  // warm-up: first-launch costs (module load, caches) stay out of the numbers
  rt.synchronize(stream);
  std::vector<double> estimate;
  for (int i = 0; i < options.estimate_runs; ++i) {
    one(start, stop);
    estimate.push_back(static_cast<double>(stop.elapsed_ms_since(start)));
  }
  const double est = estimate.empty() ? 1.0 : *std::min_element(estimate.begin(), estimate.end());
  const int reps = std::clamp(static_cast<int>(options.budget_ms / std::max(est, 1e-4)), options.min_repetitions,
                              options.max_repetitions);
  std::vector<event> starts, stops;
  starts.reserve(static_cast<std::size_t>(reps));
  stops.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    starts.emplace_back();
    stops.emplace_back();
    one(starts.back(), stops.back());
  }
  rt.synchronize(stream);
  std::vector<double> samples;
  for (std::size_t i = 0; i < static_cast<std::size_t>(reps); ++i) {
    samples.push_back(static_cast<double>(stops[i].elapsed_ms_since(starts[i])));
  }
  return summarize(std::move(samples));
}

/// @brief One call for time_settled(): enqueues the call on the stream it is given.
using timed_call = std::function<void(void* stream)>;

/// @brief Times calls in the state of sustained use (the autotuner's finalists). Each call in
/// turn: two runs that estimate it, untimed runs for `settle_ms` of its time (at most 1000), so
/// that the clocks settle as they do under load, then timed runs for half of `budget_ms` (clamped
/// to half of [min_repetitions, max_repetitions]); then all again in the opposite order, so that a
/// drift of the GPU's state over the passes weighs on every call alike. Every run is preceded by
/// overwriting `flush` and timed by its own event pair, as in time_launches(). Returns one timing
/// per call, in order, over both passes (empty for none). `rt`: the GPU runtime of the stream and
/// the flush buffer.
/// @throws gpu_error (and whatever a call throws)
[[nodiscard]] std::vector<timing> time_settled(const std::vector<timed_call>& calls, void* stream, void* flush,
                                               std::size_t flush_bytes, const benchmark_options& options,
                                               const gpu_runtime& rt = gpu_runtime::instance());

/// @brief Inputs, output, reference output and scratch for one benchmark request, on the current
/// device. Candidates of one problem share a bench (inputs are generated once).
class bench {
 public:
  /// @throws allocation_size_error (before touching the GPU) when a tensor's byte count overflows;
  /// no_gpu_error without a GPU; gpu_error on allocation failures.
  bench(const rocm_benchmark_request& request, const utility_kernels& util, benchmark_options options = {});

  /// @brief The request it benchmarks.
  [[nodiscard]] const rocm_benchmark_request& request() const noexcept { return request_; }
  /// @brief The stream every run goes on.
  [[nodiscard]] void* stream() const noexcept { return stream_.get(); }
  /// @brief The output tensor's device memory.
  [[nodiscard]] const device_buffer& output() const noexcept { return output_; }

  /// @brief Tensor pointers in C ABI order: inputs, then the output.
  [[nodiscard]] std::vector<const void*> tensors() const;

  /// @brief Queries the workspace and grows the workspace buffer to fit. `Kernel` is a
  /// kernel_entry (the shared library's C entry) or a module_kernel (runtime/launch/module_launcher.hpp):
  /// anything with `workspace_size(extra)` and `launch(tensors, extra, workspace, stream)`.
  template <class Kernel>
  void prepare(const Kernel& k, const std::vector<std::int64_t>& extra) {
    const auto bytes = k.workspace_size(extra);
    if (bytes > workspace_.size()) workspace_ = device_buffer(bytes);
  }

  /// @brief Poisons the output (NaN bytes), runs once and waits. Throws on a non-zero status or a
  /// GPU error.
  template <class Kernel>
  void run_once(const Kernel& k, const std::vector<std::int64_t>& extra) {
    prepare(k, extra);
    gpu_runtime::instance().memset(output_.get(), 0xFF, output_.size(), stream_.get());
    k.launch(tensors(), extra, workspace_.get(), stream_.get());
    stream_.synchronize();
  }

  /// @brief Runs the reference kernel and keeps its output for verify().
  /// @tparam Kernel kernel_entry (the reference's library) or module_kernel (its code object, bound
  /// to the size arguments)
  template <class Kernel>
  void run_reference(const Kernel& reference) {
    run_once(reference, std::vector<std::int64_t>(
                            request_.extra_args.begin(),
                            request_.extra_args.begin() + static_cast<std::ptrdiff_t>(request_.size_arg_count)));
    reference_ = device_buffer(output_.size());
    gpu_runtime::instance().memcpy_device(reference_.get(), output_.get(), output_.size(), stream_.get());
    stream_.synchronize();
    has_reference_ = true;
  }

  /// @brief True once run_reference() has kept a reference output.
  [[nodiscard]] bool has_reference() const noexcept { return has_reference_; }

  /// @brief Runs `k` once on poisoned output and compares with the reference output.
  template <class Kernel>
  [[nodiscard]] comparison verify(const Kernel& k, const std::vector<std::int64_t>& extra) {
    if (!has_reference_)
      throw bench_usage_error("rocmtpl: bench: verify() needs run_reference() first; call it once per bench");
    run_once(k, extra);
    const auto& meta = request_.output_tensor_meta;
    return util_->compare(output_.get(), meta, reference_.get(), meta, stream_.get());
  }

  /// @brief `k` as a call for time_settled() on this bench's inputs, output and workspace
  /// (grown to fit it now). `k` and `extra` must outlive the call.
  template <class Kernel>
  [[nodiscard]] timed_call call(const Kernel& k, const std::vector<std::int64_t>& extra) {
    prepare(k, extra);
    return [this, &k, &extra, t = tensors()](void* on) { k.launch(t, extra, workspace_.get(), on); };
  }

  /// @brief Calls from call() timed in the state of sustained use, with this bench's L2 flush
  /// (runtime::time_settled()).
  [[nodiscard]] std::vector<timing> time_settled(const std::vector<timed_call>& calls) {
    return runtime::time_settled(calls, stream_.get(), flush_.get(), flush_.size(), options_);
  }

  /// @brief Warm-up, estimate, then timed repetitions with an L2 flush before each, one event pair
  /// each (time_launches()).
  /// @tparam Kernel kernel_entry (a library's entry) or module_kernel (a code object's kernels)
  template <class Kernel>
  [[nodiscard]] timing time(const Kernel& k, const std::vector<std::int64_t>& extra) {
    prepare(k, extra);
    const auto t = tensors();
    return time_launches([&](void* on) { k.launch(t, extra, workspace_.get(), on); }, stream_.get(), flush_.get(),
                         flush_.size(), options_);
  }

 private:
  rocm_benchmark_request request_;
  const utility_kernels* util_;
  benchmark_options options_;
  allocation_sizes sizes_;  // before stream_: checked before the GPU is touched
  runtime::stream stream_;
  std::vector<device_buffer> inputs_;
  device_buffer output_;
  device_buffer reference_;
  device_buffer workspace_;
  device_buffer flush_;
  bool has_reference_ = false;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/bench/benchmark-inl.hpp>
#endif

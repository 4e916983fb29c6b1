// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/bench/benchmark.hpp: included at its end (header-only) or compiled once by
// src/runtime/bench.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE timing summarize(std::vector<double> samples) {
  timing t;
  t.repetitions = static_cast<int>(samples.size());
  if (samples.empty()) return t;
  t.samples_ms = samples;
  std::sort(samples.begin(), samples.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(samples.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, samples.size() - 1);
    return samples[lo] + (samples[hi] - samples[lo]) * (pos - static_cast<double>(lo));
  };
  t.min_ms = samples.front();
  t.median_ms = quantile(0.5);
  t.spread = samples.size() >= 2 && t.median_ms > 0 ? (quantile(0.9) - quantile(0.1)) / t.median_ms : 0.0;
  return t;
}

ROCMTPL_INLINE std::vector<timing> time_settled(const std::vector<timed_call>& calls, void* stream, void* flush,
                                                std::size_t flush_bytes, const benchmark_options& options,
                                                const gpu_runtime& rt) {
  // `count` runs of `call`, each after the flush; with `samples`, each timed by its own event pair.
  const auto runs = [&](const timed_call& call, int count, std::vector<double>* samples) {
    std::vector<event> starts, stops;
    for (int r = 0; samples != nullptr && r < count; ++r) {
      starts.emplace_back(rt);
      stops.emplace_back(rt);
    }
    for (std::size_t r = 0; r < static_cast<std::size_t>(count); ++r) {
      if (flush != nullptr) rt.memset(flush, 0, flush_bytes, stream);
      if (samples) starts[r].record(stream);
      call(stream);
      if (samples) stops[r].record(stream);
    }
    rt.synchronize(stream);
    for (std::size_t r = 0; r < starts.size(); ++r) {
      samples->push_back(static_cast<double>(stops[r].elapsed_ms_since(starts[r])));
    }
  };
  const std::size_t n = calls.size();
  std::vector<std::vector<double>> samples(n);
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = pass == 0 ? j : n - 1 - j;
      std::vector<double> estimate;
      runs(calls[i], 2, &estimate);  // the first pays for first-launch costs
      const double ms = std::max(estimate.back(), 1e-4);
      // At most 1000 settling runs: short kernels (and their flushes) would take long to fill it.
      runs(calls[i], std::clamp(static_cast<int>(std::ceil(options.settle_ms / ms)), 0, 1000), nullptr);
      runs(calls[i],
           std::clamp(static_cast<int>(options.budget_ms / 2 / ms), std::max(1, options.min_repetitions / 2),
                      std::max(1, options.max_repetitions / 2)),
           &samples[i]);
    }
  }
  std::vector<timing> out;
  for (auto& s : samples) out.push_back(summarize(std::move(s)));
  return out;
}

ROCMTPL_INLINE double default_tolerance(dtype output) {
  switch (output) {
    case dtype::f64: return 1e-10;
    case dtype::f32: return 1e-4;
    case dtype::f16: return 5e-3;
    case dtype::bf16: return 2e-2;
    case dtype::f8e4m3:
    case dtype::f8e5m2: return 1.5e-1;
    default: return 0.0;  // integers: exact
  }
}

namespace detail {
// Bytes of one tensor's allocation: its storage extent (tensor_meta checks the extent itself)
// times the element size, overflow-checked in size_t; at least 1 so every tensor has an address.
ROCMTPL_INLINE std::size_t allocation_bytes(const tensor_meta& meta, std::string_view role) {
  const std::int64_t elements = meta.storage_elements();
  const std::string where = "rocmtpl: bench: " + std::string(role) + " '" + meta.name + "'";
  if (elements < 0) {
    throw allocation_size_error(meta.name, where + " has a negative extent (" + std::to_string(elements) +
                                               " elements); check its sizes, strides and offset");
  }
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(elements), element_size(meta.type), &bytes)) {
    throw allocation_size_error(meta.name, where + " needs " + std::to_string(elements) + " elements of " +
                                               std::to_string(element_size(meta.type)) +
                                               " bytes, more than size_t counts; use smaller sizes");
  }
  return std::max<std::size_t>(bytes, 1);
}
}  // namespace detail

ROCMTPL_INLINE allocation_sizes allocation_sizes_for(const rocm_benchmark_request& request) {
  allocation_sizes a;
  for (const auto& meta : request.input_tensor_meta) a.inputs.push_back(detail::allocation_bytes(meta, "input"));
  a.output = detail::allocation_bytes(request.output_tensor_meta, "output");
  return a;
}

ROCMTPL_INLINE bench::bench(const rocm_benchmark_request& request, const utility_kernels& util,
                            benchmark_options options)
    : request_(request), util_(&util), options_(options), sizes_(allocation_sizes_for(request_)) {
  const auto& rt = gpu_runtime::instance();
  for (std::size_t i = 0; i < request_.input_tensor_meta.size(); ++i) {
    inputs_.emplace_back(sizes_.inputs[i]);
    util.fill(inputs_.back().get(), request_.input_tensor_meta[i], options_.seed + i, stream_.get());
  }
  output_ = device_buffer(sizes_.output);
  if (options_.flush_l2) {
    const auto l2 = rt.properties(rt.current_device()).l2_cache_bytes;
    flush_ = device_buffer(std::max<std::size_t>(2 * l2, 1 << 20));
  }
  stream_.synchronize();
}

ROCMTPL_INLINE std::vector<const void*> bench::tensors() const {
  std::vector<const void*> t;
  for (const auto& b : inputs_) t.push_back(b.get());
  t.push_back(output_.get());
  return t;
}

}  // namespace rocmtpl::runtime
